#!/usr/bin/env bash
# End-to-end: the report of a full default-suite run (tests/report/data/full-suite.json: `roofcast run` on a
# 2-vCPU AMD EPYC VM, 84 kernels, samples and long notes trimmed by tests/report/data/trim_results.py), rendered in
# headless Chromium at its native size. A script in the page measures every <text> of every chart with
# getBoundingClientRect and the test fails when two texts of one chart overlap or one leaves its canvas.
# Usage: bash report_full_size.sh <roofcast-binary> <source-dir>; exit 77 = skipped (reason printed).
# Set ROOFCAST_E2E_KEEP=<dir> to keep the report and the pages measured there.
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
source "$(dirname "$0")/lib/chromium.sh"
setup_browser --run-all-compositor-stages-before-draw --virtual-time-budget=5000

"$bin" report "$src/tests/report/data/full-suite.json" -o "$out/report" >/dev/null
# The page stays small with 84 kernels (the samples and per-level terms of the calibration loops and the
# mixed family stay in results.json): at most 400 KB.
size=$(stat -c %s "$out/report/index.html")
((size <= 400000)) || { echo "FAIL: index.html is $size bytes, above 400 KB"; exit 1; }
echo "ok: index.html $size bytes"

# The measuring script: per top-level <svg>, the box of the canvas and of each <text>; two texts overlap
# when their boxes intersect by more than 1 px each way (glyph boxes of neighbouring lines touch).
cat >"$work/measure.js" <<'JS'
(function () {
  var lines = [];
  var svgs = Array.prototype.filter.call(document.getElementsByTagName('svg'), function (s) {
    return !s.parentNode.closest || !s.parentNode.closest('svg');
  });
  var texts_total = 0;
  svgs.forEach(function (svg, si) {
    var canvas = svg.getBoundingClientRect();
    var name = (svg.getAttribute('aria-label') || svg.id || ('svg ' + si));
    var boxes = Array.prototype.map.call(svg.getElementsByTagName('text'), function (t) {
      return {t: t.textContent, r: t.getBoundingClientRect()};
    }).filter(function (b) { return b.r.width > 0 && b.r.height > 0; });
    texts_total += boxes.length;
    boxes.forEach(function (b) {
      if (b.r.left < canvas.left - 0.5 || b.r.top < canvas.top - 0.5 || b.r.right > canvas.right + 0.5 ||
          b.r.bottom > canvas.bottom + 0.5)
        lines.push('OUTSIDE ' + name + ': "' + b.t + '"');
    });
    for (var i = 0; i < boxes.length; ++i)
      for (var j = i + 1; j < boxes.length; ++j) {
        var a = boxes[i].r, c = boxes[j].r;
        var ox = Math.min(a.right, c.right) - Math.max(a.left, c.left);
        var oy = Math.min(a.bottom, c.bottom) - Math.max(a.top, c.top);
        if (ox > 1 && oy > 1)
          lines.push('OVERLAP ' + name + ': "' + boxes[i].t + '" / "' + boxes[j].t + '"');
      }
  });
  var pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = 'CHARTS ' + svgs.length + ' TEXTS ' + texts_total + '\n' + lines.join('\n') + '\nEND\n';
  document.body.appendChild(pre);
})();
JS

# measure <page.html>: runs the script in the page and prints its findings.
measure() {
    browse "$work/dom" "$work/err" --dump-dom "file://$1"
    tr '\n' '\001' <"$work/dom" | grep -o '<pre id="measured">[^<]*</pre>' | tr '\001' '\n' |
        sed -e 's#<pre id="measured">##' -e 's#</pre>##' -e 's/&quot;/"/g' -e 's/&amp;/\&/g'
}

check_page() { # check_page <label> <page> <minimum texts>
    local result
    result=$(measure "$2")
    if ! grep -q '^END$' <<<"$result"; then
        echo "FAIL: $1: the measuring script did not run"
        fail=1
        return
    fi
    local texts
    texts=$(head -1 <<<"$result" | awk '{print $4}')
    if ((texts < $3)); then
        echo "FAIL: $1: only $texts text elements measured (expected at least $3)"
        fail=1
    fi
    if grep -E '^(OVERLAP|OUTSIDE)' <<<"$result"; then
        echo "FAIL: $1: labels overlap or leave the canvas (above)"
        fail=1
    else
        echo "ok: $1: $(head -1 <<<"$result")"
    fi
}

# Each chart at its native size: the SVG inlined in a page that runs the script after it.
for chart in roofline roofline-hierarchical roofline-calibration; do
    svg="$out/report/$chart.svg"
    [[ -s "$svg" ]] || { echo "FAIL: $chart.svg missing"; exit 1; }
    {
        printf '<!DOCTYPE html><html><head><meta charset="utf-8"/><style>body{margin:0}</style></head><body>\n'
        sed '1{/^<?xml/d}' "$svg"
        printf '<script>\n'
        cat "$work/measure.js"
        printf '</script></body></html>\n'
    } >"$out/$chart.check.html"
    check_page "$chart.svg" "$out/$chart.check.html" 40
done

# The report page itself, with every chart inlined and the collapsed calibration chart opened (the pages
# below run their scripts on this copy).
sed 's#<details id="calibration-chart">#<details id="calibration-chart" open="open">#' \
    "$out/report/index.html" >"$out/report/index.open.html"
grep -q 'id="calibration-chart" open' "$out/report/index.open.html" ||
    { echo "FAIL: index.html has no calibration chart to open"; exit 1; }
# with_script <script.js> <page>: the opened page with the script appended before </body>.
with_script() {
    sed "s#</body>#<script>$(tr '\n' ' ' <"$1" | sed 's/[&#\\]/\\&/g')</script></body>#" \
        "$out/report/index.open.html" >"$2"
}
with_script "$work/measure.js" "$out/report/index.check.html"
check_page "index.html" "$out/report/index.check.html" 100

# The suite filter, as a person uses it: per checkbox, the elements of its suite that are rendered (have
# a box), after unticking it (none may remain) and after ticking it again (all come back).
cat >"$work/filter.js" <<'JS'
(function () {
  var lines = [];
  function shown(c) {
    return Array.prototype.filter.call(document.getElementsByClassName(c), function (e) {
      return e.getClientRects().length > 0;
    }).length;
  }
  document.querySelectorAll('input[data-suite]').forEach(function (box) {
    var c = box.getAttribute('data-suite');
    var before = shown(c);
    box.click();
    var off = shown(c);
    box.click();
    lines.push('FILTER ' + c + ' ' + before + ' ' + off + ' ' + shown(c));
  });
  var pre = document.createElement('pre');
  pre.id = 'filtered';
  pre.textContent = lines.join('\n') + '\nEND\n';
  document.body.appendChild(pre);
})();
JS
with_script "$work/filter.js" "$out/report/index.filter.html"
browse "$work/filter.dom" "$work/filter.err" --dump-dom "file://$out/report/index.filter.html"
filtered=$(tr '\n' '\001' <"$work/filter.dom" | grep -o '<pre id="filtered">[^<]*</pre>' | tr '\001' '\n' |
    sed -e 's#<pre id="filtered">##' -e 's#</pre>##')
grep -q '^END$' <<<"$filtered" || { echo "FAIL: the filter script did not run"; exit 1; }
suites=0
while read -r tag cls before off on; do
    [[ $tag == FILTER ]] || continue
    suites=$((suites + 1))
    if ((before == 0 || off != 0 || on != before)); then
        echo "FAIL: filter $cls: $before shown, $off after unticking, $on after ticking again"
        fail=1
    else
        echo "ok: filter $cls: $before elements hidden and shown again"
    fi
done <<<"$filtered"
((suites >= 4)) || { echo "FAIL: $suites suite checkboxes (expected the 4 suites of the run)"; fail=1; }

# Control: two texts drawn on top of each other must be caught, or the check proves nothing.
{
    printf '<!DOCTYPE html><html><body><svg xmlns="http://www.w3.org/2000/svg" width="200" height="60">'
    printf '<text x="10" y="30" font-size="12">overlapping</text><text x="14" y="32" font-size="12">labels</text>'
    printf '<text x="190" y="30" font-size="12">outside</text></svg><script>\n'
    cat "$work/measure.js"
    printf '</script></body></html>\n'
} >"$work/control.html"
control=$(measure "$work/control.html")
if ! grep -q '^OVERLAP' <<<"$control" || ! grep -q '^OUTSIDE' <<<"$control"; then
    echo "FAIL: the control page's overlap and overflow were not detected: $control"
    exit 1
fi
echo "ok: control page: overlap and overflow detected"

((fail == 0)) || exit 1
echo "report_full_size: ok"
