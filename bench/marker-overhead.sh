#!/usr/bin/env bash
# Cost of one marker begin/end pair, inactive (ROOFCAST_MARKER_OUTPUT unset) and active, from the build
# tree's roofcast-marker-overhead (this script builds nothing), followed by the instructions of the
# inactive path of roofcast_region_begin as objdump shows them.
# Usage: bash bench/marker-overhead.sh [build dir (default build/release)] [pairs] [repetitions]
set -euo pipefail
source "$(dirname "$0")/lib/host.sh"
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build/release}
pairs=${2:-2000000}
reps=${3:-11}
bin=$build/roofcast-marker-overhead
lib=$build/libroofcast-marker.so
host_line
if [[ ! -x $bin ]]; then
    echo "no $bin: build it first (cmake --build --preset release --target roofcast-marker-overhead)" >&2
    exit 1
fi
echo "host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) (timings on a shared host are noisy)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
env -u ROOFCAST_MARKER_OUTPUT "$bin" --pairs "$pairs" --reps "$reps"
ROOFCAST_MARKER_OUTPUT=$tmp "$bin" --pairs "$pairs" --reps "$reps"
ROOFCAST_MARKER_OUTPUT=$tmp "$bin" --pairs "$pairs" --reps "$reps" --nested
env -u ROOFCAST_MARKER_OUTPUT "$bin" --pairs "$pairs" --reps "$reps" --clock
ls "$tmp"/marker.*.json > /dev/null || { echo "the active runs wrote no marker file" >&2; exit 1; }
if command -v objdump > /dev/null; then
    echo "inactive path of roofcast_region_begin (objdump, up to its first return):"
    objdump -d --no-show-raw-insn "$(readlink -f "$lib")" |
        awk '/<roofcast_region_begin>:$/ {on=1; next} on && /^$/ {exit} on {print; if ($0 ~ /\tret/) exit}' |
        sed 's/^/  /'
fi
