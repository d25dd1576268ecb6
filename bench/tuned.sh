#!/usr/bin/env bash
# The tuned application kernels beside their untuned forms (prints figures; not a test).
#   bash bench/tuned.sh [roofcast binary] [machine file] [runs] [threads]
# Runs `roofcast bench --suite all` `runs` times (default 2): every run interleaves the calibration loops
# with the kernels, so each kernel is predicted with effective figures measured in the same minutes (on
# a shared host the load changes from minute to minute). Without a machine file `roofcast machine
# --quick` measures one first. Prints per kernel the fraction of its mixed and of its hierarchical
# prediction that its best epoch reached in each run (predicted time / best measured time), the best
# of the runs, and the moved memory bandwidth of that epoch; the STREAM kernels and norm2 (one read
# stream) are printed as references for what copy-like and read-only memory traffic reach. Goal for the
# tuned forms: >= 85 % of the mixed prediction. The first line names the CPU model and the load average.
set -euo pipefail
source "$(dirname "$0")/lib/host.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$here/build/release/roofcast}")
machine=${2:-}
runs=${3:-2}
threads=${4:-}
out=${ROOFCAST_TUNED_DIR:-$(mktemp -d)}
mkdir -p "$out"
command -v python3 >/dev/null || { echo "tuned.sh needs python3 to read the results JSON" >&2; exit 1; }
host_line
[[ -n "$machine" ]] || machine=$(quick_machine "$bin" "$out")
args=(bench --suite all --machine "$machine")
[[ -n "$threads" ]] && args+=(--threads "$threads")
for r in $(seq 1 "$runs"); do
    "$bin" "${args[@]}" --json "$out/all-$r.json" >"$out/all-$r.txt" 2>/dev/null
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg); results in $out"
python3 - "$out" "$runs" <<'PY'
import json, sys
out, runs = sys.argv[1], int(sys.argv[2])
results = [json.load(open(f"{out}/all-{r}.json")) for r in range(1, runs + 1)]
names = ["stream-copy", "stream-triad", "norm2", "jacobi-3d-7pt", "jacobi-3d-7pt-tuned", "himeno", "himeno-tuned",
         "spmv-csr", "spmv-csr-tuned", "matmul-blocked", "matmul-blocked-tuned"]
def row(r, name):
    k = next(k for k in r["kernels"] if k["name"] == name)
    p = {p["model"]: p for p in k["predictions"]}
    t = k["measured"]["seconds"]["min"] / k["iterations"]
    mem = k["bytes_per_iteration"].get("MEM", 0.0)
    return (100 * p["mixed"]["seconds_per_iteration"] / t, 100 * p["hierarchical"]["seconds_per_iteration"] / t,
            k["flops_per_iteration"] / t / 1e9, mem / t / 1e9, p["mixed"]["bottleneck"])
for r in results:
    mem = next(l for l in r["machine"]["levels"] if l["name"] == "MEM")
    print(f"  run: B_MEM effective {mem.get('effective_bandwidth_gbs', float('nan')):.1f} GB/s, P_eff "
          f"{r['machine']['compute'].get('effective_gflops', {}).get('double', float('nan')):.1f} GFLOP/s, "
          f"{r['kernels'][0]['threads']} threads")
print(f"  {'kernel':<22} " + " ".join(f"{'mixed r' + str(i + 1):>9}" for i in range(runs)) +
      f" {'best':>6} {'of hier.':>8} {'GFLOP/s':>8} {'MEM GB/s':>8} {'bottleneck':>10}")
for name in [n for n in names if all(any(k["name"] == n for k in r["kernels"]) for r in results)]:
    rows = [row(r, name) for r in results]
    b = max(rows, key=lambda x: x[0])
    print(f"  {name:<22} " + " ".join(f"{x[0]:8.1f}%" for x in rows) +
          f" {b[0]:5.1f}% {b[1]:7.1f}% {b[2]:8.2f} {b[3]:8.2f} {b[4]:>10}")
print("  (fractions: predicted time / best epoch's time; goal: every *-tuned kernel >= 85 % of its mixed prediction)")
PY
