#!/usr/bin/env bash
# Accuracy of `roofcast threads` on this machine (prints figures; not a test).
#   bash bench/threads-accuracy.sh [roofcast binary] [machine file] [holdout k]
# For norm2 and triad, with OpenMP and with std::thread, measures T(n, s) over the automatic grid (sizes
# across every cache level and memory, s = 1 .. 4x the hardware threads), then fits every model on all
# but every k-th point (checkerboard over size and thread indices, default k = 3) and prints, per model,
# the mean and max |relative error| on the held-out points (and the max on the held-out points that are not
# NOISY, whose own repeat spread is within the series' noise floor; and how many predictions lie inside their
# point's own min-max, with the largest distance of one outside it), and the best-s check: for every size, is the
# measured time at the predicted best s within 5 % of the fastest measured time? (and how many of the misses are
# smaller than the two points' own interquartile spread: ties the measurement cannot separate; the count of
# sizes within 5 % is not changed by them)
set -euo pipefail
source "$(dirname "$0")/lib/host.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$here/build/release/roofcast}")
machine=${2:-}
holdout=${3:-3}
out=${ROOFCAST_THREADS_DIR:-$(mktemp -d)}
mkdir -p "$out"
command -v python3 >/dev/null || { echo "threads-accuracy.sh needs python3 to read the JSON" >&2; exit 1; }
host_line
echo "hold-out: every ${holdout}rd/th point of a checkerboard over (size, threads); files in $out"
margs=()
[[ -n "$machine" ]] && margs=(--machine "$machine")
for kernel in norm2 triad; do
    start=$(date +%s)
    "$bin" threads --kernel "$kernel" --api both "${margs[@]}" --json >"$out/$kernel.json" 2>"$out/$kernel.log"
    "$bin" threads --from "$out/$kernel.json" --holdout "$holdout" --json >"$out/$kernel-holdout.json"
    echo "== $kernel: measured in $(( $(date +%s) - start )) s"
    python3 - "$out/$kernel-holdout.json" <<'PY'
import json, statistics, sys

def iqr(xs):
    """(Q3 - Q1) / median, quartiles interpolated as core::quantile: the statistic the NOISY flag uses."""
    if len(xs) < 2:
        return 0.0
    q1, med, q3 = statistics.quantiles(xs, n=4, method="inclusive")
    return (q3 - q1) / med if med > 0 else 0.0

d = json.load(open(sys.argv[1]))
c = d["context"]
print(f"   machine: {c['machine_source']}; B(s): {c['bandwidth_source']}")
for s in d["series"]:
    n_pts = len(s["measurements"])
    noisy = sum(1 for m in s["measurements"] if m["noisy"])
    print(f"   {s['api']:8} {n_pts} points ({noisy} NOISY: interquartile spread above {100*s['noise_floor']:.1f} %, "
          f"the series' outlier fence), fitted on {s['fitted']}, "
          f"scored on {s['held_out']} held out")
    for m in s["models"]:
        steady = m.get("max_error_steady")
        steady_text = f"{100*steady:6.1f} %" if steady is not None else "   n/a"
        print(f"     {m['name']:12} mean |err| {100*m['mean_error']:6.1f} %   max |err| {100*m['max_error']:6.1f} %"
              f"   (on steady points {steady_text}; inside the point's own min-max at {m['within_range']} of "
              f"{m['evaluated']}, at most {100*m['max_beyond_range']:.1f} % outside it)")
    checked = [b for b in s["best"] if b["within_5pct"] is not None]
    good = sum(1 for b in checked if b["within_5pct"])
    worst = max((b["measured_at_best_s"] / b["measured_best"] - 1 for b in checked), default=0.0)
    print(f"     best s: within 5 % of the measured best time at {good} of {len(checked)} sizes "
          f"(worst: {100*worst:.1f} % slower)")
    # A miss whose gap is smaller than the two points' own interquartile spread is a tie the measurement
    # cannot separate; the count above stays as it is, this line only says how many misses are such ties.
    spread = {(m["n"], m["s"]): iqr(m["samples"]) for m in s["measurements"]}
    misses = [b for b in checked if not b["within_5pct"]]
    ties = sum(1 for b in misses
               if b["measured_at_best_s"] / b["measured_best"] - 1
               < max(spread.get((b["n"], b["best_s"]), 0), spread.get((b["n"], b["measured_best_s"]), 0)))
    if misses:
        print(f"             of the {len(misses)} miss(es), {ties} smaller than the two points' own "
              f"interquartile spread (the measured best s is not separable from the predicted one)")
PY
done
