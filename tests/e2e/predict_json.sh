#!/usr/bin/env bash
# End to end: `roofcast predict --json` prints one JSON document with the documented shape.
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
if ! command -v jq >/dev/null; then echo "skipped: jq is not installed (needed to read the JSON)"; exit 77; fi
json=$("$roofcast" predict "$src/data/kernels/mixed-arrays.yaml" --machine "$src/data/machines/example-published.yaml" --json) || exit 1
check() { # check <jq filter that must print true>
    if [[ $(jq -r "$1" <<<"$json") != "true" ]]; then echo "JSON check failed: $1"; echo "$json" | head -40; exit 1; fi
}
check '(.kernel == "mixed-arrays") and (.machine == "some-published-system")'
check '(.predictions | length) == 4'
check '[.predictions[].model] == ["roofline", "hierarchical", "cache-aware", "mixed"]'
check 'all(.predictions[]; has("seconds_per_iteration") and has("gflops") and has("peak_fraction") and has("bottleneck") and has("valid") and has("notes"))'
check 'all(.predictions[]; (.valid | type) == "boolean" and (.notes | type) == "array")'
# Mixed: L2-bound, 43 / (208/146) / 128 = 0.23580...
check '.predictions[3].bottleneck == "L2"'
check '(.predictions[3].peak_fraction * 1000 | floor) == 235'
check '.bytes_per_iteration.MEM == 40 and .bytes_per_iteration.L2 == 208'
exit 0
