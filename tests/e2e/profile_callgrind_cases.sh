#!/usr/bin/env bash
# The callgrind backend on the programs that are not plain: the kernel in a forked child and in an exec'd
# image (followed, counted exactly), a program that fails under valgrind but runs natively (a one-line error
# naming valgrind and the status, no profile written), a stripped binary (functions by address, the same
# FLOPs, and a warning that says why no names or lines), the C library's memcpy (its bytes whichever loop
# glibc takes), an MPI program under --ranks and the same without mpirun (C++ names joined with perf's).
# Usage: bash profile_callgrind_cases.sh <roofcast binary> <source dir>
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
fail() { echo "FAIL: $*" >&2; exit 1; }
need valgrind cc python3 strip
machine=$src/data/machines/example-caches.yaml
n=1003
reps=2
cc -O2 -fno-tree-vectorize -march=x86-64 -g -o "$tmp/ck" "$src/tests/e2e/data/counted_kernels.c"

flops_of() { # profile function: that function's counted FLOPs over every rank and repetition
    python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
print(int(sum(sum(r) for x in d['functions'] if x['name'] == sys.argv[2] for r in x['metrics']['flops']['per_rank'])))
" "$1" "$2"
}

# The kernel runs in a forked child, then in an exec'd copy of the program: both are followed.
for mode in fork-triad exec-triad; do
    "$bin" profile --backend callgrind --machine "$machine" -o "$tmp/$mode.json" -- "$tmp/ck" $mode $n $reps \
        > "$tmp/$mode.log" 2>&1 || fail "$mode: $(tail -3 "$tmp/$mode.log")"
    got=$(flops_of "$tmp/$mode.json" triad)
    [[ $got -eq $((2 * n * reps)) ]] || fail "$mode: triad counted $got flops, known $((2 * n * reps))"
done

# Fails under valgrind, runs natively: one line naming valgrind and the status, no file.
if "$bin" profile --backend callgrind --machine "$machine" -o "$tmp/nv.json" -- "$tmp/ck" no-valgrind $n 1 \
    > "$tmp/nv.out" 2> "$tmp/nv.err"; then
    fail "a program failing under valgrind gave exit 0"
fi
[[ ! -e $tmp/nv.json ]] || fail "a failed profile left $tmp/nv.json"
# stderr: the program's own line, then roofcast's one-line error.
last=$(tail -n 1 "$tmp/nv.err")
[[ $(grep -vc '^counted_kernels:' "$tmp/nv.err") -eq 1 ]] || fail "expected one line of roofcast's: $(cat "$tmp/nv.err")"
[[ $last == *valgrind* && $last == *"status 3"* ]] || fail "the error names neither valgrind nor the status: $last"

# Stripped: no symbols and no lines, the same FLOPs in all, said in a warning.
strip -o "$tmp/ck-stripped" "$tmp/ck"
"$bin" profile --backend callgrind --machine "$machine" -o "$tmp/full.json" -- "$tmp/ck" all $n 1 > /dev/null 2>&1 ||
    fail "unstripped profile"
"$bin" profile --backend callgrind --machine "$machine" -o "$tmp/stripped.json" -- "$tmp/ck-stripped" all $n 1 \
    > "$tmp/stripped.log" 2>&1 || fail "stripped: $(tail -3 "$tmp/stripped.log")"
python3 - "$tmp/full.json" "$tmp/stripped.json" <<'PY'
import json, sys
full, stripped = (json.load(open(p)) for p in sys.argv[1:3])
def program_flops(d):
    return sum(sum(map(sum, x["metrics"]["flops"]["per_rank"])) for x in d["functions"]
               if x["kind"] == "function" and "flops" in x["metrics"])
a, b = program_flops(full), program_flops(stripped)
assert a > 0 and a == b, f"stripped binary counted {b} flops, unstripped {a}"
assert any("stripped" in w or "no symbols" in w for w in stripped["warnings"]), stripped["warnings"]
PY

# The C library's memcpy, whose loop glibc picks by size and CPU (a vector loop, or rep movsb that valgrind
# runs one byte per visit): its bytes counted either way, 8n loaded and 8n stored per call (glibc's first
# and last vectors overlap the rest, so a little more).
copy_n=8192
"$bin" profile --backend callgrind --machine "$machine" -o "$tmp/copy.json" -- "$tmp/ck" copy $copy_n 200 \
    > "$tmp/copy.log" 2>&1 || fail "copy: $(tail -3 "$tmp/copy.log")"
python3 - "$tmp/copy.json" $((16 * copy_n * 200)) <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); known = int(sys.argv[2])
copies = [x for x in d["functions"] if x["kind"] == "library" and ("memcpy" in x["name"] or "memmove" in x["name"])]
assert copies, [x["name"] for x in d["functions"] if x["kind"] == "library"][:20]
top = max(copies, key=lambda x: sum(map(sum, x["metrics"].get("bytes_L1", {}).get("per_rank", [[0]]))))
got = sum(map(sum, top["metrics"]["bytes_L1"]["per_rank"]))
assert known <= got <= 1.01 * known, f"{top['name']} counted {got} bytes, known {known}"
PY

# An MPI program under --ranks: every rank counted (the example CG solver, built where CMake found MPI).
cg=$(dirname "$bin")/roofcast-example-cg
if [[ -x $cg ]] && command -v mpirun >/dev/null; then
    "$bin" profile --backend callgrind --machine "$machine" --ranks 2 -o "$tmp/cg.json" -- "$cg" --n 12 --iters 2 \
        > "$tmp/cg.log" 2>&1 || fail "cg under --ranks 2: $(tail -3 "$tmp/cg.log")"
    python3 - "$tmp/cg.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
own = [x for x in d["functions"] if x["kind"] == "function" and "flops" in x["metrics"]]
ranks = {len(x["metrics"]["flops"]["per_rank"][0]) for x in own}
assert ranks == {2}, ranks
assert sum(sum(x["metrics"]["flops"]["per_rank"][0]) for x in own) > 0, "no flops counted in the solver"
PY
    # The same program without mpirun (an MPI singleton: Open MPI spawns an orted that valgrind follows
    # and that leaves no counts, said in a warning rather than failing the profile). Its C++ functions,
    # named with their parameters by valgrind and without them by perf, get both their counts and their
    # sampled time.
    "$bin" profile --backend callgrind --machine "$machine" -o "$tmp/cg1.json" -- "$cg" --n 32 --iters 100 \
        > "$tmp/cg1.log" 2>&1 || fail "cg without mpirun: $(tail -3 "$tmp/cg1.log")"
    python3 - "$tmp/cg1.json" "$cg" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
spmv = [x for x in d["functions"] if x["name"] == "cg::spmv(cg::Csr const&, double const*, double*)"]
assert spmv, [x["name"] for x in d["functions"] if x["kind"] == "function"][:20]
m = spmv[0]["metrics"]
assert sum(m["flops"]["per_rank"][0]) > 0, "spmv: no flops counted"
assert "time" in m and sum(m["time"]["per_rank"][0]) > 0, f"spmv has no sampled time: {sorted(m)}"
for w in d["warnings"]:
    assert not ("left no whole counts" in w and sys.argv[2] in w.split(" left no")[0]), w
PY
else
    skip_part "roofcast-example-cg or mpirun missing: the MPI cases were not run"
fi
end_test
