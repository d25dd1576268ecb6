#!/usr/bin/env bash
# The forecast experiment of `roofcast profile` + `roofcast scale` (prints figures; not a test).
#   bash bench/profile-forecast.sh [build dir] [-- PROGRAM ARGS...]
# For each example app (roofcast-example-cg, roofcast-example-stencil) and the program given after `--`:
#  - towards ranks: profile with the cachegrind backend at 1, 2, 4, 8 ranks (fixed problem), forecast 16 and
#    32 ranks with `roofcast scale --evaluate`, profile 16 and 32, and print per function the forecast, the
#    measured value and the relative error of L1_DCM and INS, their mean over functions, and the
#    profiling-cost ratio (CPU-seconds of the small runs over those of the target run);
#    With a fixed problem (strong scaling) every small run does the whole problem's work, so this ratio
#    cannot fall below about (work of 4 runs) / (work of 1): it shows what the forecast costs, not a saving;
#  - towards problem size: the same at 2 ranks over four small sizes and one larger target, whose
#    iterations make it a production-like run (cg 50, stencil 250: a stencil sweep is ~8x cheaper than a
#    CG iteration); every rank's start-up under valgrind (1.2-1.7 CPU-s) is a fixed cost the small runs
#    pay too, so the ratio falls as the target's own work grows; with four sizes or more the same target is
#    also forecast from the three smallest only (the seed's cheaper design: a third less cost, no two-term fit);
#  - towards ranks and size together (parameters ranks and size, Extra-P's two-parameter models): small
#    runs on a cross of 1, 2, 4 ranks at the smallest size and the four small sizes at one rank, plus the
#    corner (4 ranks, largest small size) that separates additive from multiplicative terms; target
#    BOTH_RANKS ranks (default 32) at SIZE_TARGET with the size experiment's iterations: the question
#    "what will it cost at 32 ranks at the production size", which a fixed-problem rank study cannot
#    answer cheaply.
# Functions: those of the program itself (defined in its binary, `nm -C`) with at least 0.1 % of its
# instructions at the target; a second line gives the mean over every function with >= 1 % of all
# instructions, which on these small problems is dominated by MPI start-up (ld.so, getenv, Open MPI). Counts are
# simulated, so oversubscribed ranks are fine; the costs are each run's processor time (`run.cpu_seconds`; wall
# time x min(ranks, cores) for profiles that lack it), which waiting for a core does not inflate.
# Env: ROOFCAST_MACHINE (machine file for the cache geometry; default hwloc's reported sizes),
#      EXPERIMENTS ("ranks size both", default all three), REUSE=1 (keep existing profiles in ROOFCAST_FORECAST_DIR), N_RANKS / ITERS (problem of the rank experiment, default 64 / 10), SIZES / SIZE_TARGET / SIZE_ITERS (size
#      experiment, default "48 56 64 72" / 256 / per app as above).
set -euo pipefail
source "$(dirname "$0")/lib/host.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-$here/build/release}")
shift || true
[[ "${1:-}" == "--" ]] && shift
extra=("$@")
bin=$build/roofcast
out=${ROOFCAST_FORECAST_DIR:-$(mktemp -d)}
mkdir -p "$out"
cores=$(nproc)
host_line
command -v mpirun >/dev/null || { echo "needs mpirun (Open MPI)"; exit 1; }
command -v valgrind >/dev/null || { echo "needs valgrind (cachegrind backend)"; exit 1; }
machine_opt=()
[[ -n "${ROOFCAST_MACHINE:-}" ]] && machine_opt=(--machine "$ROOFCAST_MACHINE")
n_ranks=${N_RANKS:-64}
iters=${ITERS:-10}
sizes=${SIZES:-"48 56 64 72"}
size_target=${SIZE_TARGET:-256}
declare -A size_iters=([cg]=${SIZE_ITERS:-50} [stencil]=${SIZE_ITERS:-250})
experiments=" ${EXPERIMENTS:-ranks size both} "

profile() { # ranks "name=value ..." outfile command...
    local ranks=$1 file=$3 pargs=()
    for kv in $2; do pargs+=(--param "$kv"); done
    shift 3
    [[ -n "${REUSE:-}" && -s $file ]] && return 0 # REUSE=1: keep profiles of an earlier run in the same dir
    "$bin" profile --backend cachegrind --ranks "$ranks" "${pargs[@]}" "${machine_opt[@]}" -o "$file" -- "$@" \
        > "$file.log" 2>&1 || { echo "profile failed: $(tail -1 "$file.log")"; exit 1; }
}

evaluate() { # label program target_file small_files...
    local label=$1 program=$2 target=$3
    shift 3
    nm -C --defined-only "$program" | sed -E 's/^[0-9a-f]+ [A-Za-z] //' > "$out/symbols-$label.txt"
    local json=$out/eval-$label.json
    "$bin" scale "$@" --evaluate "$target" --json > "$json" 2> "$json.log" || { echo "scale failed: $(tail -1 "$json.log")"; exit 1; }
    python3 - "$json" "$target" "$cores" "$out/symbols-$label.txt" "$@" <<'PY'
import json, sys
ev_file, target_file, cores, symfile, small = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:]
own = set(l.rstrip("\n") for l in open(symfile))
ev = json.load(open(ev_file))["evaluation"]
target = json.load(open(target_file))
ins = {f["name"]: sum(f["metrics"]["INS"]["per_rank"][0]) for f in target["functions"] if "INS" in f["metrics"]}
total = sum(ins.values())
big = {n for n, v in ins.items() if v >= 0.01 * total}
own_total = sum(v for n, v in ins.items() if n in own)
keep = {n for n, v in ins.items() if n in own and v >= 0.001 * own_total}
rows = [r for r in ev["rows"] if r["function"] in keep and r["metric"] in ("L1_DCM", "INS")]
big_errs = {m: [abs(r["relative_error"]) for r in ev["rows"] if r["function"] in big and r["metric"] == m
                and r["relative_error"] is not None] for m in ("L1_DCM", "INS")}
print(f"  {'function':<44} {'metric':<7} {'forecast':>12} {'measured':>12} {'rel. error':>10}")
errs = {"L1_DCM": [], "INS": []}
for r in sorted(rows, key=lambda r: (r["metric"], -r["measured"])):
    name = r["function"] if len(r["function"]) <= 44 else r["function"][:41] + "..."
    e = r["relative_error"]
    pred = r["predicted"]["value"] if isinstance(r["predicted"], dict) else r["predicted"]
    print(f"  {name:<44} {r['metric']:<7} {pred:>12.4g} {r['measured']:>12.4g} {e * 100 if e is not None else float('nan'):>9.1f} %")
    if e is not None:
        errs[r["metric"]].append(abs(e))
def cpu_s(f): # processor time of the run's process tree; older profiles: wall x the cores it could use
    d = json.load(open(f))
    return d["run"].get("cpu_seconds", d["run"]["wall_seconds"] * min(d["run"]["ranks"], cores))
small_cost = sum(cpu_s(f) for f in small)
target_cost = cpu_s(target_file)
for m, e in errs.items():
    if e:
        print(f"  mean |error| {m}: {100 * sum(e) / len(e):.1f} % over {len(e)} functions")
print(f"  functions: {len(keep)} of the program's own ({100 * own_total / total:.1f} % of all instructions at the target)")
for m, e in big_errs.items():
    if e:
        print(f"  (every function >= 1 % of all instructions, {len(e)}: mean |error| {m} {100 * sum(e) / len(e):.1f} %)")
print(f"  profiling cost: small runs {small_cost:.1f} CPU-s, target {target_cost:.1f} CPU-s, ratio {100 * small_cost / target_cost:.1f} %")
PY
}

apps=()
for a in cg stencil; do
    [[ -x $build/roofcast-example-$a ]] && apps+=("$a")
done
[[ ${#apps[@]} -eq 0 && ${#extra[@]} -eq 0 ]] && { echo "no example apps in $build and no program given"; exit 1; }

run_app() { # label size-experiment-iterations command-with-@N@-(size)-and-@I@-(iterations)-placeholders...
    local label=$1 s_iters=$2
    shift 2
    local cmd=("${@//@I@/$iters}") s_cmd=("${@//@I@/$s_iters}")
    if [[ $experiments == *" ranks "* ]]; then
        echo
        echo "== $label: towards ranks (size ${n_ranks}, ${iters} iterations): 1,2,4,8 -> 16, 32"
        local subst=("${cmd[@]//@N@/$n_ranks}")
        for r in 1 2 4 8 16 32; do
            profile "$r" "ranks=$r" "$out/$label-r$r.json" "${subst[@]}"
        done
        for t in 16 32; do
            echo " target $t ranks:"
            evaluate "$label-r$t" "${cmd[0]}" "$out/$label-r$t.json" "$out/$label"-r{1,2,4,8}.json
        done
        echo " (a fixed problem: each small run does all of its work, so the cost ratio stays high; see docs/profile.md)"
    fi
    if [[ $experiments == *" size "* ]]; then
        echo
        echo "== $label: towards size (2 ranks${s_iters:+, $s_iters iterations}): ${sizes} -> ${size_target}"
        local files=()
        for s in $sizes $size_target; do
            profile 2 "size=$s" "$out/$label-s$s.json" "${s_cmd[@]//@N@/$s}"
            [[ $s != "$size_target" ]] && files+=("$out/$label-s$s.json")
        done
        echo " target size $size_target:"
        evaluate "$label-s$size_target" "${cmd[0]}" "$out/$label-s$size_target.json" "${files[@]}"
        if [[ ${#files[@]} -ge 4 ]]; then # the cheaper design the seed allows: the three smallest sizes only
            echo " target size $size_target from the three smallest sizes only ($(echo $sizes | cut -d' ' -f1-3)):"
            evaluate "$label-s$size_target-3" "${cmd[0]}" "$out/$label-s$size_target.json" "${files[@]:0:3}"
        fi
    fi
    [[ $experiments == *" both "* ]] || return 0
    local sz=($sizes) both=${BOTH_RANKS:-32} files=()
    echo
    echo "== $label: towards ranks and size (${s_iters:+$s_iters iterations; }small: ranks 1,2,4 at size ${sz[0]}, sizes ${sizes} at 1 rank, 4 ranks at size ${sz[-1]}) -> $both ranks at size $size_target"
    local points=("1 ${sz[0]}" "2 ${sz[0]}" "4 ${sz[0]}" "4 ${sz[-1]}")
    for s in "${sz[@]:1}"; do points+=("1 $s"); done
    for pt in "${points[@]}" "$both $size_target"; do
        read -r r s <<< "$pt"
        profile "$r" "ranks=$r size=$s" "$out/$label-b$r-$s.json" "${s_cmd[@]//@N@/$s}"
        [[ "$pt" != "$both $size_target" ]] && files+=("$out/$label-b$r-$s.json")
    done
    echo " target $both ranks, size $size_target:"
    evaluate "$label-b$both-$size_target" "${cmd[0]}" "$out/$label-b$both-$size_target.json" "${files[@]}"
}

start=$(date +%s)
for a in "${apps[@]}"; do
    run_app "$a" "${size_iters[$a]}" "$build/roofcast-example-$a" --n @N@ --iters @I@
done
if [[ ${#extra[@]} -gt 0 ]]; then
    run_app "$(basename "${extra[0]}")" "" "${extra[@]}"
fi
echo
echo "total $(($(date +%s) - start)) s; profiles in $out"
