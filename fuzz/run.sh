#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 60), JOBS at a time (default 2), keeping
# the interesting inputs in fuzz/corpus/<target> and crashes in fuzz/artifacts/<target>.
#
# Only the stable toolchain is needed: RUSTC_BOOTSTRAP=1 lets it accept the -Z flags cargo-fuzz
# passes. No sanitizer (safe Rust; panics, hangs and OOMs are what we look for), release build.
# Seeds are the files our own writers generate (tests/robustness.rs save_generated_fixtures),
# never game data.
#
# usage: fuzz/run.sh [SECONDS] [JOBS] [TARGET...]
set -eu
cd "$(dirname "$0")"
SECONDS_EACH=${1:-60}
JOBS=${2:-2}
shift 2 2>/dev/null || shift $# 
TARGETS=${*:-$(RUSTC_BOOTSTRAP=1 cargo fuzz list)}

# Seeds: the generated fixtures, sorted into the targets that read them.
SEEDS=$(mktemp -d)
ANIMKIT_SAVE_GENERATED="$SEEDS" cargo test -q --manifest-path ../Cargo.toml -p animkit \
    --test robustness save_generated_fixtures >/dev/null
seed() { # target, glob
    mkdir -p "corpus/$1"
    for f in "$SEEDS"/$2; do [ -e "$f" ] && cp "$f" "corpus/$1/seed_$(basename "$f")"; done
    return 0
}
for kind in read roundtrip; do
    seed ${kind}_ifp 'ifp_*'
    seed ${kind}_skb 'skb_*'
    seed ${kind}_hip 'hip_*'
    seed ${kind}_cryengine 'cryengine_*'
    seed ${kind}_bfres 'bfres'
    seed ${kind}_yaz0 'yaz0_*'
    seed ${kind}_zstd 'zstd_*'
    seed ${kind}_sarc 'sarc_*'
    seed ${kind}_gltf 'gltf_*'
    seed ${kind}_dff 'dff_*'
    seed ${kind}_model_json 'model-json*'
done
seed read_nested '*'

rm -rf "$SEEDS"

# Only now: RUSTC_BOOTSTRAP changes the compiler fingerprint, and the seed step above must not
# rebuild the main workspace's test profile.
export RUSTC_BOOTSTRAP=1

cargo fuzz build -s none -O
mkdir -p logs
run() {
    t=$1
    cargo fuzz run -s none -O "$t" "corpus/$t" -- -max_total_time="$SECONDS_EACH" \
        -timeout=10 -rss_limit_mb=2048 -max_len=1048576 -print_final_stats=1 >"logs/$t.log" 2>&1
    status=$?
    stats=$(grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "logs/$t.log" | tail -2 | tr '\n' ' ')
    echo "$t: exit $status $stats"
}
# JOBS targets at a time.
set +e
running=0
for t in $TARGETS; do
    run "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait
grep -l "SUMMARY\|panicked" logs/*.log 2>/dev/null && exit 1
exit 0
