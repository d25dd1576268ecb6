# Sourced by the bench scripts.
#   host_line                 prints the host every figure belongs to: CPU model with its family and model
#                             numbers (VMs often name only "AMD EPYC"; family 25 model 17 is Zen 4, family 26 Zen 5),
#                             online CPUs, whether AVX-512 is there, L1d and L2 per core, the UTC time and the
#                             load average
#   quick_machine BIN DIR     measures this machine with `roofcast machine --quick` into DIR/machine.yaml
#                             (the table in DIR/machine.txt) and prints the file's path
host_line() {
    local l1 l2
    _host_field() { grep -m1 "^$1[[:space:]]*:" /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'; }
    _host_cache() { # level, type (Data or Unified): that cache's size as sysfs prints it, else ?
        local d
        for d in /sys/devices/system/cpu/cpu0/cache/index*; do
            [[ $(cat "$d/level" 2>/dev/null) == "$1" && $(cat "$d/type" 2>/dev/null) == "$2" ]] &&
                { cat "$d/size"; return; }
        done
        echo '?'
    }
    l1=$(_host_cache 1 Data) l2=$(_host_cache 2 Unified)
    echo "host: $(_host_field 'model name') (family $(_host_field 'cpu family') model $(_host_field model), $(nproc) CPUs," \
        "$(grep -m1 -o 'avx512f' /proc/cpuinfo || echo 'no AVX-512'), L1d $l1, L2 $l2)," \
        "$(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
}

quick_machine() {
    echo "measuring the machine (roofcast machine --quick) ..." >&2
    "$1" machine --quick -o "$2/machine.yaml" >"$2/machine.txt" || return 1
    echo "$2/machine.yaml"
}
