#!/usr/bin/env bash
# End to end: `roofcast threads --command` on a tiny program whose printed time is a known function of
# n and s (and which fails at one point): the fit recovers it, the failure is left out with a note, the
# best s per size is the predicted one, the chart and the report are written; bad input is one error line.
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
for tool in sh awk python3; do
    command -v "$tool" >/dev/null || { echo "skipped: $tool is not installed"; exit 77; }
done

# T(n, s) = 2e-4 + 1e-4 s + 1e-8 n w(s), printed, with w(s) = 1/s up to the machine's 4 hardware threads and
# ceil(s/4)/s beyond (the work runs in waves); the program fails at n = 3000, s = 3 and checks OMP_NUM_THREADS.
cat >"$tmp/prog.sh" <<'PROG'
n=$1; s=$2
[ "$OMP_NUM_THREADS" = "$s" ] || exit 9
[ "$n" -eq 3000 ] && [ "$s" -eq 3 ] && exit 5
awk -v n="$n" -v s="$s" 'BEGIN { w = s <= 4 ? 1 / s : int((s + 3) / 4) / s;
                                printf "elapsed %.12e s\n", 2e-4 + 1e-4 * s + 1e-8 * n * w }'
PROG
cat >"$tmp/machine.yaml" <<'YAML'
format_version: 1
name: tiny
compute: {peak_gflops: {double: 10}}
topology:
  cores: 2
  hw_threads: 4
  caches:
    - {name: L1, size_bytes: 16KiB}
    - {name: L2, size_bytes: 256KiB}
    - {name: L3, size_bytes: 1MiB}
levels:
  - {name: L1, bandwidth_gbs: 100}
  - {name: MEM, bandwidth_gbs: 10}
YAML
# One size above the last cache: the memory regime (2 parameters) is merged into L3, visibly.
sizes=500,1000,1500,3000,6000,12000,20000,40000,80000,200000
args=(--command "sh $tmp/prog.sh {n} {s}" --time-regex 'elapsed ([0-9.e+-]+)' --sizes $sizes --threads 1,2,3,4,5,6
      --machine "$tmp/machine.yaml" --repetitions 2)
if ! "$roofcast" threads "${args[@]}" --predict n=1e5,s=4 --json -o "$tmp/chart.svg" >"$tmp/out.json" 2>"$tmp/err"; then
    echo "threads failed:"; cat "$tmp/err"; exit 1
fi
python3 - "$tmp/out.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
s = d["series"][0]
ok = True
def check(cond, what):
    global ok
    if not cond:
        print("FAILED:", what); ok = False
check(d["format"] == "roofcast-threads", "format")
check([m["name"] for m in s["models"]] == ["roofcast", "doda", "doda-memory", "pmnf"], "models")
p = s["predictions"][0]
truth = 2e-4 + 1e-4 * 4 + 1e-8 * 1e5 / 4
check(p["x"] == {"n": 1e5, "s": 4}, "prediction x")
check(abs(p["value"] - truth) < 0.01 * truth, f"prediction {p['value']} vs {truth}")
check(p["lo"] <= p["value"] <= p["hi"], "interval")
check(any("left out n=3000 s=3: exit status 5" in n for n in s["notes"]), "failure note")
check(len(s["measurements"]) == 10 * 6 - 1, "measurements")
check(any("regime MEM" in n and "merged into regime L3" in n for n in s["models"][0]["notes"]), "merge note")
check(all(m["count"] == 2 for m in s["measurements"]), "repetitions")
best = {b["n"]: b["best_s"] for b in s["best"]}
check(best[1000] == 1, f"best s at n=1000: {best[1000]}")   # 1e-4 s + 1e-5/s: least at s = 1
check(best[80000] == 3, f"best s at n=80000: {best[80000]}")  # 1e-4 s + 8e-4/s: s = 3 of 1..6
check(all(r["points"] >= 0 for r in s["models"][0]["regimes"]), "regimes")
sys.exit(0 if ok else 1)
PY
grep -q "<svg" "$tmp/chart.svg" || { echo "no chart"; fail=1; }
"$roofcast" threads --from "$tmp/out.json" --holdout 3 >"$tmp/table.txt" 2>/dev/null || { echo "--from failed"; fail=1; }
grep -q "held-out points" "$tmp/table.txt" || { echo "no hold-out in the table"; fail=1; }
"$roofcast" report "$tmp/out.json" -o "$tmp/rep" >/dev/null || { echo "report failed"; fail=1; }
grep -q "Threads: T(n, s)" "$tmp/rep/index.html" || { echo "no threads section in the report"; fail=1; }
# The file is read whole: it passes validate --strict, a second report replaces the first (its chart is
# threads-command.svg), a misspelt key is named, and an api that is not one of the three is refused.
"$roofcast" validate --strict "$tmp/out.json" >/dev/null || { echo "the threads file fails validate --strict"; fail=1; }
"$roofcast" report "$tmp/out.json" -o "$tmp/rep" >/dev/null || { echo "a second report into the directory failed"; fail=1; }
[[ -f "$tmp/rep/threads-command.svg" ]] || { echo "no threads-command.svg in the report"; fail=1; }
python3 - "$tmp/out.json" "$tmp/typo.json" "$tmp/api.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["series"][0]["measurements"][2]["sample"] = [1.0]
json.dump(d, open(sys.argv[2], "w"))
del d["series"][0]["measurements"][2]["sample"]
d["series"][0]["api"] = "../../x"
json.dump(d, open(sys.argv[3], "w"))
PY
err=$("$roofcast" threads --from "$tmp/typo.json" 2>&1 >/dev/null) || { echo "--from refused a misspelt key: $err"; fail=1; }
grep -q "unknown key 'series\[0\].measurements\[2\].sample'" <<<"$err" || { echo "no warning: $err"; fail=1; }
err=$("$roofcast" report "$tmp/api.json" -o "$tmp/rep-api" 2>&1) && { echo "a bad api was accepted"; fail=1; }
grep -q "series\[0\].api.*one of omp, pthread, command" <<<"$err" || { echo "api error: $err"; fail=1; }
[[ -e "$tmp/rep-api" ]] && { echo "a refused report left a directory"; fail=1; }

# A run that hangs is killed at --timeout and its point left out; the sweep goes on.
cat >"$tmp/hang.sh" <<'PROG'
[ "$1" -eq 6000 ] && [ "$2" -eq 2 ] && exec sleep 60
exec sh "$(dirname "$0")/prog.sh" "$1" "$2"
PROG
if ! "$roofcast" threads --command "sh $tmp/hang.sh {n} {s}" --time-regex 'elapsed ([0-9.e+-]+)' --sizes $sizes \
    --threads 1,2,3,4,5,6 --machine "$tmp/machine.yaml" --repetitions 1 --timeout 0.5 --json >"$tmp/hang.json" 2>"$tmp/err"; then
    echo "threads with a hanging point failed:"; cat "$tmp/err"; fail=1
elif ! grep -q "left out n=6000 s=2: killed after 0.5 s" "$tmp/hang.json"; then
    echo "no note for the killed run"; fail=1
fi
# An ordinary grid on a host whose cores are its hardware threads (2 and 2): eight sizes from 1e3 to 8e7 and
# thread counts 1, 2, 4, 6, 8, every count beyond 2 running in waves of two. Each model is fitted; what the
# points do not determine (T_seq's intercept apart from θ) is merged, with a note naming it.
cat >"$tmp/prog2.sh" <<'PROG'
awk -v n="$1" -v s="$2" 'BEGIN { w = int((s + 1) / 2) / s; printf "elapsed %.12e s\n", 3e-5 * s + (2e-5 + 1e-9 * n) * w }'
PROG
sed -e 's/hw_threads: 4/hw_threads: 2/' "$tmp/machine.yaml" >"$tmp/two.yaml"
if ! "$roofcast" threads --command "sh $tmp/prog2.sh {n} {s}" --time-regex 'elapsed ([0-9.e+-]+)' \
    --sizes 1000,5000,25000,125000,630000,3200000,16000000,80000000 --threads 1,2,4,6,8 --machine "$tmp/two.yaml" \
    --repetitions 1 --json >"$tmp/grid.json" 2>"$tmp/err"; then
    echo "threads refused the 8 x 5 grid:"; cat "$tmp/err"; fail=1
else
    python3 - "$tmp/grid.json" <<'PY' || fail=1
import json, sys
s = json.load(open(sys.argv[1]))["series"][0]
names = [m["name"] for m in s["models"]]
notes = s["models"][0]["notes"]
ok = names == ["roofcast", "doda", "doda-memory", "pmnf"]
ok = ok and any("T_seq's intercept merged into θ(s)" in n and "(1, 2, 4, 6, 8)" in n for n in notes)
if not ok:
    print("FAILED: the 8 x 5 grid:", names, notes)
sys.exit(0 if ok else 1)
PY
fi
# A grid of one thread count determines no model: still refused, in one line.
expect_error threads "expected at least 2 distinct thread counts" --command "sh $tmp/prog2.sh {n} {s}" \
    --time-regex 'elapsed ([0-9.e+-]+)' --sizes 1000,5000,25000 --threads 2 --machine "$tmp/two.yaml" --repetitions 1
expect_error threads "expected omp, pthread or both, got 'bogus'" --api bogus --sizes 10 --threads 1 --no-machine
expect_error threads "'--timeout'" --command "sh $tmp/prog.sh {n} {s}" --timeout -1 --sizes 10 --threads 1 --no-machine
expect_error threads "'--command'" --command "sh $tmp/prog.sh {s}" --sizes 10,20 --threads 1,2,3 --no-machine
expect_error threads "'--time-regex'" --command "sh $tmp/prog.sh {n} {s}" --time-regex 'took ([0-9]+)' --sizes 10 --threads 1 --machine "$tmp/machine.yaml"
expect_error threads "'--sizes'" --command "sh $tmp/prog.sh {n} {s}" --sizes 0,100 --threads 1,2,3 --no-machine
expect_error threads "'--predict'" --command "sh $tmp/prog.sh {n} {s}" --predict n=-1,s=2 --no-machine
expect_error threads "'--kernel'" --kernel daxpy --sizes 100 --threads 1 --no-machine
expect_error threads "'--repetitions': expected 1 to 1000" --command "true {n}" --repetitions 1000000000 --sizes 1000 --threads 1,2,3 --no-machine
expect_error threads "'--repetitions': expected 1 to 1000" --command "true {n}" --repetitions 0 --sizes 1000 --threads 1,2,3 --no-machine
expect_error threads "'--epochs': expected 1 to 1000" --epochs 0 --sizes 1000 --threads 1,2,3 --no-machine
exit $fail
