#!/usr/bin/env bash
# Regenerates triad.callgrind, the real callgrind output tests/measure/profile/test_callgrind.cpp reads:
# triad.c built with gcc -O3 -march=x86-64-v3 -g and run under callgrind with the options
# `roofcast profile --backend callgrind` uses (per-instruction costs, jumps, the cache simulation with
# write-backs, a 32 KiB 8-way L1 and a 512 KiB 8-way last level). The tests read the file as committed and
# check only what triad.c's source fixes (trip counts, calls, loads and stores per iteration), so a
# regenerated file with another compiler or C library passes them too.
#   bash tests/measure/data/callgrind/make-fixture.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/roofcast-callgrind-fixture
rm -rf "$work"
mkdir -p "$work"
cp "$here/triad.c" "$work/"
cd "$work"
gcc -O3 -march=x86-64-v3 -g -o triad triad.c
valgrind --tool=callgrind --dump-instr=yes --collect-jumps=yes --cache-sim=yes --simulate-wb=yes \
    --D1=32768,8,64 --LL=524288,8,64 --callgrind-out-file="$here/triad.callgrind" ./triad
gcc --version | head -1
valgrind --version
