#!/usr/bin/env bash
# End to end: `roofcast predict --measured SECONDS` puts a user's kernel against its bound. The shipped
# Himeno kernel (14 single-precision arrays of 129 x 65 x 65 points) on a machine file with cache
# associativities: timed at a tenth of its mixed prediction it is diagnosed with its arrays' cache-set
# conflict; timed at its prediction it reaches its bound and gets no diagnosis; bad times are one-line errors.
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
kernel="$src/data/kernels/himeno.yaml"
machine="$src/data/machines/example-caches.yaml"

json=$("$roofcast" predict "$kernel" --machine "$machine" --json) || { echo "predict --json failed"; exit 1; }
# The mixed prediction's time for the declared iterations: seconds per iteration x 127 x 63 x 63.
t=$(python3 -c 'import json,sys; p=[p for p in json.loads(sys.argv[1])["predictions"] if p["model"]=="mixed"][0]; print(p["seconds_per_iteration"]*127*63*63)' "$json")

slow=$(python3 -c "print($t * 10)")
out=$("$roofcast" predict "$kernel" --machine "$machine" --measured "$slow") || { echo "predict --measured failed"; fail=1; }
grep -qF "= 10.0 % of its mixed prediction" <<<"$out" || { echo "no 10 % fraction:"; echo "$out"; fail=1; }
grep -qE "^  cache-conflict +1[0-9] streams of the innermost loop map into one L1 set" <<<"$out" ||
    { echo "no L1 set conflict:"; echo "$out"; fail=1; }
grep -qF "sits under" <<<"$out" || { echo "no ceilings:"; echo "$out"; fail=1; }

j=$("$roofcast" predict "$kernel" --machine "$machine" --measured "$slow" --json) || fail=1
python3 - "$j" <<'PY' || fail=1
import json, sys
m = json.loads(sys.argv[1])["measured"]
assert abs(m["bound_fraction"] - 0.1) < 1e-9, m["bound_fraction"]
causes = [d["cause"] for d in m["diagnosis"]]
assert "cache-conflict" in causes, causes
d = next(d for d in m["diagnosis"] if d["cause"] == "cache-conflict")
assert d["figure"] > d["limit"], d
assert m["ceilings"] and all(c["kind"] in ("compute", "bandwidth") for c in m["ceilings"])
PY

out=$("$roofcast" predict "$kernel" --machine "$machine" --measured "$t") || fail=1
grep -qF "no diagnosis" <<<"$out" || { echo "a kernel at its bound was diagnosed:"; echo "$out"; fail=1; }

expect_error predict "--measured" "$kernel" --machine "$machine" --measured -1
expect_error predict "--measured" "$kernel" --machine "$machine" --measured 0
exit $fail
