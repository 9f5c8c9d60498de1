#!/usr/bin/env bash
# Builds the Blender extension: the animkit wheel (maturin, release, abi3 CPython >= 3.11) and
# target/blender/animkit-VERSION.zip laid out as Blender's `extension build` does: the manifest
# and the add-on's modules at the zip root, the wheel under wheels/ (listed in the manifest).
# Install it in Blender with Edit > Preferences > Get Extensions > Install from Disk.
# MATURIN names the maturin to use (default: `maturin` on PATH).
set -euo pipefail
cd "$(dirname "$0")/../.."

version=$(cargo metadata --no-deps --format-version 1 \
  | python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "animkit-py"))')
out=target/blender
stage="$out/stage"
rm -rf "$stage" "$out/wheels"
mkdir -p "$stage/wheels"

"${MATURIN:-maturin}" build --quiet --release -m crates/animkit-py/Cargo.toml -o "$out/wheels" >&2
wheel=$(cd "$out/wheels" && ls animkit-"$version"-*.whl)
cp "$out/wheels/$wheel" "$stage/wheels/"

cp blender/*.py "$stage/"
# The manifest with this build's version and wheel.
sed -e "s|^version = .*|version = \"$version\"|" \
    -e "s|^wheels = .*|wheels = [\"./wheels/$wheel\"]|" blender/blender_manifest.toml > "$stage/blender_manifest.toml"

zip="$out/animkit-$version.zip"
rm -f "$zip"
(cd "$stage" && python3 -m zipfile -c "../$(basename "$zip")" blender_manifest.toml *.py wheels)
rm -rf "$stage"
echo "$zip"
