#!/usr/bin/env bash
# Fuzzes every reader with libFuzzer: builds the `fuzz` preset (clang, ASan+UBSan), seeds each target's
# corpus from the shipped data and test fixtures (and ../shared's host files when present), runs each
# target for SECONDS (default 60), and prints executions, coverage and findings per target. Crashing
# inputs are written to build/fuzz/findings/<reader>/; copy them to fuzz/regressions/<reader>/ once the
# bug is fixed, where CTest replays them forever.
# libFuzzer's timeout is wall-clock time, so on a loaded host a starved run can exceed it: every timeout
# input is replayed alone, and one that then answers within the limit of CPU time is set aside in
# build/fuzz/slow/<reader>/ and counted as "slow under load", not as a finding.
#   bash scripts/fuzz.sh [SECONDS] [READER...]
#   FUZZ_TIMEOUT=S (default 1): seconds one input may take
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
limit=${FUZZ_TIMEOUT:-1}
shift || true
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)" >/dev/null
shared=../shared/data

seeds() { # the seed files of one reader
    case $1 in
    machine) ls data/machines/*.yaml tests/report/data/machine.yaml "$shared"/hosts/*/machine.yaml 2>/dev/null ;;
    kernel) ls data/kernels/*.yaml ;;
    results) ls tests/report/data/*.json "$shared"/hosts/*/results.json 2>/dev/null ;;
    profile | profile_v2) ls data/profiles/*.json ;;
    cachegrind | perf_report | tau | marker | threads) ls fuzz/seeds/"$1"/* 2>/dev/null ;;
    likwid) ls tests/measure/data/likwid/*.csv ;;
    cube) ls tests/measure/data/cube/*.cubex ;;
    cube_experiments) ls fuzz/seeds/cube_experiments/* ;;
    callgrind) ls fuzz/seeds/callgrind/* tests/measure/data/callgrind/*.callgrind ;;
    extrap_text) ls fuzz/seeds/extrap_text/* "$shared"/*.txt 2>/dev/null ;;
    extrap_json) ls fuzz/seeds/extrap_json/* 2>/dev/null ;;
    csv) ls data/profiles/*.csv ;;
    objdump) ls tests/measure/data/disasm/*.objdump tests/measure/data/instruction_work/*.objdump ;;
    esac
}

readers=("$@")
if [[ ${#readers[@]} -eq 0 ]]; then
    for f in fuzz/fuzz_*.cpp; do r=${f#fuzz/fuzz_}; readers+=("${r%.cpp}"); done
fi
echo "fuzz: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), ${seconds} s per reader"
printf '%-12s %12s %8s %8s %9s %6s\n' reader executions cov ft findings slow
status=0
for r in "${readers[@]}"; do
    corpus=build/fuzz/corpus/$r
    findings=build/fuzz/findings/$r
    mkdir -p "$corpus" "$findings"
    for s in $(seeds "$r") fuzz/regressions/"$r"/*; do [[ -f $s ]] && cp "$s" "$corpus/" ; done
    log=build/fuzz/$r.log
    : >"$log"
    execs=0 slow=0 rc=0
    deadline=$((SECONDS + seconds))
    # Runs until the time is spent; a run stopped by a timeout that replays within the limit (slow under
    # load, not a hang) resumes on the grown corpus.
    while ((deadline - SECONDS > 0)); do
        rc=0
        # -timeout: an input that takes over $limit s is a hang; -rss_limit_mb: unbounded growth is a finding.
        "build/fuzz/fuzz/fuzz_$r" "$corpus" -max_total_time=$((deadline - SECONDS)) -timeout="$limit" \
            -rss_limit_mb=2048 -max_len=65536 -artifact_prefix="$findings/" -print_final_stats=1 \
            >"$log.run" 2>&1 || rc=$?
        cat "$log.run" >>"$log"
        n=$(grep -m1 "^stat::number_of_executed_units" "$log.run" | awk '{print $2}' || true)
        execs=$((execs + ${n:-0}))
        ((rc != 0)) || break
        resumed=0
        for t in "$findings"/timeout-*; do
            [[ -f $t ]] || continue
            # CPU time, not wall time: a replay on a loaded host waits for a core as the run did.
            cpu=$({
                TIMEFORMAT='%3U %3S'
                time timeout $((limit * 30)) "build/fuzz/fuzz/fuzz_$r" "$t" >/dev/null 2>&1
            } 2>&1) || continue
            ms=$(awk '{printf "%d", ($1 + $2) * 1000}' <<<"$cpu")
            ((ms < limit * 1000)) || continue
            mkdir -p "build/fuzz/slow/$r"
            mv "$t" "build/fuzz/slow/$r/"
            echo "$r: $(basename "$t") timed out under load but replays in $ms ms of CPU time: not a hang"
            slow=$((slow + 1))
            resumed=1
        done
        [[ $(find "$findings" -type f | wc -l) -eq 0 && $resumed -eq 1 ]] || break
        rc=0
    done
    rm -f "$log.run"
    last=$(grep -E "^#[0-9]+" "$log" | tail -1 || true)
    cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$last")
    nfind=$(find "$findings" -type f | wc -l)
    printf '%-12s %12s %8s %8s %9s %6s\n' "$r" "$execs" "${cov:-?}" "${ft:-?}" "$nfind" "$slow"
    if ((nfind > 0)); then
        status=1
        grep -m3 -E 'ERROR|SUMMARY' "$log" || true
    elif ((rc != 0)); then
        status=1
        echo "$r: the fuzzer exited with $rc and left no input (see $log)"
    fi
done
exit $status
