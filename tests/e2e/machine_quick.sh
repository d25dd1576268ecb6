#!/usr/bin/env bash
# End to end: `roofcast machine --quick` writes a valid machine file with measured levels,
# prints the summary table, and `roofcast validate` accepts the file; --json prints the same content.
set -euo pipefail
roofcast=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$roofcast" machine --quick --kernels load,triad -o "$tmp/m.yaml" --json >"$tmp/out.json"
test -s "$tmp/m.yaml" || { echo "no machine file written"; exit 1; }
"$roofcast" validate "$tmp/m.yaml" | grep -q ": ok (machine file" || { echo "validate rejected the file"; exit 1; }
python3 - "$tmp/m.yaml" "$tmp/out.json" <<'PY'
import json, sys, yaml
m = yaml.safe_load(open(sys.argv[1]))
j = json.load(open(sys.argv[2]))
assert m["format_version"] == 1 and m["source"] == "measured", "format_version/source"
names = [l["name"] for l in m["levels"]]
assert names[0] == "L1" and names[-1] == "MEM", names
for l in m["levels"]:
    assert l["bandwidth_gbs"] > 0 and l["bandwidth_kernel"] == "triad", l["name"]
    kernels = {p["kernel"] for p in l["measurements"]}
    assert kernels == {"load", "triad"}, kernels
assert {p["kernel"] for p in m["sweep"]} == {"load", "triad"}
assert len(m["thread_overhead"]) >= 2
assert [l["name"] for l in j["levels"]] == names, "JSON and YAML differ"
print("machine file ok:", names)
PY
