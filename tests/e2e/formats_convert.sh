#!/usr/bin/env bash
# End to end: other tools' formats in and out through the format registry.
#  - likwid-perfctr marker CSV and CUBE4 profiles: `validate` recognises them, `profile --import-*` writes a
#    roofcast profile that validates, `scale` reads a directory of Score-P experiments (weak and strong);
#  - `convert --format extrap` of the shipped profiles reads back in `scale` to the same models;
#  - `convert --format hatchet` writes Hatchet's literal JSON (a list of frames with metrics and children);
#  - bad input: one error line naming the file, nothing written.
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
command -v python3 >/dev/null || { echo "skipped: python3 is needed to read the JSON written"; exit 77; }
d=$src/tests/measure/data

for f in "$d/likwid/flops-dp.csv" "$d/cube/small.cubex" "$d/cube/experiments"; do
    out=$("$roofcast" validate "$f" 2>&1) || { echo "validate $f: $out"; fail=1; }
done
grep -q "ok (Score-P experiment directory, " <<<"$out" || { echo "experiments: $out"; fail=1; }

"$roofcast" profile --import-likwid "$d/likwid/flops-dp.csv" -o "$tmp/likwid.json" >/dev/null &&
    "$roofcast" validate --strict "$tmp/likwid.json" >/dev/null || { echo "likwid import does not validate"; fail=1; }
"$roofcast" profile --import-cube "$d/cube/small.cubex" -o "$tmp/cube.json" >/dev/null &&
    "$roofcast" validate --strict "$tmp/cube.json" >/dev/null || { echo "CUBE import does not validate"; fail=1; }
python3 - "$tmp/cube.json" <<'PY' || fail=1
import json, sys
p = json.load(open(sys.argv[1]))
names = {f["name"] for f in p["functions"]}
assert "main->baz->bar" in names, names
m = next(f for f in p["functions"] if f["name"] == "main")["metrics"]
assert {"visits", "visits (inc)", "time", "time (inc)", "bytes", "bytes (inc)"} <= set(m), sorted(m)
assert len(m["bytes"]["per_rank"][0]) == 4, m["bytes"]
PY

for scaling in weak strong; do
    "$roofcast" scale "$d/cube/experiments" --scaling "$scaling" --json >"$tmp/cube-$scaling.json" 2>/dev/null ||
        { echo "scale of the Score-P experiments ($scaling) failed"; fail=1; }
done
python3 - "$tmp/cube-weak.json" "$tmp/cube-strong.json" <<'PY' || fail=1
import json, sys
weak, strong = (json.load(open(f)) for f in sys.argv[1:])
assert weak["parameters"] == ["p"] == strong["parameters"], weak["parameters"]
w = {(f["function"], f["metric"]): f["points"] for f in weak["functions"]}
s = {(f["function"], f["metric"]): f["points"] for f in strong["functions"]}
# Four locations: the strong sum is four times the weak mean at every point.
for key, pts in w.items():
    for a, b in zip(pts, s[key]):
        assert abs(4 * a["mean"] - b["mean"]) <= 1e-9 * max(1.0, abs(b["mean"])), (key, a, b)
PY

# Extra-P text written from the shipped profiles fits to the same models as the profiles themselves.
"$roofcast" convert --format extrap "$src"/data/profiles/run-*.json -o "$tmp/set.txt" >/dev/null 2>"$tmp/err" ||
    { echo "convert --format extrap failed: $(cat "$tmp/err")"; fail=1; }
# A function missing at some points cannot be written: named on stderr, the rest written.
grep -q "warning: left out of the Extra-P text: main->io" "$tmp/err" || { echo "no warning: $(cat "$tmp/err")"; fail=1; }
"$roofcast" scale "$src"/data/profiles/run-*.json --json >"$tmp/a.json" 2>/dev/null
"$roofcast" scale "$tmp/set.txt" --json >"$tmp/b.json" 2>/dev/null
python3 - "$tmp/a.json" "$tmp/b.json" <<'PY' || fail=1
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
key = lambda r: {(f["function"], f["metric"]): (f["model"]["formula"], f["model"]["coefficients"]) for f in r["functions"]}
ka, kb = key(a), key(b)
assert len(kb) > 0 and set(kb) < set(ka), (sorted(kb), sorted(ka))
assert all(ka[k] == kb[k] for k in kb), "models differ after an Extra-P round trip"
PY

"$roofcast" convert --format hatchet "$tmp/cube.json" -o "$tmp/h.json" >/dev/null || { echo "hatchet failed"; fail=1; }
python3 - "$tmp/h.json" <<'PY' || fail=1
import json, sys
roots = json.load(open(sys.argv[1]))
assert isinstance(roots, list) and roots[0]["frame"] == {"name": "main", "type": "function"}, roots[0]["frame"]
def walk(n, seen):
    assert set(n) <= {"frame", "metrics", "children"} and isinstance(n["metrics"], dict)
    seen.add(n["frame"]["name"])
    for c in n.get("children", []):
        walk(c, seen)
    return seen
assert walk(roots[0], set()) == {"main", "foo", "bar", "baz"}
assert "time (inc)" in roots[0]["metrics"]
PY

# Bad input.
printf 'not a cube' >"$tmp/not-a-cube.txt"
expect_error profile "not-a-cube.txt" --import-cube "$tmp/not-a-cube.txt" -o "$tmp/x.json"
expect_error profile "no likwid marker region table" --import-likwid "$tmp/not-a-cube.txt" -o "$tmp/x.json"
expect_error convert "--format" --format gprof "$tmp/cube.json" -o "$tmp/x.json"
expect_error convert "scaling series" --format hatchet "$src/data/profiles/two-param.csv" -o "$tmp/x.json"
[[ ! -e $tmp/x.json ]] || { echo "output written despite an error"; fail=1; }
[[ $fail -eq 0 ]] && echo "ok: likwid and CUBE in, Hatchet and Extra-P out"
exit $fail
