#!/usr/bin/env bash
# The tuned application kernels beside their untuned forms (prints figures; not a test).
#   bash bench/tuned.sh [roofcast binary] [calibrated machine file] [runs] [threads]
# Runs `roofcast bench --suite apps` `runs` times (default 2) with a machine file that `roofcast bench
# --calibrate` has calibrated (without one, `roofcast machine --quick` and `bench --calibrate` make one)
# and prints, per kernel, the best GFLOP/s over all epochs of all runs, the mixed and hierarchical
# predictions, and the fraction of each the best run reached (goal for the tuned forms: >= 85 % of the
# mixed prediction). The first line names the CPU model; timings on a shared host are noisy (the load
# average before and after is printed).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$here/build/release/roofcast}")
machine=${2:-}
runs=${3:-2}
threads=${4:-}
out=${ROOFCAST_TUNED_DIR:-$(mktemp -d)}
mkdir -p "$out"
command -v python3 >/dev/null || { echo "tuned.sh needs python3 to read the results JSON" >&2; exit 1; }
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
if [[ -z "$machine" ]]; then
    echo "measuring and calibrating the machine ..." >&2
    "$bin" machine --quick -o "$out/machine.yaml" >/dev/null
    "$bin" bench --calibrate --machine "$out/machine.yaml" -o "$out/machine.yaml" >/dev/null
    machine="$out/machine.yaml"
fi
args=(bench --suite apps --machine "$machine")
[[ -n "$threads" ]] && args+=(--threads "$threads")
for r in $(seq 1 "$runs"); do
    "$bin" "${args[@]}" --json "$out/apps-$r.json" >"$out/apps-$r.txt" 2>/dev/null
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg); results in $out"
python3 - "$out" "$runs" <<'PY'
import json, sys
out, runs = sys.argv[1], int(sys.argv[2])
best = {}
for r in range(1, runs + 1):
    for k in json.load(open(f"{out}/apps-{r}.json"))["kernels"]:
        pred = {p["model"]: p for p in k["predictions"]}
        g = k["measured"]["gflops"]
        row = best.setdefault(k["name"], {"best": 0.0, "medians": [], "pred": pred, "threads": k["threads"]})
        row["medians"].append(g["median"])
        if g["max"] > row["best"]:
            row["best"], row["pred"] = g["max"], pred
print(f"best of {runs} runs x 9 epochs, {next(iter(best.values()))['threads']} threads; GFLOP/s")
print(f"  {'kernel':<22} {'best':>7} {'medians':>15} {'mixed':>7} {'of mixed':>9} {'hier.':>7} {'of hier.':>9} {'bottleneck':>10}")
for name, row in best.items():
    m, h = row["pred"]["mixed"], row["pred"]["hierarchical"]
    med = "/".join(f"{x:.2f}" for x in row["medians"])
    print(f"  {name:<22} {row['best']:7.2f} {med:>15} {m['gflops']:7.2f} {100 * row['best'] / m['gflops']:8.1f}% "
          f"{h['gflops']:7.2f} {100 * row['best'] / h['gflops']:8.1f}% {m['bottleneck']:>10}")
print("  (goal: every *-tuned kernel >= 85 % of its mixed prediction)")
PY
