#!/usr/bin/env bash
# End-to-end: `roofcast validate` reads the scaling inputs of `roofcast scale` (Extra-P text, CSV) as scale
# reads them, and a broken one gets one line naming the file and the field, exit 1.
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
fail() { echo "FAIL: $*"; exit 1; }

out=$("$bin" validate "$src/data/profiles/two-param.csv") || fail "shipped CSV rejected"
grep -q "CSV profile, .* series over (.*), .* points" <<<"$out" || fail "CSV summary: $out"

cat >"$work/run.txt" <<'TXT'
PARAMETER p
POINTS 2 4 8 16 32
REGION main
METRIC time
DATA 1.0 1.1 0.9
DATA 2.0 2.1 1.9
DATA 4.0 4.2 3.9
DATA 8.1 8.0 8.2
DATA 16.0 16.3 15.8
TXT
out=$("$bin" validate "$work/run.txt") || fail "Extra-P text rejected"
grep -q "Extra-P text, 1 series over (p), 5 points" <<<"$out" || fail "Extra-P summary: $out"

printf 'PARAMETER p\nPOINTS 2 4\nREGION main\nMETRIC time\nDATA 1.0\nDATA x\n' >"$work/bad.txt"
err=$("$bin" validate "$work/bad.txt" 2>&1) && fail "broken Extra-P text accepted"
[[ $(wc -l <<<"$err") -eq 1 ]] || fail "error is not one line: $err"
grep -q "bad.txt" <<<"$err" || fail "error does not name the file: $err"

printf 'function,metric\n' >"$work/bad.csv"
"$bin" validate "$work/bad.csv" >/dev/null 2>&1 && fail "broken CSV accepted"
echo "ok: validate reads Extra-P text and CSV"
