"""The extension's packing (tools/blender/package.py): one zip per wheel, with the manifest's
platform taken from the wheel's tag. Platform names are Blender's (its manual's list for the
manifest: windows-x64, windows-arm64, macos-x64, macos-arm64, linux-x64)."""

import importlib.util
import tomllib
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("package", REPO / "tools" / "blender" / "package.py")
package = importlib.util.module_from_spec(spec)
spec.loader.exec_module(package)


@pytest.mark.parametrize(
    "tag, platform",
    [
        ("win_amd64", "windows-x64"),
        ("win_arm64", "windows-arm64"),
        ("macosx_10_12_x86_64", "macos-x64"),
        ("macosx_11_0_arm64", "macos-arm64"),
        ("manylinux_2_34_x86_64", "linux-x64"),
        ("manylinux_2_17_x86_64.manylinux2014_x86_64", "linux-x64"),
        ("manylinux_2_17_aarch64.manylinux2014_aarch64", None),
    ],
)
def test_the_platform_comes_from_the_wheel_tag(tag, platform):
    assert package.blender_platform(f"animkit-1.2.3-cp311-abi3-{tag}.whl") == platform


def test_one_zip_per_wheel_with_its_platform(tmp_path):
    wheels = []
    for tag in ("win_amd64", "macosx_11_0_arm64", "manylinux_2_17_aarch64"):
        wheel = tmp_path / f"animkit-1.2.3-cp311-abi3-{tag}.whl"
        wheel.write_bytes(b"not a real wheel")
        wheels.append(wheel)
    out = tmp_path / "out"
    out.mkdir()
    zips = [package.package(w, out) for w in wheels]
    assert [z.name if z else None for z in zips] == [
        "animkit-1.2.3-windows_x64.zip",
        "animkit-1.2.3-macos_arm64.zip",
        None,
    ]
    with zipfile.ZipFile(zips[0]) as z:
        names = set(z.namelist())
        manifest = tomllib.loads(z.read("blender_manifest.toml").decode())
    assert manifest["version"] == "1.2.3"
    assert manifest["platforms"] == ["windows-x64"]
    assert manifest["wheels"] == ["./wheels/animkit-1.2.3-cp311-abi3-win_amd64.whl"]
    assert "wheels/animkit-1.2.3-cp311-abi3-win_amd64.whl" in names
    modules = {p.name for p in (REPO / "blender").glob("*.py")}
    assert modules and modules <= names
    assert not any(n.startswith("tests/") for n in names)


def test_a_manifest_without_the_keys_is_refused():
    with pytest.raises(ValueError, match="platforms"):
        package.manifest_for('version = "0"\nwheels = []\n', "1", "w.whl", "linux-x64")
