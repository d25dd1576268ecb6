#!/usr/bin/env bash
# End-to-end test of `roofcast scale` on the shipped example profiles (data/profiles/): table, JSON,
# CSV, SVG charts, --evaluate, two parameters and bad input (Extra-P's own example: scale_extrap.sh).
# Usage: bash scale.sh <roofcast binary> <source dir>
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
fail() { echo "FAIL: $*" >&2; exit 1; }
runs=("$src"/data/profiles/run-*.json)
target="$src/data/profiles/target-256.json"

# Table with evaluation: every function, the missing-point note, the error summary and the cost ratio.
"$bin" scale "${runs[@]}" --predict 256 --evaluate "$target" > "$tmp/table.txt"
for f in 'main->init' 'main->solve->dot' 'main->solve->halo' 'main->solve->allreduce' 'main->io'; do
    grep -q -- "$f" "$tmp/table.txt" || fail "table lacks $f"
done
grep -q 'main->io time: measured at 4 of 5 points (missing cores=32)' "$tmp/table.txt" || fail "missing-point note"
grep -q '^mean relative error: .* over 6 comparison(s)' "$tmp/table.txt" || fail "evaluation summary"
grep -q '^profiling cost: small runs .* core-s, target run .* core-s, ratio ' "$tmp/table.txt" || fail "cost ratio"

# JSON: parseable, a prediction with an interval for every series, evaluation with a cost ratio.
"$bin" scale "${runs[@]}" --predict 256 --evaluate "$target" --json > "$tmp/out.json"
python3 - "$tmp/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "roofcast-scale", d["format"]
assert len(d["functions"]) == 6, len(d["functions"])
for f in d["functions"]:
    p = f["predictions"][0]
    assert p["x"] == {"cores": 256.0}, p
    assert p["lo"] is not None and p["lo"] <= p["value"] <= p["hi"], (f["function"], p)
    assert f["model"]["formula"], f
ev = d["evaluation"]
assert len(ev["rows"]) == 6 and ev["cost_ratio"] > 0, ev
PY

# CSV: header plus one row per series.
"$bin" scale "${runs[@]}" --predict 256 --csv > "$tmp/out.csv"
head -1 "$tmp/out.csv" | grep -q '^function,metric,family,model,points,' || fail "csv header"
[[ $(($(wc -l < "$tmp/out.csv") - 1)) -eq 6 ]] || fail "csv rows"

# Charts: one well-formed SVG per series.
"$bin" scale "${runs[@]}" --predict 256 --plot-dir "$tmp/plots" > /dev/null
[[ $(ls "$tmp/plots"/*.svg | wc -l) -eq 6 ]] || fail "svg count"
python3 -c 'import sys, xml.dom.minidom as m; [m.parse(f) for f in sys.argv[1:]]' "$tmp/plots"/*.svg

# Two parameters and the mape selection.
"$bin" scale "$src/data/profiles/two-param.csv" --predict cores=256,size=16000 --select mape > "$tmp/two.txt"
grep -q 'at cores=256,size=16000' "$tmp/two.txt" || fail "two-parameter prediction"

# Bad input: one line naming file and field, non-zero exit, remaining functions still modelled.
printf 'function,metric,cores,value\nf,time,8,1\nf,time,16,nan\nf,time,32,3\ng,time,8,1\n' > "$tmp/bad.csv"
"$bin" scale "$tmp/bad.csv" > "$tmp/bad.txt"
grep -q 'f time: 1 non-finite value(s) (NaN/inf) dropped' "$tmp/bad.txt" || fail "NaN note"
grep -q 'g time: one point: constant model' "$tmp/bad.txt" || fail "one-point note"
if "$bin" scale "${runs[@]}" --predict size=3 2> "$tmp/err.txt"; then fail "bad --predict accepted"; fi
grep -q "^roofcast: error: field '--predict': expected a number (or cores=NUMBER), got 'size=3'" "$tmp/err.txt" ||
    fail "bad --predict message: $(cat "$tmp/err.txt")"
printf 'PARAMETER p\nPOINTS 1 2\nREGION r\nDATA 1\n' > "$tmp/short.txt"
if "$bin" scale "$tmp/short.txt" 2> "$tmp/err.txt"; then fail "short Extra-P file accepted"; fi
[[ $(wc -l < "$tmp/err.txt") -eq 1 ]] || fail "error is not one line"
grep -q "short.txt: field 'end of file': region 'r' (line 3) has 1 DATA lines" "$tmp/err.txt" || fail "short file message"
echo "scale e2e: ok"
