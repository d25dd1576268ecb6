#!/usr/bin/env bash
# End-to-end: `roofcast plot`, `roofcast report` and `roofcast validate` on the report fixtures, and the
# bad inputs of issue 5 (not roofcast output, empty results, values a log axis cannot show): each either
# fails with a one-line error naming the file, or writes a well-formed chart with a visible note.
# Usage: bash plot_cli.sh <roofcast-binary> <source-dir>; exit 77 = skipped (reason printed).
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
data=$src/tests/report/data

need xmllint # libxml2-utils: every chart is checked as well-formed XML
fail() { echo "FAIL: $*"; exit 1; }
well_formed() {
    xmllint --noout "$1" || fail "$1 is not well-formed XML"
}
# Replaces lib/expect_error.sh's: any command, and the message part is a pattern.
expect_error() { # expect_error <message part> <command...>: non-zero exit, one line naming the problem
    local want=$1
    shift
    if "$@" >"$work/out" 2>"$work/err"; then fail "expected an error from: $*"; fi
    [[ $(wc -l <"$work/err") -eq 1 ]] || { cat "$work/err"; fail "error is not one line: $*"; }
    grep -q "^roofcast: error: .*$want" "$work/err" || { cat "$work/err"; fail "error does not mention '$want'"; }
    echo "ok: error for $* -> $(cat "$work/err")"
}

# Every view of a results file and of a machine file.
"$bin" plot "$data/results.json" -o "$work/roofline.svg" >/dev/null
"$bin" plot "$data/results.json" -o "$work/hier.svg" --view hierarchical >/dev/null
"$bin" plot "$data/results.json" -o "$work/bw-from-results.svg" --view bandwidth >/dev/null
"$bin" plot "$data/machine.yaml" -o "$work/machine-roofs.svg" >/dev/null
"$bin" plot "$data/machine.yaml" -o "$work/bandwidth.svg" --view bandwidth >/dev/null
for f in roofline hier bw-from-results machine-roofs bandwidth; do well_formed "$work/$f.svg"; done
# 4 dots in the classic view (stream_copy has no FLOPs; the calibration loop daxpy_l2 has its own chart),
# 16 in the hierarchical one (one per level with traffic), none for a machine file (roofs only).
[[ $(grep -c 'class="dot[ "]' "$work/roofline.svg") -eq 4 ]] || fail "classic roofline dots"
[[ $(grep -c 'class="dot[ "]' "$work/hier.svg") -eq 16 ]] || fail "hierarchical roofline dots"
[[ $(grep -c 'class="dot[ "]' "$work/machine-roofs.svg") -eq 0 ]] || fail "machine roofline dots"
[[ $(grep -c 'class="roof roof-memory"' "$work/machine-roofs.svg") -eq 4 ]] || fail "machine roofline roofs"
echo "ok: plot views"

# --png: through rsvg-convert (librsvg2-bin), and without it a clear error (PATH without the tool).
if command -v rsvg-convert >/dev/null 2>&1; then
    "$bin" plot "$data/results.json" -o "$work/chart.svg" --png >/dev/null
    [[ $(od -An -tx1 -N4 "$work/chart.png" | tr -d ' \n') == "89504e47" ]] || fail "--png did not write a PNG"
    echo "ok: --png"
else
    skip_part "rsvg-convert (librsvg2-bin) is not installed: --png writing a PNG was not checked"
fi
mkdir -p "$work/no-tools"
expect_error "rsvg-convert" env PATH="$work/no-tools" "$bin" plot "$data/results.json" -o "$work/nopng.svg" --png

# validate accepts results files as well as machine files.
"$bin" validate "$data/results.json" "$data/machine.yaml" | grep -q "results file, 6 kernels" || fail "validate"
echo "ok: validate"

# report writes the whole directory.
"$bin" report "$data/results.json" -o "$work/rep" >/dev/null
for f in index.html roofline.svg roofline-hierarchical.svg bandwidth.svg results.json machine.yaml; do
    [[ -s "$work/rep/$f" ]] || fail "report did not write $f"
done
"$bin" validate --strict "$work/rep/results.json" "$work/rep/machine.yaml" >/dev/null || fail "report files do not validate"
echo "ok: report directory"

# Bad input: not roofcast output.
echo '{"title": "something else"}' >"$work/other.json"
expect_error "not a roofcast results file" "$bin" plot "$work/other.json" -o "$work/x.svg"
printf 'hello: world\n' >"$work/other.yaml"
expect_error "not a roofcast data file" "$bin" plot "$work/other.yaml" -o "$work/x.svg"
printf '\x89PNG\r\n\x1a\n\0\0' >"$work/image.png"
expect_error "binary file" "$bin" plot "$work/image.png" -o "$work/x.svg"
expect_error "needs a results file" "$bin" plot "$data/machine.yaml" -o "$work/x.svg" --view hierarchical
expect_error "expected a results file" "$bin" report "$data/machine.yaml" -o "$work/rep2"
[[ ! -e "$work/x.svg" && ! -e "$work/rep2" ]] || fail "output written despite an error"

# Empty results: roofs only, with a visible note (and a warning on stderr).
sed -e 's/"kernels": \[/"kernels": [], "unused": [/' "$data/results.json" >"$work/empty.json"
"$bin" plot "$work/empty.json" -o "$work/empty.svg" 2>"$work/err" >/dev/null
well_formed "$work/empty.svg"
grep -q 'class="note">Note: the results file has no kernels' "$work/empty.svg" || fail "no note for empty results"
grep -q "warning: .*no kernels" "$work/err" || fail "no warning for empty results"
echo "ok: empty results"

# Values a log axis cannot show (tests/report/data/bad_values.json): a measured 0, a prediction of 0 and a
# kernel without FLOPs are omitted with visible notes; the two placeable measurements are drawn. (A negative
# prediction is out of the results file's range: the reader refuses it, core/test_results.cpp.)
"$bin" plot "$data/bad_values.json" -o "$work/bad.svg" >/dev/null
well_formed "$work/bad.svg"
grep -q 'Note: zero_measured: measured 0 GFLOP/s omitted' "$work/bad.svg" || fail "no note for a zero measurement"
grep -q 'Note: zero_prediction: 1 prediction omitted' "$work/bad.svg" || fail "no note for a zero prediction"
grep -q 'Note: no_flops omitted' "$work/bad.svg" || fail "no note for a kernel without FLOPs"
[[ $(grep -c 'class="dot[ "]' "$work/bad.svg") -eq 2 ]] || fail "expected exactly the 2 placeable dots"
echo "ok: unplaceable values"
echo "plot_cli: ok"
end_test
