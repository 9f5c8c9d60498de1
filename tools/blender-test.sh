#!/usr/bin/env bash
# The Blender extension's headless tests: a virtual environment under target/ with Blender's
# Python module (`bpy` 4.5 LTS, from the package index, for CPython 3.11), maturin and pytest;
# tools/blender/build.sh builds the extension zip; pytest on blender/tests installs it into the
# headless Blender with Blender's own `extensions.package_install_files` (which also installs
# the bundled animkit wheel) and runs the tests. Blender's user folders go to
# target/blender/user, made fresh each run. PYTHON names a CPython 3.11 (default python3.11, else python3).
# Pytest finding no test is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/blender-venv
if [ ! -x "$venv/bin/python" ]; then
  "${PYTHON:-$(command -v python3.11 || command -v python3)}" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet "bpy==4.5.*" "maturin>=1.9,<2" pytest
# The tests must use the wheel bundled in the zip, not one left in the environment.
"$venv/bin/python" -m pip uninstall --quiet --yes animkit 2>/dev/null || true

MATURIN="$PWD/$venv/bin/maturin" tools/blender/build.sh

export BLENDER_USER_RESOURCES="$PWD/target/blender/user"
rm -rf "$BLENDER_USER_RESOURCES"
export PYTHONDONTWRITEBYTECODE=1

status=0
# The root is the tests folder: blender/ is the add-on package, which imports only inside Blender.
"$venv/bin/python" -m pytest -p no:cacheprovider --rootdir blender/tests blender/tests "$@" || status=$?
if [ "$status" -eq 5 ]; then
  echo "blender-test: pytest collected no tests" >&2
  exit 1
fi
exit "$status"
