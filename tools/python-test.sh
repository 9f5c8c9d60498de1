#!/usr/bin/env bash
# The Python package's tests: builds `pip install ./crates/animkit-py` (maturin from the package
# index as the build backend) into a fresh virtual environment under target/, then runs pytest on
# crates/animkit-py/tests against the `animkit` CLI built here; ruff checks every Python file
# first. Pytest finding no test is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/python-venv
"${PYTHON:-python3}" -m venv --clear "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet numpy pytest "ruff>=0.6,<1"

# The repository's Python (package tests, the Blender extension, tools) in one style (ruff.toml).
"$venv/bin/ruff" format --check --quiet $(git ls-files '*.py')
"$venv/bin/ruff" check --quiet $(git ls-files '*.py')
"$venv/bin/python" -m pip install --quiet ./crates/animkit-py

# The tests compare the package with the CLI's output.
cargo build --quiet -p animkit-cli
export ANIMKIT_CLI="$PWD/target/debug/animkit"

status=0
"$venv/bin/python" -m pytest crates/animkit-py/tests "$@" || status=$?
if [ "$status" -eq 5 ]; then
  echo "python-test: pytest collected no tests" >&2
  exit 1
fi
exit "$status"
