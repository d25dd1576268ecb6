# Sourced by the bench scripts.
#   host_line                 prints the host every figure belongs to: CPU model, online CPUs, whether
#                             AVX-512 is there, the UTC time and the load average
#   quick_machine BIN DIR     measures this machine with `roofcast machine --quick` into DIR/machine.yaml
#                             (the table in DIR/machine.txt) and prints the file's path
host_line() {
    echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') ($(nproc) CPUs," \
        "$(grep -m1 -o 'avx512f' /proc/cpuinfo || echo 'no AVX-512')), $(date -u +%Y-%m-%dT%H:%MZ)," \
        "load average $(cut -d' ' -f1-3 /proc/loadavg)"
}

quick_machine() {
    echo "measuring the machine (roofcast machine --quick) ..." >&2
    "$1" machine --quick -o "$2/machine.yaml" >"$2/machine.txt" || return 1
    echo "$2/machine.yaml"
}
