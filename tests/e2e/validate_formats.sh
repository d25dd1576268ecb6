#!/usr/bin/env bash
# End to end: every data file roofcast writes is one `roofcast validate` reads, and a UTF-8 byte-order mark
# before any of them is accepted (editors on Windows add one):
#  - the marker library's own output, marker.<rank>.<pid>.json, written by a small C program linked with
#    libroofcast-marker (the library beside roofcast), is read by `validate` as `profile` reads it;
#  - every shipped machine, kernel and profile file, a results file and a threads file, each with a BOM put
#    before it, validates as the file without it does, and so does the marker file; `predict` and `plot`
#    read a BOM-prefixed machine file too.
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
command -v cc >/dev/null || { echo "skipped: no C compiler (cc) to build the marker program"; exit 77; }
lib=$(dirname "$roofcast")
[[ -e $lib/libroofcast-marker.so ]] || { echo "skipped: libroofcast-marker.so is not beside $roofcast"; exit 77; }

cat >"$tmp/app.c" <<'C'
#include <roofcast/marker.h>
int main(void) {
    roofcast_region_begin("main");
    for (int i = 0; i < 3; ++i) {
        roofcast_region_begin("work");
        roofcast_region_work(100.0, 800.0);
        roofcast_region_end("work");
    }
    roofcast_region_end("main");
    return 0;
}
C
cc -O1 -I"$src/include" -o "$tmp/app" "$tmp/app.c" -L"$lib" -lroofcast-marker -Wl,-rpath,"$lib" || exit 1
ROOFCAST_MARKER_OUTPUT="$tmp/markers" "$tmp/app" || { echo "the marker program failed"; exit 1; }
marker=$(ls "$tmp"/markers/marker.0.*.json 2>/dev/null | head -n1)
[[ -n $marker ]] || { echo "the marker program wrote no marker.0.<pid>.json"; exit 1; }
out=$("$roofcast" validate "$marker" 2>&1)
if [[ $? -ne 0 ]] || ! grep -q "ok (marker file of rank 0 of 1, 2 regions" <<<"$out"; then
    echo "validate of the marker library's own file: $out"; fail=1
fi
# A marker file that is not one: one error line naming the field.
sed 's/"format_version": *1/"format_version": 7/' "$marker" >"$tmp/bad-marker.json"
expect_error validate "format_version" "$tmp/bad-marker.json"

# Files of every kind roofcast writes or reads: shipped ones, a results file, a threads file.
files=("$src"/data/machines/*.yaml "$src"/data/kernels/*.yaml "$src"/data/profiles/*.json
    "$src/tests/report/data/results.json" "$marker")
# T(n, s) = 1e-3 + 1e-8 n / s, printed by the program.
echo 'awk -v n="$1" -v s="$2" "BEGIN { printf \"elapsed %.9f\\n\", 1e-3 + 1e-8 * n / s }"' >"$tmp/t.sh"
"$roofcast" threads --command "sh $tmp/t.sh {n} {s}" --time-regex 'elapsed ([0-9.]+)' \
    --sizes 1000,2000,4000,8000 --threads 1,2,3 --machine "$src/data/machines/example-caches.yaml" --json \
    >"$tmp/threads.json" 2>/dev/null && files+=("$tmp/threads.json") ||
    { echo "threads --command wrote no threads file to validate"; fail=1; }
n=0
for f in "${files[@]}"; do
    plain=$("$roofcast" validate "$f" 2>&1) || { echo "validate $f: $plain"; fail=1; continue; }
    name=$(basename "$f")
    printf '\xEF\xBB\xBF' >"$tmp/bom-$name"
    cat "$f" >>"$tmp/bom-$name"
    with=$("$roofcast" validate "$tmp/bom-$name" 2>&1)
    if [[ $? -ne 0 || ${with#*: } != "${plain#*: }" ]]; then
        echo "validate of $name with a byte-order mark: '$with', without: '$plain'"; fail=1
    fi
    n=$((n + 1))
done
# The same reader serves the commands: predict of a BOM-prefixed kernel on a BOM-prefixed machine file, plot.
"$roofcast" predict --machine "$tmp/bom-example-caches.yaml" "$tmp/bom-triad.yaml" \
    >/dev/null 2>"$tmp/err" || { echo "predict with a BOM-prefixed machine file: $(cat "$tmp/err")"; fail=1; }
"$roofcast" plot "$tmp/bom-example-caches.yaml" -o "$tmp/c.svg" >/dev/null 2>"$tmp/err" ||
    { echo "plot of a BOM-prefixed machine file: $(cat "$tmp/err")"; fail=1; }
[[ $fail -eq 0 ]] && echo "ok: $n files validate with and without a byte-order mark, the marker file among them"
exit $fail
