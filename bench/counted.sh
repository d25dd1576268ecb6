#!/usr/bin/env bash
# The callgrind backend's counts against known ones, and what profiling costs.
#   bash bench/counted.sh [roofcast] [machine file] [runs]
# Compiles tests/e2e/data/counted_kernels.c for x86-64 (SSE2) and, where the CPU has them, x86-64-v3
# (AVX2+FMA), profiles every kernel with `roofcast profile --backend callgrind` and prints, per kernel, the
# counted FLOPs, core-side bytes and memory bytes against the known counts; then the profiling cost of a
# memory-bound triad (arrays 8x the simulated last level): the profile's wall time over one native run of
# the same command, `runs` (3) times each in turn, min / median / max, with the simulated passes one after
# another and all at once (`--passes-at-once 0`: one per core). Prints figures; not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/host.sh
bin=${1:-build/release/roofcast}
machine=${2:-data/machines/example-caches.yaml}
runs=${3:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
host_line
echo "roofcast $(git rev-parse --short HEAD 2>/dev/null || echo '?'), machine file $machine"

variants=("sse2:-O3 -march=x86-64")
grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo && variants+=("avx2:-O3 -march=x86-64-v3")
n=100003 reps=3
for v in "${variants[@]}"; do
    name=${v%%:*}
    # shellcheck disable=SC2086
    cc ${v#*:} -g -o "$tmp/ck-$name" tests/e2e/data/counted_kernels.c
    "$bin" profile --backend callgrind --machine "$machine" -o "$tmp/$name.json" -- "$tmp/ck-$name" all $n $reps \
        >/dev/null 2>&1
    python3 - "$tmp/$name.json" "$name" $n $reps <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); variant = sys.argv[2]; n = int(sys.argv[3]); reps = int(sys.argv[4])
f = {x["name"]: x["metrics"] for x in d["functions"]}
tot = lambda fn, m: sum(f[fn][m]["per_rank"][0]) if m in f[fn] else float("nan")
interior = (n - 2) * 14 * 14
known = {"triad": (2 * n, 24 * n), "triadf": (2 * n, 12 * n), "dot": (2 * n, 16 * n), "dotf": (2 * n, 8 * n),
         "spmv27": (54 * n, 27 * 20 * n + 8 * n), "stencil7": (7 * interior, None)}
print(f"\n{variant}: n = {n}, {reps} calls each")
print(f"{'kernel':<9} {'flops counted':>14} {'known':>14} {'error':>8}   {'bytes_L1':>12} {'known':>12} {'error':>8}   {'bytes_MEM':>12}")
for fn, (flops, b1) in known.items():
    c, k = tot(fn, "flops"), flops * reps
    line = f"{fn:<9} {c:>14.0f} {k:>14.0f} {100 * (c / k - 1):>7.3f}%   "
    bl = tot(fn, "bytes_L1")
    line += f"{bl:>12.0f} " + (f"{b1 * reps:>12.0f} {100 * (bl / (b1 * reps) - 1):>7.2f}%" if b1 else f"{'-':>12} {'-':>8}")
    line += f"   {tot(fn, 'bytes_MEM'):>12.0f}"
    print(line)
PY
done

# Memory bytes and cost of a streaming triad larger than the simulated last level.
big=$(python3 - "$machine" <<'PY'
import sys, re
text = open(sys.argv[1]).read()
sizes = [float(m.group(1)) * {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30}[m.group(2)]
         for m in re.finditer(r"size_bytes:\s*([0-9.]+)\s*(KiB|MiB|GiB)", text)]
print(int(8 * max(sizes) / 24))
PY
)
exe=$tmp/ck-${variants[-1]%%:*}
echo
echo "triad, n = $big (3 arrays, 8x the simulated last level), 2 calls: memory bytes and the cost of profiling"
native=() profiled=() together=()
for ((i = 0; i < runs; i++)); do
    t0=$(date +%s%N); "$exe" triad "$big" 2 >/dev/null; t1=$(date +%s%N)
    "$bin" profile --backend callgrind --machine "$machine" -o "$tmp/big.json" -- "$exe" triad "$big" 2 >/dev/null 2>&1
    t2=$(date +%s%N)
    "$bin" profile --backend callgrind --machine "$machine" --passes-at-once 0 -o "$tmp/big0.json" -- \
        "$exe" triad "$big" 2 >/dev/null 2>&1
    t3=$(date +%s%N)
    native+=($(((t1 - t0) / 1000000))) profiled+=($(((t2 - t1) / 1000000))) together+=($(((t3 - t2) / 1000000)))
done
python3 - "$tmp/big.json" "$big" "${native[*]}" "${profiled[*]}" "${together[*]}" "$tmp/big0.json" <<'PY'
import json, sys, statistics as st
d = json.load(open(sys.argv[1])); n = int(sys.argv[2])
native = [int(x) for x in sys.argv[3].split()]; prof = [int(x) for x in sys.argv[4].split()]
m = {x["name"]: x["metrics"] for x in d["functions"]}["triad"]
mem = sum(m["bytes_MEM"]["per_rank"][0]); known = 2 * 32 * n
print(f"bytes_MEM {mem:.0f}, compulsory + write-allocate + write-back {known}: {100 * (mem / known - 1):+.2f} %")
ratios = sorted(p / q for p, q in zip(prof, native))
print(f"native run ms {min(native)} / {st.median(native)} / {max(native)}; profile ms {min(prof)} / {st.median(prof)} / {max(prof)}")
print(f"cost (profile / native, each run in turn) min / median / max: {ratios[0]:.1f} / {st.median(ratios):.1f} / {ratios[-1]:.1f}x")
print("passes:", d["settings"].get("pass_seconds", "?"))
both = [int(x) for x in sys.argv[5].split()]
r0 = sorted(p / q for p, q in zip(both, native))
print(f"with --passes-at-once 0: profile ms {min(both)} / {st.median(both)} / {max(both)}; cost {r0[0]:.1f} / {st.median(r0):.1f} / {r0[-1]:.1f}x")
d0 = json.load(open(sys.argv[6]))
print("passes at once:", d0["settings"].get("pass_seconds", "?"))
PY
