"""Headless Blender (the `bpy` module) with the animkit extension installed from its zip.

The zip is `$ANIMKIT_BLENDER_ZIP`, else the newest `target/blender/animkit-*.zip`
(tools/blender/build.sh writes it); it is installed as a user extension with Blender's own
`extensions.package_install_files`, which also installs the bundled animkit wheel. Blender's
user folders go to `$BLENDER_USER_RESOURCES` (default `target/blender/user`), never the home.
The corpus is `$ANIMKIT_CORPUS`, else `../shared/corpus`; without it the tests skip, except
under CI (`CI=true`), where a missing corpus is a failure.
"""

import os
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
os.environ.setdefault("BLENDER_USER_RESOURCES", str(REPO / "target" / "blender" / "user"))

import bpy  # noqa: E402  (after the user folders are chosen)


def corpus_root():
    root = os.environ.get("ANIMKIT_CORPUS")
    return Path(root) if root else REPO.parent / "shared" / "corpus"


def extension_zip():
    given = os.environ.get("ANIMKIT_BLENDER_ZIP")
    if given:
        return Path(given)
    built = sorted((REPO / "target" / "blender").glob("animkit-*.zip"), key=lambda p: p.stat().st_mtime)
    if not built:
        pytest.exit("no extension zip: run tools/blender/build.sh (or tools/blender-test.sh)", returncode=2)
    return built[-1]


@pytest.fixture(scope="session", autouse=True)
def extension():
    """Installs and enables the extension once; returns the bundled animkit module."""
    started = time.monotonic()
    result = bpy.ops.extensions.package_install_files(
        filepath=str(extension_zip()), repo="user_default", enable_on_install=True
    )
    assert result == {"FINISHED"}
    assert hasattr(bpy.ops.import_scene, "animkit") and hasattr(bpy.ops.export_scene, "animkit")
    import animkit

    # The wheel inside the zip, not one installed some other way.
    assert "extensions" in Path(animkit.__file__).parts, animkit.__file__
    print(f"extension installed in {time.monotonic() - started:.1f} s")
    return animkit


@pytest.fixture
def corpus():
    root = corpus_root()
    if not root.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI: the corpus ({root}) is missing")
        pytest.skip("no corpus (set ANIMKIT_CORPUS or put it at ../shared/corpus)")
    return root


@pytest.fixture
def scene():
    """An empty scene (the startup file's cube and camera gone, no actions)."""
    for collection in (
        bpy.data.objects,
        bpy.data.meshes,
        bpy.data.armatures,
        bpy.data.actions,
        bpy.data.cameras,
        bpy.data.lights,
    ):
        for item in list(collection):
            collection.remove(item)
    bpy.context.scene.render.fps = 24
    bpy.context.scene.render.fps_base = 1.0
    return bpy.context


def pytest_terminal_summary(terminalreporter):
    from measure import WORST

    if not WORST:
        return
    terminalreporter.section("worst differences from the original (animkit.sample at 7 times per clip)")
    terminalreporter.write_line(f"{'route':<10} {'format':<22} {'rotation (deg)':>15} {'translation':>12}")
    for (route, label), (rotation, translation) in sorted(WORST.items()):
        terminalreporter.write_line(f"{route:<10} {label:<22} {rotation:>15.6f} {translation:>12.3g}")
