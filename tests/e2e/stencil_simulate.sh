#!/usr/bin/env bash
# End to end: roofcast stencil --simulate evaluates the deep-halo model for many ranks without running
# anything: the best k, its gain over k = 1 and a strong-scaling curve; with a large message start-up time
# a deeper halo must win, and the JSON agrees with the text.
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
machine="$src/data/machines/example-caches.yaml"
[[ -f "$machine" ]] || { echo "skipped: $machine is missing"; exit 77; }
args=(stencil --simulate --kernel jacobi7 --grid 128x128x128 --ranks 512 --max-ranks 4096 --decomp 3d
      --machine "$machine" --threads 8 --steps 100)
"$roofcast" "${args[@]}" --alpha 50e-6 --beta 10 >"$tmp/sim.txt" || { echo "simulate failed"; fail=1; }
grep -q "predicted best k = " "$tmp/sim.txt" || { echo "no best k line"; cat "$tmp/sim.txt"; fail=1; }
grep -q "strong scaling" "$tmp/sim.txt" || { echo "no scaling curve"; fail=1; }
"$roofcast" "${args[@]}" --alpha 50e-6 --beta 10 --json >"$tmp/sim.json" || fail=1
"$roofcast" "${args[@]}" --alpha 0 --beta 1000 --json >"$tmp/fast.json" || fail=1
python3 - "$tmp/sim.json" "$tmp/fast.json" <<'PY' || fail=1
import json, sys
slow, fast = (json.load(open(p)) for p in sys.argv[1:3])
assert slow["ranks"] == 512 and slow["process_grid"] == [8, 8, 8], slow["process_grid"]
ks = [r["k"] for r in slow["sweep"]]
assert ks == list(range(1, len(ks) + 1)) and len(ks) >= 2, ks
times = {r["k"]: r["predicted_seconds_per_step"] for r in slow["sweep"]}
best = min(times, key=times.get)
assert slow["best_predicted_k"] == best, (slow["best_predicted_k"], times)
assert abs(slow["gain_over_k1"] - (times[1] - times[best]) / times[1]) < 1e-12
# 50 us per message dominates 16^3-point blocks: a deeper halo pays; with free messages it cannot.
assert best > 1, times
assert fast["best_predicted_k"] == 1, fast["sweep"]
ranks = [p["ranks"] for p in slow["strong_scaling"]]
assert ranks[0] == 1 and ranks == sorted(ranks) and ranks[-1] == 4096, ranks
print("ok: best k", best, "gain", slow["gain_over_k1"])
PY
exit $fail
