#!/usr/bin/env bash
# Compares roofcast's machine measurements with likwid-bench, run beside them in the same session
# at the same thread counts and working sets, and prints roofcast/likwid ratios:
#   - peak DP FLOP/s with the widest FMA (and roofcast's ratio to its theoretical peak), `roofcast ceiling`
#     and likwid's peakflops test alternating ROUNDS times,
#   - load, copy and triad bandwidth at L1, L2, L3 and MEM for 1 thread and all cores,
#   - MEM triad against likwid's STREAM triad (both without non-temporal stores).
# Like with like: likwid-bench 5.2 reports "Bytes per element" = load + store bytes (copy 16,
# stream 24, load 8), i.e. without write-allocate traffic; roofcast's gbs are requested bytes too,
# so the figures compare directly (roofcast's moved bytes are gbs x moved_per_requested).
# roofcast "triad" (a = b + s*c, 3 streams) is likwid's "stream" test; likwid's "triad" has 4 streams.
# roofcast "load" is a sum reduction (one add per loaded vector), which is likwid's "sum" test; likwid's
# "load" only loads into registers. Both are printed: the load row against likwid "load", then a "sum"
# row with the same roofcast figure against likwid "sum" (like with like).
# likwid's "kB" is 1000 bytes; working sets are passed in bytes ("B") to match exactly.
# Bandwidth points are interleaved: for every level, kernel and thread count of roofcast's machine file,
# `likwid-bench` and `roofcast bandwidth` (the same measurement as `roofcast machine` takes for a level)
# alternate ROUNDS times (default 3) at the same working set, so a change of host load hits both tools
# alike; the figures are the medians over the rounds (and the ratio of the two best rounds).
# Usage: bench/compare-peers.sh [path/to/roofcast] [extra roofcast machine options...]
# This prints figures; it is not a test and asserts nothing about speed.
set -euo pipefail
cd "$(dirname "$0")/.."
roofcast=${1:-build/release/roofcast}
shift || true
if ! command -v likwid-bench >/dev/null 2>&1; then
    echo "installing Debian's likwid" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq likwid >/dev/null
fi
[[ -x "$roofcast" ]] || { echo "roofcast binary '$roofcast' not found; build it first (cmake --build --preset release)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== roofcast machine (load, copy, triad) $(date -u +%FT%TZ), load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$roofcast" machine --kernels load,copy,triad -o "$tmp/m.yaml" "$@" >"$tmp/table.txt"
grep -E "^(Topology|Clock)|^  (cache|L[0-9]) |L[0-9]: one-thread" "$tmp/table.txt" || true

python3 - "$tmp/m.yaml" "$roofcast" "${ROUNDS:-3}" <<'PY'
import json, re, statistics, subprocess, sys, yaml

m = yaml.safe_load(open(sys.argv[1]))
roofcast, rounds = sys.argv[2], int(sys.argv[3])
topo = m["topology"]
cores = topo["cores"]
suffix = "_avx512" if "avx512" in topo["isa"] else "_avx" if "avx2" in topo["isa"] else "_sse"
likwid_test = {"load": "load" + suffix, "copy": "copy" + suffix, "triad": "stream" + suffix}
likwid_sum = "sum" + suffix

def likwid(test, size_bytes, threads, key):
    out = subprocess.run(["likwid-bench", "-t", test, "-w", f"S0:{size_bytes}B:{threads}"],
                         capture_output=True, text=True).stdout
    hit = re.search(rf"^{key}:\s+([0-9.eE+]+)", out, re.M)
    return float(hit.group(1)) / 1000 if hit else None  # MByte/s -> GB/s, MFlops/s -> GFLOP/s

def ratio_line(label, summary, theirs, best_only=False, extra=""):
    # roofcast median (or best epoch for peaks) and its ratio to likwid; the best-epoch ratio too,
    # since on a shared host other processes only ever lower a figure.
    ours = summary["max"] if best_only else summary["median"]
    r = f"{ours / theirs:6.3f}" if theirs else "   n/a"
    rb = f"{summary['max'] / theirs:6.3f}" if theirs else "   n/a"
    flag = "" if not theirs or ours / theirs >= 0.95 else "  < 0.95"
    print(f"{label:<28}{ours:10.1f} ({100 * (summary['spread'] or 0):5.1f}%){theirs or 0:11.1f}{r:>9}{rb:>9}{extra}{flag}")

print(f"\n{'':<28}{'roofcast':>10} ( spread){'likwid':>11}{'ratio':>9}{'best/lw':>9}")
print(f"-- peak DP FLOP/s, widest FMA (GFLOP/s); roofcast best epoch / likwid, medians over {rounds} "
      "interleaved rounds")
for t in sorted({1, cores}):
    ours, theirs, fractions, clocks = [], [], [], []
    for _ in range(rounds):
        lw = likwid("peakflops" + suffix + "_fma", 24576 * t, t, "MFlops/s")
        if lw:
            theirs.append(lw)
        out = subprocess.run([roofcast, "ceiling", "--precision", "double", "--op", "fma", "--threads", str(t),
                              "--json"], capture_output=True, text=True, check=True).stdout
        c = json.loads(out)
        ours.append(c["gflops"]["max"])
        if c["fraction_of_theoretical"] is not None:
            fractions.append(c["fraction_of_theoretical"])
        clocks.append(c["ghz"] or 0)
    summary = {"median": statistics.median(ours), "max": max(ours),
               "spread": (max(ours) - min(ours)) / statistics.median(ours)}
    theo = (f"   {statistics.median(fractions):.3f} of theoretical at {statistics.median(clocks):.2f} GHz "
            f"(best round {max(fractions):.3f})" if fractions else "")
    ratio_line(f"FMA {t} thread(s)", summary, statistics.median(theirs) if theirs else None, extra=theo)

print(f"-- bandwidth (GB/s of requested bytes, no write-allocate on either side); medians over {rounds} "
      "interleaved rounds per point")
def ours_point(kernel, size_bytes, threads):
    out = subprocess.run([roofcast, "bandwidth", kernel, f"{size_bytes}B", "--threads", str(threads), "--json"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)["gbs"]["median"]
for level in m["levels"]:
    for p in (p for p in level["measurements"] if p["kernel"] in likwid_test):
        ws, t = p["working_set_bytes"], p["threads"]
        ours, theirs, sums = [], [], []
        for _ in range(rounds):
            lw = likwid(likwid_test[p["kernel"]], ws, t, "MByte/s")
            if lw:
                theirs.append(lw)
            if p["kernel"] == "load":
                lw = likwid(likwid_sum, ws, t, "MByte/s")
                if lw:
                    sums.append(lw)
            ours.append(ours_point(p["kernel"], ws, t))
        summary = {"median": statistics.median(ours), "max": max(ours),
                   "spread": (max(ours) - min(ours)) / statistics.median(ours)}
        for kernel, ref in ((p["kernel"], theirs), ("sum", sums)):
            if kernel == "sum" and p["kernel"] != "load":
                continue
            lw_med = statistics.median(ref) if ref else None
            best = f"{max(ours) / max(ref):9.3f}" if ref else "      n/a"
            ratio_line(f"{level['name']:<4}{kernel:<6}{t}T {ws / 2**20:8.2f} MiB", summary, lw_med,
                       extra=f"  (best/best{best})")
mem = next((l for l in m["levels"] if l["name"] == "MEM"), None)
if mem and mem.get("bandwidth_kernel") == "triad":
    print(f"-- MEM roof = roofcast's STREAM-style triad with NT stores off: {mem['bandwidth_gbs']:.1f} GB/s "
          f"(the same kernel; compare with likwid {likwid_test['triad']} above)")
PY
echo "== done $(date -u +%FT%TZ), load average: $(cut -d' ' -f1-3 /proc/loadavg) (on a shared host, compare runs taken at quiet times)"
