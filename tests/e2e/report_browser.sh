#!/usr/bin/env bash
# End-to-end: writes the HTML report of the fixture results, renders it in headless Chromium, takes a
# screenshot and checks, as a person opening the page would see it, that the page loaded without console
# messages and that the roofline shows the expected dots and roofs.
# Usage: bash report_browser.sh <roofcast-binary> <source-dir>; exit 77 = skipped (reason printed).
# Set ROOFCAST_E2E_KEEP=<dir> to keep the report and the screenshot there.
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
source "$(dirname "$0")/lib/chromium.sh"
setup_browser --enable-logging=stderr --v=0 # console messages on stderr, for the console check

"$bin" report "$src/tests/report/data/results.json" -o "$out/report" >/dev/null
page="file://$out/report/index.html"

# Control: a page that logs to the console must be caught by the console check, or the check proves nothing.
printf '<!DOCTYPE html><html><body><script>console.error("control");</script></body></html>\n' >"$work/control.html"
browse "$work/control.dom" "$work/control.err" --dump-dom "file://$work/control.html"
if ! grep -qE ':CONSOLE[:(]' "$work/control.err"; then
    echo "FAIL: this Chromium does not report console messages on stderr; the console check cannot work"
    exit 1
fi

browse "$work/page.dom" "$work/page.err" --dump-dom "$page"
if grep -E ':CONSOLE[:(]' "$work/page.err"; then
    echo "FAIL: the report logged console messages (above)"
    exit 1
fi
grep -q '</footer>' "$work/page.dom" || { echo "FAIL: the page did not load completely"; exit 1; }

# The classic roofline figure of the rendered DOM. Fixture: 6 kernels, stream_copy has no FLOPs and is
# left out (with a note), the calibration loop daxpy_l2 has its own chart, so 4 measured dots and
# 4 x 4 = 16 prediction markers; roofs: 4 memory levels
# (L1, L2, L3, MEM), 4 compute roofs/ceilings (AVX-512 FMA, AVX2 FMA, AVX-512 add+mul, scalar FMA), 4 ridges.
figure=$(tr '\n' ' ' <"$work/page.dom" | grep -o '<figure id="fig-roofline">.*</figure>' | sed 's#</figure>.*##')
count() { grep -o "class=\"$1[\" ]" <<<"$figure" | wc -l; }
check() { # check <what> <got> <expected>
    if [[ "$2" -ne "$3" ]]; then
        echo "FAIL: roofline $1: $2 in the rendered page, expected $3"
        exit 1
    fi
    echo "ok: roofline $1 = $2"
}
check "dots" "$(count dot)" 4
check "prediction markers" "$(count prediction)" 16
check "memory roofs" "$(count 'roof roof-memory')" 4
check "compute roofs" "$(count 'roof roof-compute')" 4
check "ridge points" "$(count ridge)" 4
grep -q 'stream_copy omitted' <<<"$figure" || { echo "FAIL: no visible note for the omitted kernel"; exit 1; }

# Screenshot of the top of the page (summary, warnings, roofline) at a laptop width.
browse "$work/shot.out" "$work/shot.err" --window-size=1280,2400 --screenshot="$out/report.png" "$page"
[[ -s "$out/report.png" ]] || { echo "FAIL: no screenshot"; exit 1; }
# PNG signature, then the IHDR width and height (big-endian, bytes 16..23).
sig=$(od -An -tx1 -N8 "$out/report.png" | tr -d ' \n')
[[ "$sig" == "89504e470d0a1a0a" ]] || { echo "FAIL: the screenshot is not a PNG"; exit 1; }
width=$((16#$(od -An -tx1 -j16 -N4 "$out/report.png" | tr -d ' \n')))
height=$((16#$(od -An -tx1 -j20 -N4 "$out/report.png" | tr -d ' \n')))
size=$(stat -c %s "$out/report.png")
echo "ok: screenshot ${width}x${height}, $size bytes"
[[ $width -eq 1280 && $height -eq 2400 ]] || { echo "FAIL: unexpected screenshot size"; exit 1; }
# A blank page compresses to a few kB; the rendered report with three charts is far larger.
((size > 100000)) || { echo "FAIL: the screenshot looks blank ($size bytes)"; exit 1; }
echo "report_browser: ok"
