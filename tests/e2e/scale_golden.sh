#!/usr/bin/env bash
# End to end: `roofcast scale` gives the same models, coefficients, predictions and intervals as before on
# about 2,700 synthetic series (data/scale_golden/profiles.awk: one parameter at 5 and 9 points, with
# repetitions, breaks, zeros, negative values, NaN, missing points and duplicate rows; two parameters on a
# grid), under each selection, read from CSV and from Extra-P text, written as CSV and as JSON.
# The expected files (data/scale_golden/*.gz) are this program's own earlier output, not independent truth:
# they guard the fast readers, fits and writers against any change of a chosen model or a printed digit.
# A deliberate change of the models regenerates them (`bash scale_golden.sh BIN SRC --regenerate`) and
# says why in its commit.
# Usage: bash scale_golden.sh <roofcast binary> <source dir> [--regenerate]
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
need python3 gzip
data="$src/tests/e2e/data/scale_golden"
regenerate=${3:-}
for part in five nine two; do
    awk -v part=$part -f "$data/profiles.awk" >"$tmp/$part.csv"
done

# The same five-point data set as Extra-P text: one REGION per call path (METRIC switched as the CSV's rows
# switch metric), one DATA line per point holding its repetitions, series in the CSV's first-seen order.
awk -F, 'NR == 1 { next }
{
    key = $1 SUBSEP $2
    if (!(key in seen)) { seen[key] = ++n; fn[n] = $1; mt[n] = $2 }
    if (!(($3) in pt)) { pt[$3] = ++np; px[np] = $3 }
    v[seen[key], pt[$3]] = v[seen[key], pt[$3]] " " $4
}
END {
    print "PARAMETER cores"
    printf "POINTS"; for (p = 1; p <= np; p++) printf " %s", px[p]; print ""
    for (s = 1; s <= n; s++) {
        printf "METRIC %s\nREGION %s\n", mt[s], fn[s]
        for (p = 1; p <= np; p++) printf "DATA%s\n", v[s, p]
    }
}' "$tmp/five.csv" >"$tmp/five.txt"

# The printed coefficients, predictions and intervals of a JSON document at full precision, one series a line.
extract() {
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for f in d["functions"]:
    m = f["model"]
    preds = [(p["value"], p["lo"], p["hi"]) for p in f["predictions"]]
    print(f["function"], f["metric"], m["family"], repr(m["coefficients"]), repr(preds), sep="\t")
PY
}

run() { # name, then the arguments of `roofcast scale`
    local name=$1
    shift
    "$bin" scale "$@" >"$tmp/$name" 2>"$tmp/$name.err" || { cat "$tmp/$name.err"; fail=1; }
}
run five-forecast.csv "$tmp/five.csv" --predict 1024 --csv
run five-extrap.csv "$tmp/five.txt" --predict 1024 --csv
run five.json "$tmp/five.csv" --predict 1024 --json
extract "$tmp/five.json" >"$tmp/five-coefficients.tsv"
run nine-forecast.csv "$tmp/nine.csv" --predict 1024 --csv
run nine-loo.csv "$tmp/nine.csv" --predict 1024 --select loo --csv
run nine-mape.csv "$tmp/nine.csv" --predict 1024 --select mape --csv
run nine.json "$tmp/nine.csv" --predict 1024 --predict 4 --json
run two-forecast.csv "$tmp/two.csv" --predict cores=64,size=16000 --csv
run two.json "$tmp/two.csv" --predict cores=64,size=16000 --json
golden=(five-forecast.csv five-coefficients.tsv nine-forecast.csv nine-loo.csv nine-mape.csv nine.json
        two-forecast.csv two.json)

if [[ $regenerate == --regenerate ]]; then
    [[ $fail -eq 0 ]] || { echo "FAIL: a run failed, nothing regenerated"; exit 1; }
    for g in "${golden[@]}"; do
        gzip -9n <"$tmp/$g" >"$data/$g.gz"
    done
    echo "regenerated ${#golden[@]} expected files in $data"
    exit $fail
fi
for g in "${golden[@]}"; do
    if ! gzip -dc "$data/$g.gz" | cmp -s - "$tmp/$g"; then
        echo "FAIL: $g differs from the expected output (first differing lines, expected < > now):"
        diff <(gzip -dc "$data/$g.gz") "$tmp/$g" | head -n 12
        fail=1
    fi
done
# Extra-P text and CSV are two spellings of one data set: the same series, models and predictions.
cmp -s "$tmp/five-forecast.csv" "$tmp/five-extrap.csv" ||
    { echo "FAIL: the Extra-P text of the data set gives other results than its CSV"; fail=1; }
[[ $fail -eq 0 ]] && echo "ok: ${#golden[@]} outputs as expected, Extra-P text as CSV"
exit $fail
