#!/usr/bin/env bash
# Extrapolation accuracy of the selection rules of `roofcast scale`: synthetic call paths of six shapes
# measured at cores = 8..128 (3 repetitions, +-3 % pseudo-noise), predicted at 1024 cores and compared
# with the noise-free truth there. Prints the mean relative error and interval coverage per rule.
# Usage: bash bench/scale-accuracy.sh [path/to/roofcast] [FUNCTIONS]   (default 3000)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/release/roofcast}
n=${2:-3000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gen() { # $1 = "small" or "target"
  awk -v n="$n" -v mode="$1" 'function truth(shape, a, b, x) {
      if (shape == 0) return a
      if (shape == 1) return a + b * x
      if (shape == 2) return a + b * x * log(x) / log(2)
      if (shape == 3) return a + b * sqrt(x)
      if (shape == 4) return a + 1000 * b / x
      return a * 1.05 ^ (-x) + b
    }
    BEGIN {
      print "function,metric,cores,value"; seed = 777
      for (f = 0; f < n; f++) {
        shape = f % 6; a = 1 + (f % 97); b = 0.5 + (f % 13) / 10
        if (mode == "target") { printf "f%d,time,1024,%.9g\n", f, truth(shape, a, b, 1024); continue }
        for (k = 3; k <= 7; k++)
          for (r = 0; r < 3; r++) {
            seed = (seed * 1103515245 + 12345) % 2147483648
            printf "f%d,time,%d,%.9g\n", f, 2 ^ k, truth(shape, a, b, 2 ^ k) * (1 + 0.06 * (seed / 2147483648 - 0.5))
          }
      }
    }'
}
gen small > "$tmp/small.csv"
gen target > "$tmp/target.csv"
echo "$n call paths, 6 shapes, cores 8..128 x 3 repetitions (+-3 % noise), predicted at 1024"
for sel in forecast loo mape; do
  line=$("$bin" scale "$tmp/small.csv" --select "$sel" --evaluate "$tmp/target.csv" 2>/dev/null | grep '^mean relative error')
  echo "--select $sel: $line"
done
