"""Shared fixtures: the corpus of real game files and the `animkit` CLI the package is compared with.

The corpus is `$ANIMKIT_CORPUS`, else `../shared/corpus` beside the repository. Without it the
corpus tests skip, except under CI (`CI=true`), where a missing corpus is a failure.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


def corpus_root():
    root = os.environ.get("ANIMKIT_CORPUS")
    return Path(root) if root else REPO.parent / "shared" / "corpus"


def corpus_files():
    root = corpus_root()
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*") if p.is_file() and p.parent != root)


def pytest_generate_tests(metafunc):
    if "corpus_file" in metafunc.fixturenames:
        files = corpus_files()
        if not files and os.environ.get("CI") == "true":
            raise RuntimeError(f"CI: the corpus ({corpus_root()}) is missing")
        ids = [str(p.relative_to(corpus_root())) for p in files]
        metafunc.parametrize("corpus_file", files or [None], ids=ids or ["no-corpus"])


@pytest.fixture
def corpus_file(request):
    if request.param is None:
        pytest.skip("no corpus (set ANIMKIT_CORPUS or put it at ../shared/corpus)")
    return request.param


def cli_path():
    path = os.environ.get("ANIMKIT_CLI") or str(REPO / "target" / "debug" / "animkit")
    if not Path(path).is_file():
        pytest.skip(f"the animkit CLI is not built ({path}); tools/python-test.sh builds it")
    return path


def run_cli(*args, check=True):
    """Runs the CLI; returns (exit code, stdout, stderr)."""
    done = subprocess.run([cli_path(), *map(str, args)], capture_output=True, text=True, timeout=600)
    if check and done.returncode != 0:
        raise AssertionError(f"animkit {' '.join(map(str, args))} failed: {done.stderr}")
    return done.returncode, done.stdout, done.stderr


def cli_info(path):
    """`animkit info --json` of a file, or None when the CLI cannot read it."""
    code, out, _ = run_cli("info", "--json", path, check=False)
    return json.loads(out) if code == 0 else None
