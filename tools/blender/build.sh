#!/usr/bin/env bash
# Builds the Blender extension for this machine: the animkit wheel (maturin, release, abi3
# CPython >= 3.11), then tools/blender/package.py writes target/blender/animkit-VERSION-PLATFORM.zip
# (e.g. animkit-0.1.0-linux_x64.zip) and prints its path. The release workflow packs the wheels
# of every platform the same way. Install the zip in Blender with Edit > Preferences >
# Get Extensions > Install from Disk.
# MATURIN names the maturin to use (default: `maturin` on PATH).
set -euo pipefail
cd "$(dirname "$0")/../.."

out=target/blender
rm -rf "$out/wheels" "$out"/animkit-*.zip
"${MATURIN:-maturin}" build --quiet --release -m crates/animkit-py/Cargo.toml -o "$out/wheels" >&2
python3 tools/blender/package.py -o "$out" "$out"/wheels/animkit-*.whl
