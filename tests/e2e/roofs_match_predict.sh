#!/usr/bin/env bash
# End-to-end: the bandwidth roofs drawn in roofline.svg and roofline-hierarchical.svg are the bandwidths
# `roofcast predict --json` reports for the same machine and thread count (one choice of a level's
# bandwidth, model/bandwidth.hpp). The kernel, data/kernels/triad.yaml, gives bytes per level without a
# read/write split, the reference workload the charts draw. Each roof's tooltip must name the same
# source as the prediction's term and show its bandwidth to the three digits the chart prints.
# Usage: bash roofs_match_predict.sh <roofcast-binary> <source-dir>; exit 77 = skipped (reason printed).
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
if ! command -v jq >/dev/null; then echo "skipped: jq is not installed (needed to read the JSON)"; exit 77; fi
fail() { echo "FAIL: $*"; exit 1; }

"$bin" report "$src/tests/report/data/results.json" -o "$work/rep" >/dev/null
machine=$work/rep/machine.yaml
[[ -f $machine ]] || fail "the report wrote no machine.yaml"

# GB/s of a rate as the chart prints it ("370 GB/s", "1.2 TB/s").
to_gbs() { awk '{ f = 1; if ($2 ~ /^T/) f = 1000; else if ($2 ~ /^M/) f = 0.001; else if ($2 ~ /^k/) f = 1e-6;
                   printf "%.17g\n", $1 * f }' <<<"$1"; }

for chart in roofline.svg roofline-hierarchical.svg; do
    svg=$work/rep/$chart
    # The chart title ends with "<precision>, <n> thread(s)": the thread count of the roofs.
    threads=$(grep -o '· [a-z]*, [0-9]* threads\?<' "$svg" | head -1 | grep -o '[0-9][0-9]*' || true)
    [[ -n $threads ]] || fail "$chart: no thread count in the title"
    json=$("$bin" predict "$src/data/kernels/triad.yaml" --machine "$machine" --threads "$threads" \
        --model hierarchical --json)
    levels=$(jq -r '.predictions[0].terms[].level' <<<"$json")
    [[ -n $levels ]] || fail "predict reported no terms"
    n=0
    for level in $levels; do
        gbs=$(jq -r --arg l "$level" '.predictions[0].terms[] | select(.level == $l) | .bandwidth_gbs' <<<"$json")
        source=$(jq -r --arg l "$level" '.predictions[0].terms[] | select(.level == $l) | .bandwidth_source' <<<"$json")
        tip=$(grep -o "$level roof: [^<]*" "$svg" | head -1)
        [[ -n $tip ]] || fail "$chart: no $level roof"
        [[ $tip == *"($source);"* ]] || fail "$chart: $level roof '$tip' does not name the prediction's source '$source'"
        drawn=$(to_gbs "$(sed -E 's/^[^:]*: ([0-9.e+-]+ [kMGT]?B\/s).*/\1/' <<<"$tip")")
        awk -v a="$drawn" -v b="$gbs" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.005 * b) }' ||
            fail "$chart: $level roof $drawn GB/s, prediction $gbs GB/s"
        echo "ok: $chart $level roof $drawn GB/s = predict $gbs GB/s ($source, $threads threads)"
        n=$((n + 1))
    done
    [[ $n -eq $(grep -c 'class="roof roof-memory"' "$svg") ]] || fail "$chart: $n levels, other roof count"
done
