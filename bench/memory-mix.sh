#!/usr/bin/env bash
# Memory streams beside cache-resident reuse (prints figures; not a test). Times the suite's memory copy,
# its read-only L2 and L3 loops, its overlap loops (a, b from memory, K window rows from L3) with the same
# loops' windows moved into L1 and L2, and the suite's two 7-point Jacobi kernels, each right after a copy
# (roofcast-memory-mix). Every overlap loop moves the copy's 24 B per iteration from memory, as the untuned
# Jacobi does, so its time over the copy's says what the reuse costs beside the memory stream (the tuned
# Jacobi's stores are non-temporal: 16 B, so its ratio reads 2/3 lower for the same overlap). The samples
# are split at the median of the copy bandwidth measured just before them: on a host whose memory moves
# between two states (as a shared host's memory can, 2x apart) the halves are the two states; on a
# steady host they agree. Per loop and half: the median time over the copy's, and for the L2 and L3 windows
# the exponent p at which the memory term and the window's cache term, (24 + 8K) B at the read loop's
# bandwidth, give the measured time, (t_MEM^p + t_C^p)^(1/p) (p = 1: the cache term adds to memory's;
# large: it hides; docs/models.md, "Overlap exponent").
#   bash bench/memory-mix.sh [build dir (default build/release)] [machine file] [rounds (default 20)] [threads]
# Without a machine file `roofcast machine --quick` measures one (the catalogue's sizes come from it).
set -euo pipefail
source "$(dirname "$0")/lib/host.sh"
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build/release}
machine=${2:-}
rounds=${3:-20}
threads=${4:-$(nproc)}
bin=$build/roofcast-memory-mix
[[ -x $bin ]] || { echo "no $bin: build it first (cmake --build --preset release)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "memory-mix.sh needs python3 to summarise" >&2; exit 1; }
out=${ROOFCAST_MIX_DIR:-$(mktemp -d)}
mkdir -p "$out"
host_line
[[ -n "$machine" ]] || machine=$(quick_machine "$build/roofcast" "$out")
"$bin" "$machine" "$threads" "$rounds" >"$out/samples.txt"
echo "samples in $out/samples.txt; load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out/samples.txt" <<'PY'
import math, re, statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if not l.startswith("#")]
samples = [(name, float(t), float(c)) for _, name, t, c in rows]
order = list(dict.fromkeys(n for n, _, _ in samples))
gbs = sorted(24.0 / c / 1e9 for _, _, c in samples)
lo, hi = gbs[len(gbs) // 10], gbs[(9 * len(gbs)) // 10]
# Two states when the copy's 10th and 90th percentiles lie 1.3x apart or more: split at their geometric mean.
cut = math.sqrt(lo * hi) if hi >= 1.3 * lo else None
groups = ([("memory steady", lambda g: True)] if cut is None else
          [(f"copy below {cut:.1f} GB/s", lambda g: g < cut), (f"copy at or above {cut:.1f} GB/s", lambda g: g >= cut)])
def norm(t_mem, t_c, p):  # (t_mem^p + t_c^p)^(1/p), scaled by the larger term so that large p cannot underflow
    top = max(t_mem, t_c)
    return top * ((t_mem / top) ** p + (t_c / top) ** p) ** (1 / p)
def exponent(t_mem, t_c, t):  # None: faster than the near-max (p = 64) or slower than the sum
    f = lambda p: norm(t_mem, t_c, p)
    if not (f(64.0) < t <= f(1.0)):
        return None
    lo, hi = 0.0, math.log(64.0)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if f(math.exp(mid)) >= t else (lo, mid)
    return math.exp(0.5 * (lo + hi))
print(f"copy before each loop: 10th-90th percentile {lo:.1f}-{hi:.1f} GB/s")
for label, keep in groups:
    half = [s for s in samples if keep(24.0 / s[2] / 1e9)]
    copies = [24.0 / c / 1e9 for _, _, c in half]
    print(f"\n{label}: copy {min(copies):.1f}-{max(copies):.1f} GB/s (median {statistics.median(copies):.1f}), "
          f"{len(half)} samples (median of each loop's)")
    names = [n for n in order if any(m == n for m, _, _ in half)]
    med = {n: statistics.median(t for m, t, _ in half if m == n) for n in names}
    ratio = {n: statistics.median(t / c for m, t, c in half if m == n) for n in names}
    t_mem = med.get("calib-MEM-2F")
    bw = {"L2": med.get("calib-L2-3F"), "L3": med.get("calib-L3-3F")}  # seconds per 24 B
    print(f"  {'loop':<24} {'ns/iter':>8} {'x copy':>7} {'t_C ns':>7} {'as if p':>8}")
    for n in names:
        m = re.match(r"calib-overlap-(L\d)-K(\d+)$", n)
        cache, p_text = "", ""
        if m and bw.get(m.group(1)) and t_mem:
            t_c = (24 + 8 * int(m.group(2))) / 24.0 * bw[m.group(1)]
            p = exponent(t_mem, t_c, med[n])
            cache = f"{t_c * 1e9:7.3f}"
            p_text = f"{p:8.2f}" if p else ("   (max)" if med[n] <= norm(t_mem, t_c, 64.0) else "  (>sum)")
        print(f"  {n:<24} {med[n] * 1e9:8.3f} {ratio[n]:7.2f} {cache:>7} {p_text:>8}")
PY
