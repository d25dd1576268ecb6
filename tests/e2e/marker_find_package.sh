#!/usr/bin/env bash
# End-to-end test of the install rules: installs the build tree into a temporary prefix, builds a small
# C and C++ consumer with find_package(roofcast) and roofcast::marker, runs both with ROOFCAST_MARKER_OUTPUT
# set and checks their marker files (and a Fortran one where a Fortran compiler exists); runs the
# installed roofcast.
# Usage: bash marker_find_package.sh <roofcast binary> <source dir>
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
build=$(cd "$(dirname "$bin")" && pwd)
for tool in cmake cc c++ python3; do
    command -v "$tool" > /dev/null || { echo "SKIP: $tool not found"; exit 77; }
done
fail() { echo "FAIL: $*" >&2; exit 1; }
unset ROOFCAST_MARKER_OUTPUT ROOFCAST_MARKER_PAPI

cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install"; }
[[ -x $tmp/prefix/bin/roofcast ]] || fail "roofcast not installed"
"$tmp/prefix/bin/roofcast" --help > /dev/null || fail "installed roofcast does not run"
ls "$tmp/prefix"/lib*/libroofcast-marker.so > /dev/null 2>&1 || fail "libroofcast-marker.so not installed"
[[ -f $tmp/prefix/include/roofcast/marker.h ]] || fail "marker.h not installed"

mkdir -p "$tmp/app"
cat > "$tmp/app/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(consumer C CXX)
find_package(roofcast 0.1 REQUIRED)
add_executable(consumer_c main.c)
target_link_libraries(consumer_c PRIVATE roofcast::marker)
add_executable(consumer_cxx main.cpp)
target_link_libraries(consumer_cxx PRIVATE roofcast::marker)
include(CheckLanguage)
check_language(Fortran)
if(CMAKE_Fortran_COMPILER)
  enable_language(Fortran)
  add_executable(consumer_f main.f90)
  target_link_libraries(consumer_f PRIVATE roofcast::marker)
endif()
CMAKE
cat > "$tmp/app/main.f90" <<'F90'
program consumer_f
  implicit none
  double precision :: flops, bytes
  integer :: i
  flops = 2.0d0
  bytes = 16.0d0
  call roofcast_region_begin('solve')
  do i = 1, 3
    call roofcast_region_begin('dot  ')
    call roofcast_region_work(flops, bytes)
    call roofcast_region_end('dot')
  end do
  call roofcast_region_end('solve')
end program consumer_f
F90
cat > "$tmp/app/main.c" <<'C'
#include <roofcast/marker.h>
#include <stdio.h>
int main(void) {
    roofcast_region_begin("main");
    for (int i = 0; i < 4; ++i) {
        roofcast_region_begin("work");
        roofcast_region_work(100.0, 800.0);
        roofcast_region_end("work");
    }
    roofcast_region_end("main");
    printf("active %d\n", roofcast_marker_active());
    return 0;
}
C
cat > "$tmp/app/main.cpp" <<'CPP'
#include <roofcast/marker.h>
int main() {
    roofcast::marker::Region main_region("main");
    for (int i = 0; i < 3; ++i) {
        roofcast::marker::Region solve("solve");
        roofcast_region_work(1.0, 8.0);
    }
    return 0;
}
CPP
cmake -S "$tmp/app" -B "$tmp/app/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release \
    > "$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; fail "consumer configure"; }
cmake --build "$tmp/app/build" > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "consumer build"; }

[[ $("$tmp/app/build/consumer_c") == "active 0" ]] || fail "inactive run"
ROOFCAST_MARKER_OUTPUT=$tmp/out OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 "$tmp/app/build/consumer_c" > /dev/null
ROOFCAST_MARKER_OUTPUT=$tmp/out_cxx "$tmp/app/build/consumer_cxx"
if [[ -x $tmp/app/build/consumer_f ]]; then
    ROOFCAST_MARKER_OUTPUT=$tmp/out_f "$tmp/app/build/consumer_f"
    python3 - "$tmp/out_f" <<'PY' || fail "Fortran consumer's marker file"
import glob, json, sys
d = json.load(open(glob.glob(sys.argv[1] + "/marker.0.*.json")[0]))
regions = {r["path"]: r for r in d["regions"]}
assert list(regions) == ["solve", "solve->dot"], regions
assert (regions["solve->dot"]["calls"], regions["solve->dot"]["flops"]) == (3, 6.0), regions
assert d["warnings"] == [], d["warnings"]
PY
    fortran="Fortran, "
elif command -v gfortran >/dev/null; then
    fail "gfortran is installed but the Fortran consumer was not built: $(grep -i fortran "$tmp/configure.log" | head -3)"
else
    skip_part "no Fortran compiler (gfortran): the Fortran consumer was not built"
fi
python3 - "$tmp/out" "$tmp/out_cxx" <<'PY'
import glob, json, sys
files = glob.glob(sys.argv[1] + "/marker.1.*.json")
assert len(files) == 1, files
d = json.load(open(files[0]))
assert d["format"] == "roofcast-marker" and d["format_version"] == 1, d
assert (d["rank"], d["ranks"], d["threads"]) == (1, 2, 1), d
regions = {r["path"]: r for r in d["regions"]}
assert list(regions) == ["main", "main->work"], regions
work = regions["main->work"]
assert (work["calls"], work["flops"], work["bytes"]) == (4, 400.0, 3200.0), work
assert d["warnings"] == [], d["warnings"]
files = glob.glob(sys.argv[2] + "/marker.0.*.json")
assert len(files) == 1, files
d = json.load(open(files[0]))
regions = {r["path"]: r for r in d["regions"]}
assert regions["main->solve"]["calls"] == 3 and regions["main->solve"]["flops"] == 3.0, regions
PY
echo "ok: installed, found by find_package, ${fortran:-}C and C++ consumers wrote their marker files"
end_test
