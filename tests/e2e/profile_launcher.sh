#!/usr/bin/env bash
# End-to-end test of `--launcher`: `roofcast profile --ranks 2` and `roofcast stencil` started through a
# cluster's launcher instead of mpirun. The launcher here is a stand-in for Slurm's srun (tests/e2e/data/
# fake-srun.sh: it starts -n N copies with SLURM_PROCID and SLURM_NTASKS set, as srun does), so the test
# needs no Slurm; the program under profile is a plain C program that reads its rank as the marker library does.
# Usage: bash profile_launcher.sh <roofcast binary> <source dir>
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v cc >/dev/null || { echo "SKIP: no C compiler (cc)"; exit 77; }
cc -O1 -g -march=x86-64-v2 -o "$tmp/app" "$src/tests/e2e/data/profile_app.c"
mkdir -p "$tmp/bin"
cp "$src/tests/e2e/data/fake-srun.sh" "$tmp/bin/srun"
chmod +x "$tmp/bin/srun"

# profile --ranks 2 through "srun -N 1": two ranks, each with its own marker regions and per-rank figures.
PATH="$tmp/bin:$PATH" "$bin" profile --backend time --ranks 2 --launcher "srun -N 1" -o "$tmp/s2.json" \
    -- "$tmp/app" 100000 >"$tmp/s2.log" 2>&1 || fail "profile through srun: $(cat "$tmp/s2.log")"
python3 - "$tmp/s2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["run"]["ranks"] == 2 and d["parameters"] == {"ranks": 2}, d["run"]
heavy = {x["name"]: x for x in d["functions"]}["main->heavy"]["metrics"]
assert heavy["flops"]["per_rank"] == [[20 * 50000, 20 * 50000]], heavy["flops"]
assert len(heavy["time"]["per_rank"][0]) == 2 and all(t > 0 for t in heavy["time"]["per_rank"][0]), heavy["time"]
PY

# Bad launchers: one line naming --launcher, non-zero exit, no profile written.
expect_launcher_error() { # expected text, then the profile arguments
    local want=$1 rc=0 out
    shift
    out=$("$bin" profile --backend time "$@" -o "$tmp/bad.json" -- "$tmp/app" 1000 2>&1) || rc=$?
    [[ $rc -ne 0 ]] || fail "exit 0 for $*"
    [[ $(grep -c "roofcast: error: .*$want" <<<"$out") -eq 1 ]] || fail "error for $*: $out"
    [[ ! -e $tmp/bad.json ]] || fail "a profile was written for $*"
}
expect_launcher_error "--launcher.*no-such-launcher" --ranks 2 --launcher "no-such-launcher -N 2"
expect_launcher_error "--launcher.*expected --ranks" --launcher "srun -N 2"
expect_launcher_error "--launcher.*empty launcher" --ranks 2 --launcher " "

# stencil through the same launcher, where the MPI runner was built: Open MPI's ranks started by a launcher
# that is not mpirun do not find each other (no PMI server), so only the error path is checked here: the
# launcher is looked for before the machine is measured, and its absence is one line.
runner=$(dirname "$bin")/roofcast-stencil
if [[ -x $runner ]]; then
    # mpirun given as the cluster's launcher with a host list: the run completes and measures every k.
    if command -v mpirun >/dev/null; then
        "$bin" stencil --kernel jacobi7 --grid 16x16x16 --ranks 2 --k 1 --no-machine \
            --launcher "mpirun --host localhost:2" >"$tmp/st.log" 2>&1 || fail "stencil through mpirun --host: $(tail -3 "$tmp/st.log")"
        grep -q '^best measured k = 1' "$tmp/st.log" || fail "stencil through mpirun --host: $(tail -3 "$tmp/st.log")"
    else
        skip_part "no mpirun: the stencil run through --launcher 'mpirun --host localhost:2' was not made"
    fi
    rc=0
    out=$("$bin" stencil --kernel jacobi7 --no-machine --ranks 2 --grid 16x16x16 --k 1 --launcher "no-such-launcher -N 2" 2>&1) || rc=$?
    [[ $rc -ne 0 && $(grep -c "roofcast: error: .*--launcher.*no-such-launcher" <<<"$out") -eq 1 ]] ||
        fail "stencil with a missing launcher: $out"
else
    skip_part "roofcast-stencil was not built (CMake found no MPI): the stencil launcher check was not run"
fi
echo "PASS: profile_launcher"
