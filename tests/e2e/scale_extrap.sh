#!/usr/bin/env bash
# End to end: `roofcast scale` on Extra-P's own text-format example finds Extra-P's model for it,
# -0.88979340 + 0.20168243·x^2. The example is not shipped in this repository: it lies in ../shared/data
# beside the checkout (as in CI); without it the test is skipped, with the reason.
# Usage: bash scale_extrap.sh <roofcast binary> <source dir>
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
extrap="$src/../shared/data/extrap-one_parameter_1.txt"
[[ -f "$extrap" ]] || { echo "skipped: $extrap is missing (Extra-P's example lies in ../shared/data beside the checkout)"; exit 77; }
"$bin" scale "$extrap" --predict 100 >"$tmp/out.txt"
grep -q -- '-0.8897934[0-9]* + 0.2016824[0-9]*·x^2' "$tmp/out.txt" || { cat "$tmp/out.txt"; echo "FAIL: not Extra-P's model"; exit 1; }
echo "ok: Extra-P's example gives Extra-P's model"
