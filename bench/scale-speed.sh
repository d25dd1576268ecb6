#!/usr/bin/env bash
# Speed of `roofcast scale`: fits FUNCTIONS call paths x 5 points (cores = 8..128) with every
# candidate model (PMNF terms, four families, exponential by Levenberg–Marquardt) and prints, for the
# machine it ran on (CPU model, cores, load), the phases the tool reports (reading with its rate, fitting,
# writing with its rate), the end-to-end wall time, the process's CPU time and its peak resident memory:
#   1. CSV in, CSV out (--predict 1024): the whole run;
#   2. the same data set as Extra-P text in: the Extra-P reader's rate;
#   3. JSON out for the first 100,000 call paths (at most): the JSON writer's rate.
# Not a test: it prints figures. On a shared machine the wall time depends on the load; the CPU time
# shows the work itself.
# Usage: bash bench/scale-speed.sh [path/to/roofcast] [FUNCTIONS]   (default 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/release/roofcast}
n=${2:-100000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Synthetic profiles: six shapes (constant, linear, x·log2 x, sqrt, 1/x strong scaling, a·b^-x + c)
# with +-2 % deterministic pseudo-noise (a linear congruential generator inside awk).
generate() {
    awk -v n="$1" 'BEGIN {
      print "function,metric,cores,value"; seed = 12345
      for (f = 0; f < n; f++) {
        shape = f % 6; a = 1 + (f % 97); b = 0.5 + (f % 13) / 10
        for (k = 3; k <= 7; k++) {
          x = 2 ^ k
          if (shape == 0) y = a
          else if (shape == 1) y = a + b * x
          else if (shape == 2) y = a + b * x * log(x) / log(2)
          else if (shape == 3) y = a + b * sqrt(x)
          else if (shape == 4) y = a + 1000 * b / x
          else y = a * 1.05 ^ (-x) + b
          seed = (seed * 1103515245 + 12345) % 2147483648
          y = y * (1 + 0.04 * (seed / 2147483648 - 0.5))
          printf "main->f%d,time,%d,%.9g\n", f, x, y
        }
      }
    }'
}
generate "$n" >"$tmp/profiles.csv"
# The same rows as Extra-P text: one REGION per call path, one DATA line per point (the rows of a call
# path follow each other, points in order).
awk -F, 'NR == 1 { next }
         NR == 2 { print "PARAMETER cores\nPOINTS 8 16 32 64 128\nMETRIC time" }
         $1 != last { print "REGION " $1; last = $1 }
         { print "DATA " $4 }' "$tmp/profiles.csv" >"$tmp/profiles.txt"

cpu=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
echo "machine: ${cpu:-unknown CPU}, $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)"
echo "data set: $n call paths x 5 points ($(wc -l <"$tmp/profiles.csv") CSV lines, $(du -m "$tmp/profiles.csv" | cut -f1) MB)"

# Runs roofcast scale with the arguments given, its output to the file named first; prints the tool's
# phases, then the process's wall and CPU time and peak resident memory (GNU time's %M, in KiB).
run() {
    local label=$1 out=$2
    shift 2
    echo "$label (load before: $(cut -d' ' -f1 /proc/loadavg)):"
    /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$bin" scale "$@" >"$out" 2>"$tmp/err" ||
        { cat "$tmp/err"; exit 1; }
    sed 's/^roofcast scale: /  /' "$tmp/err"
    read -r wall user sys rss <"$tmp/time"
    awk -v w="$wall" -v u="$user" -v s="$sys" -v m="$rss" 'BEGIN {
        printf "  end to end %.2f s wall, CPU %.2f s (%.2f user + %.2f system), peak resident %.0f MiB\n",
               w, u + s, u, s, m / 1024 }'
}
run "1. CSV in, CSV out" "$tmp/out" "$tmp/profiles.csv" --predict 1024 --csv
echo "  families chosen:"
tail -n +2 "$tmp/out" | awk -F, '{ print $3 }' | sort | uniq -c | sort -rn | sed 's/^/  /'
run "2. Extra-P text in, CSV out" /dev/null "$tmp/profiles.txt" --predict 1024 --csv
m=$((n < 100000 ? n : 100000))
head -n $((5 * m + 1)) "$tmp/profiles.csv" >"$tmp/json-input.csv"
run "3. JSON out ($m call paths)" /dev/null "$tmp/json-input.csv" --predict 1024 --json
