# Helpers of the end-to-end tests that kill a command while it runs (output_safety.sh,
# machine_output_safety.sh); sourced after lib/setup.sh.
#   ms_of CMD...            milliseconds CMD takes to run (its output and status ignored)
#   random_sleep MS [FROM]  sleeps a random time from FROM (default 0) to 1.2 x MS milliseconds, so that kills
#                           land before, during and after the work of a run that takes MS
ms_of() {
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}
random_sleep() {
    local top=$(($1 * 12 / 10)) from=${2:-0}
    ((from > top)) && from=$top
    local ms=$((from + RANDOM % (top - from + 1)))
    sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
}
