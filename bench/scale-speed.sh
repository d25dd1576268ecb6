#!/usr/bin/env bash
# Speed of `roofcast scale`: fits FUNCTIONS call paths x 5 points (cores = 8..128) with every
# candidate model (PMNF terms, four families, exponential by Levenberg–Marquardt) and prints the
# fitting time reported by the tool plus the end-to-end wall time. Not a test: it prints figures.
# On a shared machine the wall time depends on the load; the CPU time shows the work itself.
# Usage: bash bench/scale-speed.sh [path/to/roofcast] [FUNCTIONS]   (default 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/release/roofcast}
n=${2:-100000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Synthetic profiles: six shapes (constant, linear, x·log2 x, sqrt, 1/x strong scaling, a·b^-x + c)
# with +-2 % deterministic pseudo-noise (a linear congruential generator inside awk).
awk -v n="$n" 'BEGIN {
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
}' > "$tmp/profiles.csv"
echo "data set: $n call paths x 5 points ($(wc -l < "$tmp/profiles.csv") CSV lines), $(nproc) cores"
start=$(date +%s.%N)
/usr/bin/time -f "process CPU time: %U s user + %S s system (wall %e s); machine load before: $(cut -d' ' -f1 /proc/loadavg)" \
    "$bin" scale "$tmp/profiles.csv" --predict 1024 --csv > "$tmp/out.csv" 2> "$tmp/err.txt"
end=$(date +%s.%N)
cat "$tmp/err.txt"
awk -v s="$start" -v e="$end" 'BEGIN { printf "end to end (read CSV, fit, predict, write CSV): %.2f s\n", e - s }'
echo "families chosen:"
tail -n +2 "$tmp/out.csv" | awk -F, '{ print $3 }' | sort | uniq -c | sort -rn
