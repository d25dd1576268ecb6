#!/usr/bin/env bash
# Whether the suite's verdicts hold from one minute to the next: `runs` (3) `roofcast run --fresh` back to back
# (each measures the machine again), then per run the verdicts at the bound / below it / undetermined, the
# mixed model's kernels inside their measured interval or at most 10 % beyond it, and across the runs every
# kernel whose verdict went between "at its bound" and "below it" (a change to or from undetermined is not
# such a flip). Prints figures; not a test.
#   bash bench/verdict-flips.sh [roofcast] [runs] [extra run options, e.g. --full]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/host.sh
bin=${1:-build/release/roofcast}
runs=${2:-3}
shift 2 2>/dev/null || shift $#
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
host_line
echo "roofcast $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $runs runs of 'run --fresh $*'"
for ((i = 1; i <= runs; i++)); do
    t0=$(date +%s)
    "$bin" run --fresh "$@" -o "$tmp/r$i" >"$tmp/r$i.log" 2>&1 || { echo "run $i failed:"; tail -3 "$tmp/r$i.log"; exit 1; }
    echo "run $i: $(($(date +%s) - t0)) s, finished $(date -u +%H:%MZ)"
done
python3 - "$tmp" "$runs" <<'PY'
import json, sys
tmp, runs = sys.argv[1], int(sys.argv[2])
states = {}  # kernel -> [state per run]
print(f"{'run':>3} {'at bound':>9} {'below':>6} {'undetermined':>13} {'undet. %':>9} {'mixed in/<=10% beyond':>22} {'memory roof GB/s':>17}")
for i in range(1, runs + 1):
    d = json.load(open(f"{tmp}/r{i}/results.json"))
    count = {"at-bound": 0, "below": 0, "undetermined": 0}
    for k in d["kernels"]:
        v = k.get("verdict")
        if not v:
            continue
        count[v["state"]] += 1
        states.setdefault(k["name"], [None] * runs)[i - 1] = v["state"]
    n = sum(count.values())
    acc = next((a for a in d.get("accuracy", []) if a["model"] == "mixed"), None)
    tol = f"{acc['within_tolerance']}/{acc['n_interval']} ({100 * acc['within_tolerance'] / acc['n_interval']:.0f} %)" if acc and acc["n_interval"] else "-"
    mem = next((l for l in d["machine"].get("levels", []) if l.get("name") == "MEM"), {})
    roof = mem.get("bandwidth_gbs", mem.get("roof_gbs", "?"))
    roof = f"{roof:.1f}" if isinstance(roof, (int, float)) else str(roof)
    print(f"{i:>3} {count['at-bound']:>9} {count['below']:>6} {count['undetermined']:>13} {100 * count['undetermined'] / max(n, 1):>8.0f}% {tol:>22} {roof:>17}")
flips = sorted(k for k, s in states.items() if "at-bound" in s and "below" in s)
changed = sorted(k for k, s in states.items() if len(set(s)) > 1)
print(f"kernels with a verdict: {len(states)}; changed state across the runs: {len(changed)}; "
      f"flipped between at its bound and below it: {len(flips)} (goal 0)")
for k in flips:
    print(f"  {k}: {' -> '.join(str(s) for s in states[k])}")
PY
