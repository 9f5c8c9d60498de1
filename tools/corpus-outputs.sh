#!/usr/bin/env bash
# Record what the CLI makes of every corpus file, to compare two builds:
#
#   tools/corpus-outputs.sh OUT_DIR [ANIMKIT_BINARY]
#   diff -r before/ after/
#
# For each file: `info -v`, `info --json`, `check`, the dump, the model JSON, and the SHA-256 of
# the GLB, of the rewrite in its own format, of `repair`, and of `pack` of the dump. An exit code
# other than 0 is recorded beside the output, so a change of verdict shows in the diff too.
# Reads $ANIMKIT_CORPUS (default ../shared/corpus); the binary defaults to target/debug/animkit.
set -u
out=${1:?usage: tools/corpus-outputs.sh OUT_DIR [ANIMKIT_BINARY]}
bin=${2:-target/debug/animkit}
corpus=${ANIMKIT_CORPUS:-../shared/corpus}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Runs the CLI, keeping stdout and stderr (with the temporary folder's name removed) and the exit code.
run() {
    local name=$1
    shift
    "$bin" "$@" >"$out/$name.out" 2>"$out/$name.err"
    echo $? >"$out/$name.rc"
    sed -i "s|$tmp|TMP|g" "$out/$name.out" "$out/$name.err"
}

# The SHA-256 of a file the CLI wrote, or "none".
digest() {
    if [ -f "$1" ]; then sha256sum <"$1" | cut -d' ' -f1; else echo none; fi
}

find "$corpus" -type f ! -name '*.md' ! -name SHA256SUMS | sort | while read -r file; do
    name=$(basename "$file")
    ext=${name##*.}
    run "$name.info" info -v "$file"
    run "$name.info-json" info --json "$file"
    run "$name.check" check "$file"
    run "$name.dump" dump --compact "$file"
    run "$name.model" convert --to model-json -o "$tmp/model.json" "$file"
    cp "$tmp/model.json" "$out/$name.model.json" 2>/dev/null
    run "$name.glb" convert --to glb -o "$tmp/out.glb" "$file"
    run "$name.rewrite" convert --to "$ext" -o "$tmp/rewrite.$ext" "$file"
    run "$name.repair" repair -o "$tmp/repair.$ext" "$file"
    cp "$out/$name.dump.out" "$tmp/dump.json"
    run "$name.pack" pack -o "$tmp/pack.$ext" "$tmp/dump.json"
    {
        echo "glb $(digest "$tmp/out.glb")"
        echo "rewrite $(digest "$tmp/rewrite.$ext")"
        echo "repair $(digest "$tmp/repair.$ext")"
        echo "pack $(digest "$tmp/pack.$ext")"
    } >"$out/$name.digests"
    rm -f "$tmp"/*
done
