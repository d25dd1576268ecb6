#!/usr/bin/env bash
# Fuzzes every reader with libFuzzer: builds the `fuzz` preset (clang, ASan+UBSan), seeds each target's
# corpus from the shipped data and test fixtures (and ../shared's host files when present), runs each
# target for SECONDS (default 60), and prints executions, coverage and findings per target. Crashing
# inputs are written to build/fuzz/findings/<reader>/; copy them to fuzz/regressions/<reader>/ once the
# bug is fixed, where CTest replays them forever.
#   bash scripts/fuzz.sh [SECONDS] [READER...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
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
    cachegrind | perf_report | tau | marker) ls fuzz/seeds/"$1"/* 2>/dev/null ;;
    extrap_text) ls "$shared"/*.txt 2>/dev/null ;;
    extrap_json) ls fuzz/seeds/extrap_json/* 2>/dev/null ;;
    csv) ls data/profiles/*.csv ;;
    objdump) ls tests/measure/data/disasm/*.objdump ;;
    esac
}

readers=("$@")
if [[ ${#readers[@]} -eq 0 ]]; then
    for f in fuzz/fuzz_*.cpp; do r=${f#fuzz/fuzz_}; readers+=("${r%.cpp}"); done
fi
echo "fuzz: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), ${seconds} s per reader"
printf '%-12s %12s %8s %8s %9s\n' reader executions cov ft findings
status=0
for r in "${readers[@]}"; do
    corpus=build/fuzz/corpus/$r
    findings=build/fuzz/findings/$r
    mkdir -p "$corpus" "$findings"
    for s in $(seeds "$r") fuzz/regressions/"$r"/*; do [[ -f $s ]] && cp "$s" "$corpus/" ; done
    log=build/fuzz/$r.log
    # -timeout: an input that takes over a second is a hang; -rss_limit_mb: unbounded growth is a finding.
    if ! "build/fuzz/fuzz/fuzz_$r" "$corpus" -max_total_time="$seconds" -timeout=1 -rss_limit_mb=2048 \
        -max_len=65536 -artifact_prefix="$findings/" -print_final_stats=1 >"$log" 2>&1; then
        status=1
    fi
    execs=$(grep -m1 "^stat::number_of_executed_units" "$log" | awk "{print \$2}" || true)
    last=$(grep -E "^#[0-9]+" "$log" | tail -1 || true)
    cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$last")
    nfind=$(find "$findings" -type f | wc -l)
    printf '%-12s %12s %8s %8s %9s\n' "$r" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$nfind"
    if [[ $nfind -gt 0 ]]; then status=1; grep -m3 -E 'ERROR|SUMMARY' "$log" || true; fi
done
exit $status
