#!/usr/bin/env bash
# The rank forecast of a domain-decomposed MPI program whose process grid changes shape with the rank count
# (prints figures; not a test):
#   bash bench/profile-grid.sh [build dir] -- PROGRAM ARGS...
# Profiles PROGRAM (any MPI program; HPCG is the one docs/benchmarks.md quotes) with the cachegrind backend at
# RANKS ranks and at TARGET ranks, then forecasts TARGET from the small runs with `roofcast scale --evaluate`
# twice: with the smooth candidates alone and with `--grid GRID` (its halo terms, docs/models.md). Per metric it
# prints the mean |error| over the program's own functions (kind "function": defined in its binary) holding
# >= 0.1 % of the metric at the target, the largest error among those holding >= 10 % of it, and the mean over
# shared libraries' functions (kind "library", the MPI library and the C library) holding >= 1 %, kept apart.
# Each run's processor time is printed with the counts: the counts are simulated and do not depend on the
# load.
# Env: RANKS (default "1 2 4 8"), TARGET (16), GRID (3), GRID_SHAPES (e.g. "16=4x2x2", passed as --grid-shape),
#      GRID_DOMAIN (e.g. "64x32x32", passed as --grid-domain),
#      RANK_ARGS (arguments per rank count, replacing ARGS: "1:--nx=64 --ny=32;2:--nx=32 --ny=32", for a fixed
#      global problem when the program takes its size per rank, as HPCG does),
#      ROOFCAST_MACHINE (machine file for the cache geometry), OUT (keep the profiles there; REUSE=1 reuses them).
set -euo pipefail
source "$(dirname "$0")/lib/host.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-$here/build/release}")
shift || true
[[ "${1:-}" == "--" ]] && shift
[[ $# -gt 0 ]] || { echo "usage: bash bench/profile-grid.sh [build dir] -- PROGRAM ARGS..." >&2; exit 2; }
program=$(realpath "$(command -v "$1")")
shift
bin=$build/roofcast
out=${OUT:-$(mktemp -d)}
mkdir -p "$out/run"
command -v mpirun >/dev/null || { echo "needs mpirun (Open MPI)"; exit 1; }
command -v valgrind >/dev/null || { echo "needs valgrind (cachegrind backend)"; exit 1; }
machine_opt=()
[[ -n "${ROOFCAST_MACHINE:-}" ]] && machine_opt=(--machine "$ROOFCAST_MACHINE")
ranks=${RANKS:-"1 2 4 8"}
target=${TARGET:-16}
grid=${GRID:-3}
shape_opt=()
for s in ${GRID_SHAPES:-}; do shape_opt+=(--grid-shape "$s"); done
[[ -n "${GRID_DOMAIN:-}" ]] && shape_opt+=(--grid-domain "$GRID_DOMAIN")
host_line
echo "program: $program $*"

declare -A rank_args=()
IFS=';' read -ra specs <<< "${RANK_ARGS:-}"
for spec in "${specs[@]}"; do [[ $spec == *:* ]] && rank_args[${spec%%:*}]=${spec#*:}; done

profile() { # ranks ARGS...
    local r=$1 file=$out/r$1.json
    shift
    # shellcheck disable=SC2206 # the per-rank arguments are words
    [[ -n ${rank_args[$r]:-} ]] && set -- ${rank_args[$r]}
    [[ -n "${REUSE:-}" && -s $file ]] && return 0
    echo "  $r ranks: $program $*"
    (cd "$out/run" && "$bin" profile --backend cachegrind --ranks "$r" "${machine_opt[@]}" -o "$file" -- \
        "$program" "$@") > "$file.log" 2>&1 || { echo "profile at $r ranks failed: $(tail -1 "$file.log")"; exit 1; }
}
small=()
for r in $ranks; do
    profile "$r" "$@"
    small+=("$out/r$r.json")
done
profile "$target" "$@"

summary() { # label scale-json
    python3 - "$1" "$2" "$out/r$target.json" <<'PY'
import json, math, sys
label, ev_file, target_file = sys.argv[1:4]
doc = json.load(open(ev_file))
kind = {f["function"]: f.get("kind") or "function" for f in doc["functions"]}
target = json.load(open(target_file))
value = {}
for f in target["functions"]:
    for m, v in f["metrics"].items():
        rows = v.get("per_rank") or [v.get("repetitions", [])]
        value[(f["name"], m)] = sum(rows[0]) if rows and isinstance(rows[0], list) else sum(rows)
print(f"{label}:")
for metric in ("INS", "L1_DCM", "LL_DCM", "bytes_L1"):
    rows = [r for r in doc["evaluation"]["rows"] if r["metric"] == metric and r["relative_error"] is not None]
    if not rows:
        continue
    own_total = sum(value.get((r["function"], metric), 0) for r in rows if kind.get(r["function"]) == "function")
    all_total = sum(value.get((r["function"], metric), 0) for r in rows)
    own = [r for r in rows if kind.get(r["function"]) == "function"
           and value.get((r["function"], metric), 0) >= 0.001 * own_total]
    big = [r for r in own if value.get((r["function"], metric), 0) >= 0.10 * own_total]
    lib = [r for r in rows if kind.get(r["function"]) == "library"
           and value.get((r["function"], metric), 0) >= 0.01 * all_total]
    mean = lambda rs: 100 * sum(abs(r["relative_error"]) for r in rs) / len(rs) if rs else math.nan
    worst = max(big, key=lambda r: abs(r["relative_error"]), default=None)
    print(f"  {metric:8s} own functions: mean |error| {mean(own):5.1f} % over {len(own)}; "
          f"largest among those with >= 10 %: " +
          (f"{100 * abs(worst['relative_error']):.1f} % ({worst['function'][:40]})" if worst else "none") +
          f"; libraries: {mean(lib):5.1f} % over {len(lib)}")
PY
}
"$bin" scale "${small[@]}" --evaluate "$out/r$target.json" --json > "$out/smooth.json" 2> "$out/smooth.log"
"$bin" scale "${small[@]}" --evaluate "$out/r$target.json" --grid "$grid" "${shape_opt[@]}" --json \
    > "$out/grid.json" 2> "$out/grid.log"
grep "process grid" "$out/grid.log" || true
for r in $ranks $target; do
    python3 - "$out/r$r.json" "$r" <<'PY'
import json, sys
run = json.load(open(sys.argv[1])).get("run", {})
print(f"  {sys.argv[2]:>3} ranks: {run.get('cpu_seconds', float('nan')):.1f} CPU-s under cachegrind")
PY
done
summary "ranks ${ranks// /, } -> $target, smooth candidates" "$out/smooth.json"
summary "ranks ${ranks// /, } -> $target, with --grid $grid ${shape_opt[*]}" "$out/grid.json"
echo "profiles and forecasts: $out"
