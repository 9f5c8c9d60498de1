"""Packs the Blender extension: one installable zip per animkit wheel, as Blender's own
`extension build --split-platforms` lays it out (the manifest and the add-on's modules at the
zip root, the wheel under wheels/), named `animkit-VERSION-PLATFORM.zip`, with the manifest's
`version`, `wheels` and `platforms` set from the wheel.

Usage: python3 tools/blender/package.py -o OUT_DIR WHEEL...
Prints the path of each zip written. A wheel for a platform Blender does not ship on (Linux
aarch64) is skipped with a message; no zip at all is an error.
"""

import argparse
import re
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ADDON = REPO / "blender"

# Blender's platform names (the manifest's `platforms` list) for a wheel's platform tag.
PLATFORM_TAGS = [
    (re.compile(r"^win_amd64$"), "windows-x64"),
    (re.compile(r"^win_arm64$"), "windows-arm64"),
    (re.compile(r"^macosx_\d+_\d+_(x86_64)$"), "macos-x64"),
    (re.compile(r"^macosx_\d+_\d+_(arm64)$"), "macos-arm64"),
    (re.compile(r"^(many|musl)linux_\d+_\d+_x86_64$"), "linux-x64"),
]


def wheel_parts(wheel_name):
    """(version, platform tags) of a wheel file name: name-version-python-abi-platform.whl."""
    parts = wheel_name.removesuffix(".whl").split("-")
    if len(parts) != 5:
        raise ValueError(f"{wheel_name} is not a wheel file name (name-version-python-abi-platform.whl)")
    return parts[1], parts[4].split(".")


def blender_platform(wheel_name):
    """Blender's name for the platform a wheel runs on, or None where Blender has no build."""
    _, tags = wheel_parts(wheel_name)
    for tag in tags:
        for pattern, platform in PLATFORM_TAGS:
            if pattern.match(tag):
                return platform
    return None


def manifest_for(text, version, wheel_name, platform):
    """The source manifest with this build's version, wheel and platform (each key must be there)."""
    fields = {
        "version": f'"{version}"',
        "wheels": f'["./wheels/{wheel_name}"]',
        "platforms": f'["{platform}"]',
    }
    lines = []
    for line in text.splitlines():
        key = line.split("=", 1)[0].strip()
        if "=" in line and key in fields:
            line = f"{key} = {fields.pop(key)}"
        lines.append(line)
    if fields:
        raise ValueError(f"blender_manifest.toml has no {', '.join(fields)} line to set")
    return "\n".join(lines) + "\n"


def package(wheel, out_dir):
    """Writes the extension zip for one wheel; returns its path, or None if skipped."""
    version, _ = wheel_parts(wheel.name)
    platform = blender_platform(wheel.name)
    if platform is None:
        print(f"package: {wheel.name}: Blender ships no build for this platform; no zip", file=sys.stderr)
        return None
    manifest = manifest_for((ADDON / "blender_manifest.toml").read_text(), version, wheel.name, platform)
    out = out_dir / f"animkit-{version}-{platform.replace('-', '_')}.zip"
    tmp = out.with_suffix(".zip.partial")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("blender_manifest.toml", manifest)
        for module in sorted(ADDON.glob("*.py")):
            z.write(module, module.name)
        z.write(wheel, f"wheels/{wheel.name}")
    tmp.replace(out)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--out", type=Path, required=True, help="folder for the zips")
    parser.add_argument("wheels", type=Path, nargs="+", help="animkit wheels (.whl)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    written = [z for z in (package(w, args.out) for w in args.wheels) if z is not None]
    if not written:
        sys.exit("package: no wheel for a platform Blender runs on")
    for zip_path in written:
        print(zip_path)


if __name__ == "__main__":
    main()
