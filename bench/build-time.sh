#!/usr/bin/env bash
# A fresh release build's time: a cleared build directory, no compiler cache, every target of the release
# preset (roofcast, its helpers, the marker library, the tests, man pages), `nproc` jobs. Prints the host,
# the wall and processor time of the build, the share of the product's targets and of the tests, and the
# slowest translation units (from ninja's log). Not a test: it prints figures.
#   bash bench/build-time.sh [build dir]   (default: a temporary directory, removed afterwards)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/host.sh
dir=${1:-$(mktemp -d)}
[[ $# -ge 1 ]] || trap 'rm -rf "$dir"' EXIT
rm -rf "$dir"
host_line
echo "roofcast $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) jobs, no compiler cache"
cmake --preset release -B "$dir" -DROOFCAST_CCACHE=OFF >/dev/null
/usr/bin/time -f "%e %U %S" -o "$dir/time" cmake --build "$dir" -j "$(nproc)" >"$dir/build.log" 2>&1 ||
    { tail -20 "$dir/build.log"; exit 1; }
read -r wall user sys <"$dir/time"
awk -v w="$wall" -v u="$user" -v s="$sys" 'BEGIN {
    printf "fresh release build: %.0f s wall (%.1f min), %.0f s processor time (%.0f user + %.0f system)\n",
           w, w / 60, u + s, u, s }'
awk 'NR > 1 { t = ($2 - $1) / 1000; if ($4 ~ /^tests\//) tests += t; else product += t; n++ }
     END { printf "compile and link steps: %d; product %.0f s, tests %.0f s of processor time\n", n, product, tests }' \
    "$dir/.ninja_log"
echo "slowest steps (s):"
awk 'NR > 1 { printf "%7.1f %s\n", ($2 - $1) / 1000, $4 }' "$dir/.ninja_log" | sort -rn | head -8
