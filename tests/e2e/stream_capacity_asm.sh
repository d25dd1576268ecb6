#!/usr/bin/env bash
# Assembly check: every stream-capacity loop (one per stream count, templates on S) is vectorised at its
# ISA's full width in the built binary: the AVX-512 variants add and store zmm vectors, the AVX2 ones ymm
# vectors, and neither stores doubles in narrower vectors; each S-stream loop issues one vector add from
# memory (read) or one vector store (write) per stream and vector of its unrolled iteration.
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
command -v objdump >/dev/null || { echo "skipped: objdump not installed"; exit 77; }
dump=$tmp/capacity.asm
# Only the capacity kernels' functions, so each look-up below scans a short text.
objdump -d --no-show-raw-insn -C "$roofcast" |
    awk 'index($0, "roofcast::measure::capacity_") && />:$/ {on=1} /^$/ {if (on) print; on=0} on' >"$dump"
body() { # the disassembly of one function, by the start of its demangled name
    awk -v pat="roofcast::measure::$1(" 'index($0, pat) && />:$/ {on=1; next} /^$/ {on=0} on' "$dump"
}
for isa in avx512:zmm avx2:ymm; do
    name=${isa%%:*}
    reg=${isa##*:}
    for s in 1 2 4 6 8 12 16 20 24 32; do
        read_asm=$(body "capacity_$name::read_streams<$s>")
        write_asm=$(body "capacity_$name::write_streams<$s>")
        [[ -n "$read_asm" && -n "$write_asm" ]] || { echo "capacity_$name S=$s not found"; fail=1; continue; }
        adds=$(grep -cE "vaddpd +(-?0x[0-9a-f]+)?\(%r[a-z0-9]+(,%r[a-z0-9]+,[0-9])?\),%$reg" <<<"$read_asm")
        stores=$(grep -cE "vmov(a|u)pd +%$reg[0-9]+,(-?0x[0-9a-f]+)?\(" <<<"$write_asm")
        narrow=$(grep -cE "vmov(a|u)pd +%(x|y)mm[0-9]+,(-?0x[0-9a-f]+)?\(" <<<"$write_asm")
        [[ $reg == ymm ]] && narrow=$(grep -cE "vmov(a|u)pd +%xmm[0-9]+,(-?0x[0-9a-f]+)?\(" <<<"$write_asm")
        echo "$name S=$s: $adds $reg adds from memory, $stores $reg stores, $narrow narrower stores"
        # One vector per stream and iteration, eight per iteration below eight streams (the loop's unroll).
        expect=$((s >= 8 ? s : 8 / s * s))
        [[ $adds -ge $expect && $stores -ge $expect && $narrow -eq 0 ]] || fail=1
    done
done
exit $fail
