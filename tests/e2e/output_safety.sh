#!/usr/bin/env bash
# End-to-end: outputs never destroy what they land on and are never half-written.
#  - `report` and `plot --png` killed (SIGINT and SIGKILL) at random moments, 50 times each: the report
#    directory is the old complete set or the new one, a chart the old file or the new one, never a mix;
#  - a symlink target: the file it names is replaced, the link stays, nothing else changes;
#  - a FIFO and a character device as -o: written in place or refused, never replaced by a file;
#  - an output that names the input is refused; two concurrent reports into one directory end complete.
# Usage: bash output_safety.sh <roofcast-binary> <source-dir>; exit 77 = skipped (reason printed).
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
data=$src/tests/report/data
fail() { echo "FAIL: $*"; exit 1; }

# Two result sets that differ, so old and new reports can be told apart by their results.json.
cp "$data/results.json" "$work/old.json"
python3 - "$data/results.json" "$work/new.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["created"] = "2031-01-01T00:00:00Z"
json.dump(d, open(sys.argv[2], "w"))
PY
"$bin" report "$work/old.json" -o "$work/ref-old" >/dev/null 2>&1
"$bin" report "$work/new.json" -o "$work/ref-new" >/dev/null 2>&1
same_dir() { diff -rq "$1" "$2" >/dev/null 2>&1; }
same_dir "$work/ref-old" "$work/ref-new" && fail "old and new reports are identical; the test cannot tell them apart"

# A random moment within 1.2 times one run's length, so that kills land before, during and after writing.
source "$(dirname "$0")/lib/kill.sh"
report_ms=$(ms_of "$bin" report "$work/new.json" -o "$work/timing")

# Killed reports: the directory is always one complete set.
kills=0
staged=0
olds=0
news=0
# Rounds go on until 50 signals have reached a running report (a kill after the run ended does not count).
i=0
while ((kills < 50)); do
    i=$((i + 1))
    ((i <= 200)) || fail "only $kills of 200 kills reached a running report"
    rm -rf "$work/rep"
    cp -r "$work/ref-old" "$work/rep"
    sig=KILL
    ((i % 2)) && sig=INT
    "$bin" report "$work/new.json" -o "$work/rep" >/dev/null 2>&1 &
    pid=$!
    random_sleep "$report_ms"
    kill -s "$sig" "$pid" 2>/dev/null && kills=$((kills + 1))
    wait "$pid" 2>/dev/null || true
    if same_dir "$work/rep" "$work/ref-old"; then
        olds=$((olds + 1))
    elif same_dir "$work/rep" "$work/ref-new"; then
        news=$((news + 1))
    else
        diff -r "$work/rep" "$work/ref-old" | head -5
        fail "report killed with SIG$sig (round $i) left a mixed or partial directory"
    fi
    (($(find "$work" -maxdepth 1 -name '.rep.tmp.*' | wc -l) > 0)) && staged=$((staged + 1))
done
echo "ok: $kills reports killed while running in $i rounds (run ${report_ms} ms) left the old set ($olds) or the new one ($news)"
# Staging directories of runs killed by SIGKILL stay beside the report until the next run removes them.
"$bin" report "$work/new.json" -o "$work/rep" >/dev/null 2>&1 || fail "the report after the kills failed"
left=$(find "$work" -maxdepth 1 -name '.rep.*')
[[ -z $left ]] || fail "the next report left the killed runs' staging directories: $left"
echo "ok: the next report removed the killed runs' staging directories (left after $staged rounds)"

# Killed plot --png: the SVG and the PNG are each the old file or the new one.
if command -v rsvg-convert >/dev/null 2>&1; then
    "$bin" plot "$work/old.json" -o "$work/ref-old.svg" --png >/dev/null 2>&1
    "$bin" plot "$data/machine.yaml" -o "$work/ref-new.svg" --png >/dev/null 2>&1
    plot_ms=$(ms_of "$bin" plot "$data/machine.yaml" -o "$work/timing.svg" --png)
    i=0 kills=0
    while ((kills < 50)); do
        i=$((i + 1))
        ((i <= 200)) || fail "only $kills of 200 kills reached a running plot --png"
        cp "$work/ref-old.svg" "$work/c.svg"
        cp "$work/ref-old.png" "$work/c.png"
        sig=KILL
        ((i % 2)) && sig=INT
        "$bin" plot "$data/machine.yaml" -o "$work/c.svg" --png >/dev/null 2>&1 &
        pid=$!
        random_sleep "$plot_ms"
        kill -s "$sig" "$pid" 2>/dev/null && kills=$((kills + 1))
        wait "$pid" 2>/dev/null || true
        for ext in svg png; do
            cmp -s "$work/c.$ext" "$work/ref-old.$ext" || cmp -s "$work/c.$ext" "$work/ref-new.$ext" ||
                fail "plot --png killed with SIG$sig (round $i) left a partial $ext"
        done
    done
    echo "ok: $kills plot --png runs killed while running in $i rounds (run ${plot_ms} ms) left the old or the new chart"
    "$bin" plot "$data/machine.yaml" -o "$work/c.svg" --png >/dev/null 2>&1 || fail "plot after the kills failed"
    left=$(find "$work" -maxdepth 1 -name '.c.*')
    [[ -z $left ]] || fail "the next plot --png left the killed runs' temporaries: $left"
    echo "ok: the next plot --png removed the killed runs' temporaries"
else
    skip_part "rsvg-convert (librsvg2-bin) is not installed: the plot --png kill test was not run"
fi

# A symlink target: the named file is replaced, the link and everything else stay.
mkdir "$work/real"
echo keep >"$work/real/other.txt"
echo old >"$work/real/chart.svg"
ln -s "$work/real/chart.svg" "$work/link.svg"
"$bin" plot "$data/machine.yaml" -o "$work/link.svg" >/dev/null
[[ -L "$work/link.svg" ]] || fail "the symlink was replaced"
grep -q '<svg' "$work/real/chart.svg" || fail "the link's target was not written"
[[ $(cat "$work/real/other.txt") == keep ]] || fail "a file beside the target changed"
[[ $(ls -A "$work/real" | wc -l) -eq 2 ]] || fail "something was left beside the target: $(ls -A "$work/real")"
echo "ok: a symlinked output replaces the file it names and keeps the link"

# A FIFO: written in place when a reader is there, refused without one; never replaced.
mkfifo "$work/fifo.svg"
cat "$work/fifo.svg" >"$work/from-fifo.txt" &
reader=$!
"$bin" plot "$data/machine.yaml" -o "$work/fifo.svg" >/dev/null
wait "$reader"
[[ -p "$work/fifo.svg" ]] || fail "the FIFO was replaced"
grep -q '</svg>' "$work/from-fifo.txt" || fail "the chart did not go through the FIFO"
if "$bin" plot "$data/machine.yaml" -o "$work/fifo.svg" >/dev/null 2>"$work/err"; then
    fail "a FIFO without a reader was accepted"
fi
grep -q "no reader" "$work/err" || fail "FIFO error does not say why: $(cat "$work/err")"
[[ -p "$work/fifo.svg" ]] || fail "the FIFO was replaced after a failed write"
echo "ok: a FIFO output is written in place or refused, never replaced"

# A character device made by the test (root only; /dev/null otherwise).
dev=/dev/null
if [[ $(id -u) -eq 0 ]] && mknod "$work/null" c 1 3 2>/dev/null; then dev=$work/null; fi
"$bin" plot "$data/machine.yaml" -o "$dev" >/dev/null
[[ -c "$dev" ]] || fail "the character device $dev was replaced"
echo "ok: a character device output ($dev) is written in place"

# An output that names the input.
cp "$work/old.json" "$work/self.json"
if "$bin" plot "$work/self.json" -o "$work/self.json" >/dev/null 2>"$work/err"; then
    fail "plot X.json -o X.json was accepted"
fi
grep -q "names the input file" "$work/err" || fail "self-overwrite error: $(cat "$work/err")"
cmp -s "$work/self.json" "$work/old.json" || fail "the input was changed"
echo "ok: an output naming the input is refused"

# A directory with files of its own is never taken over by a report.
mkdir "$work/home"
echo precious >"$work/home/thesis.tex"
if "$bin" report "$work/old.json" -o "$work/home" >/dev/null 2>"$work/err"; then
    fail "a report replaced a directory holding a foreign file"
fi
[[ $(cat "$work/home/thesis.tex") == precious ]] || fail "the foreign file changed"
echo "ok: report refuses a directory holding other files"

# Two concurrent reports into one directory end with one complete report.
for i in 1 2 3 4 5; do
    rm -rf "$work/both"
    "$bin" report "$work/old.json" -o "$work/both" >/dev/null 2>&1 &
    a=$!
    "$bin" report "$work/new.json" -o "$work/both" >/dev/null 2>&1 &
    b=$!
    wait "$a" || fail "concurrent report A failed"
    wait "$b" || fail "concurrent report B failed"
    same_dir "$work/both" "$work/ref-old" || same_dir "$work/both" "$work/ref-new" ||
        fail "two concurrent reports left a mixed directory (round $i)"
done
[[ -z $(ls -A "$work" | grep '^\.both\.') ]] || fail "concurrent reports left staging directories"
echo "ok: two concurrent reports end with one complete report"
end_test
