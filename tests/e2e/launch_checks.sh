#!/usr/bin/env bash
# The checks every command that launches programs makes before it launches anything, and the limits it
# keeps while they run (docs/reliability.md, "Launchers"): an output naming an input (the program, a file its
# arguments name, the machine file, a TAU file, the threads file) is refused with the input unchanged; an
# output that is a directory is refused before the first run (a program that would hang shows it); --timeout
# is one rule on profile, threads and stencil (a negative, NaN or infinite value refused in one line) and stops
# the program with its children; a repeated --param is refused; --bytes-per-n inf and a printed time of 60,000
# digits end in one error line (they hung and crashed); a profile holding work of 1e300, a TAU time of inf or
# names with escape sequences is written so that `validate` accepts it, its warnings escaped and counted.
# Usage: bash launch_checks.sh <roofcast binary> <source dir>
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
need python3
roofcast=$(realpath "$roofcast")
cd "$tmp" || exit 1
printf '#!/bin/sh\necho hello\n' >ok.sh
printf '#!/bin/sh\necho $$ >"$0.pid"; sh -c '"'"'echo $$ >"$0.kid"; exec sleep 300'"'"' "$0" &\nsleep 300\n' >hang.sh
printf '#!/bin/sh\necho elapsed 0.25\n' >elapsed.sh
printf '#!/bin/sh\nprintf "elapsed "; head -c 60000 /dev/zero | tr "\\0" "1"; echo\n' >digits.sh
chmod +x ok.sh hang.sh elapsed.sh digits.sh
echo data >arg.txt
cat >m.yaml <<'YAML'
format_version: 1
name: tiny
compute: {peak_gflops: {double: 10}}
topology:
  cores: 2
  hw_threads: 2
  caches:
    - {name: L1, size_bytes: 32KiB}
    - {name: L2, size_bytes: 512KiB}
levels:
  - {name: L1, bandwidth_gbs: 100}
  - {name: MEM, bandwidth_gbs: 10}
YAML
ln -s ok.sh link-to-ok
mkdir tau
printf '2 templated_functions\n# Name Calls Subrs Excl Incl ProfileCalls\n"main" 1 0 inf inf 0\n"main => x\033[31m" 1 0 1e300 1e300 0\n' >tau/profile.0.0.0
sums() { sha256sum ok.sh arg.txt m.yaml tau/profile.0.0.0 elapsed.sh; }
before=$(sums)
t0=$(date +%s)

# Outputs naming an input, or unwritable: refused before anything runs (hang.sh would take 300 s).
prof=(profile --backend time --no-machine)
expect_error profile "names the input file './ok.sh'" --backend time --no-machine -o ok.sh -- ./ok.sh
expect_error profile "names the input file" --backend time --no-machine -o link-to-ok -- ./ok.sh
expect_error profile "names the input file 'arg.txt'" --backend time --no-machine -o arg.txt -- ./ok.sh arg.txt
expect_error profile "names the input file 'm.yaml'" --backend time --machine m.yaml -o m.yaml -- ./ok.sh
expect_error profile "names the input file" -o tau/profile.0.0.0 --import-tau tau
expect_error profile "is a directory" --backend time --no-machine -o "$tmp" -- ./hang.sh
expect_error profile "does not exist or is not writable" --backend time --no-machine -o missing/p.json -- ./hang.sh
expect_error profile "names the profile's output (-o) too" --backend callgrind --no-machine -o p.json \
    --callgrind-out p.json -- ./ok.sh
thr=(--machine m.yaml --sizes 1000 --threads 1 --repetitions 1)
expect_error threads "is a directory" "${thr[@]}" --command "sh hang.sh {n}" -o "$tmp"
expect_error threads "names the input file 'm.yaml'" "${thr[@]}" --command "sh hang.sh {n}" -o m.yaml
expect_error threads "names the input file './elapsed.sh'" "${thr[@]}" --command "./elapsed.sh {n}" -o elapsed.sh
expect_error threads "names the input file 'arg.txt'" "${thr[@]}" --command "sh hang.sh {n} arg.txt" -o arg.txt

# One --timeout rule; bad numbers refused in one line, before anything starts.
for bad in -1 nan inf 1e300; do
    expect_error profile "field '--timeout': expected seconds from 0 (no limit)" "${prof[@]:1}" --timeout "$bad" \
        -o p.json -- ./ok.sh
    expect_error threads "field '--timeout': expected seconds from 0 (no limit)" "${thr[@]}" --timeout "$bad" \
        --command "sh ok.sh {n}"
    expect_error stencil "field '--timeout': expected seconds from 0 (no limit)" --kernel jacobi7 --grid 16x16x16 \
        --no-machine --timeout "$bad"
done
expect_error profile "field '--param': 'n' is given twice (1 and 2)" "${prof[@]:1}" --param n=1 --param n=2 \
    -o p.json -- ./ok.sh
for bad in inf nan 0 -1 1e300; do
    expect_error threads "field '--bytes-per-n': expected a positive finite number" "${thr[@]}" \
        --command "sh ok.sh {n}" --bytes-per-n "$bad"
done
expect_error threads "1 line(s) longer than 4096 characters were not searched" "${thr[@]}" \
    --command "sh digits.sh {n}" --time-regex 'elapsed ([0-9.]+)'
expect_error threads "expected a regular expression of at most 1000 characters" "${thr[@]}" \
    --command "sh ok.sh {n}" --time-regex "$(printf 'a%.0s' $(seq 1001))"
t1=$(date +%s)
[[ $((t1 - t0)) -lt 60 ]] || { echo "the checks took $((t1 - t0)) s: something ran first"; fail=1; }

# A time limit stops the program and the process it started, in about the limit.
t0=$(date +%s)
expect_error profile "did not finish within 1 s (--timeout)" "${prof[@]:1}" --timeout 1 -o p.json -- ./hang.sh
t1=$(date +%s)
[[ $((t1 - t0)) -lt 15 ]] || { echo "profile --timeout 1 took $((t1 - t0)) s"; fail=1; }
sleep 0.5
for f in hang.sh.pid hang.sh.kid; do
    [[ -s $f ]] || { echo "hang.sh did not start ($f)"; fail=1; continue; }
    # Running, not a zombie the container's init has yet to reap.
    if kill -0 "$(cat "$f")" 2>/dev/null && [[ $(awk '{print $3}' "/proc/$(cat "$f")/stat" 2>/dev/null) != Z ]]; then
        echo "a process of hang.sh ($f) outlived the time limit"
        kill -9 "$(cat "$f")"
        fail=1
    fi
done
[[ -e p.json ]] && { echo "a profile was written by a run past its time limit"; fail=1; }

# Written profiles read back: values out of range become NaN with one warning per metric, names escaped.
"$roofcast" profile -o t.json --import-tau tau >out.txt 2>err.txt || { echo "TAU import failed: $(cat err.txt)"; fail=1; }
"$roofcast" validate t.json >/dev/null 2>&1 || { echo "validate refuses the imported profile"; fail=1; }
grep -q "wall time inf s is outside" err.txt || { echo "no warning on the infinite wall time: $(cat err.txt)"; fail=1; }
grep -q "2 value(s) of 'time' in 2 function(s)/region(s) outside" err.txt ||
    { echo "no summary of the values out of range: $(cat err.txt)"; fail=1; }
python3 -c "import sys; sys.exit(any(b == 0x1b for b in open(sys.argv[1], 'rb').read()))" err.txt ||
    { echo "a raw escape reached the terminal"; fail=1; }
mkdir tauloop && ln -s profile.0.0.0 tauloop/profile.0.0.0
expect_error profile "tauloop/profile.0.0.0: cannot read the TAU directory: Too many levels of symbolic links" \
    -o t2.json --import-tau tauloop

[[ $(sums) == "$before" ]] || { echo "an input changed"; fail=1; }
[[ $fail -eq 0 ]] && echo ok
end_test
