#!/usr/bin/env bash
# Assembly check: the AVX-512 variant of the streaming kernels in the built binary really uses
# 512-bit vectors: zmm loads/stores, zmm adds for the load kernel, and zmm non-temporal stores.
set -uo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
command -v objdump >/dev/null || { echo "skipped: objdump not installed"; exit 77; }
asm=$(objdump -d --no-show-raw-insn -C "$roofcast" |
    awk '/<roofcast::measure::isa_avx512::run_kernel/{on=1; next} /^$/{on=0} on')
[[ -n "$asm" ]] || { echo "isa_avx512::run_kernel not found in $roofcast"; exit 1; }
for pattern in 'vmovapd +-?(0x[0-9a-f]+)?\(%r[a-z0-9]+(,%r[a-z0-9]+,[0-9])?\),%zmm' 'vaddpd +.*%zmm' 'vmovntpd +%zmm' 'vfmadd[0-9]+pd .*%zmm|vmulpd .*%zmm'; do
    n=$(grep -cE "$pattern" <<<"$asm")
    echo "$pattern: $n instructions"
    [[ $n -gt 0 ]] || fail=1
done
# No xmm/ymm-width stores of doubles in the AVX-512 variant's loops.
narrow=$(grep -cE 'vmov(a|u)pd +%(x|y)mm[0-9]+,' <<<"$asm")
echo "narrow vector stores: $narrow"
[[ $narrow -eq 0 ]] || fail=1
exit $fail
