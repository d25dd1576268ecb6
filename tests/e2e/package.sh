#!/usr/bin/env bash
# End-to-end test of the Debian package: runs cpack -G DEB on the build tree of the roofcast under test (the
# package is written into a temporary directory), checks the .deb's control fields and file list (commands,
# marker library, header, CMake package, one man page per command, bash completion, copyright), unpacks it
# with dpkg-deb -x, runs the unpacked roofcast, checks that the unpacked completion offers every subcommand
# and option `--help` lists, and builds and runs a find_package(roofcast) consumer against the unpacked tree.
# Usage: bash package.sh <roofcast binary> <source dir>
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh" "$@"
need cpack dpkg-deb cmake c++ help2man
build=$(cd "$(dirname "$bin")" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ -f $build/CPackConfig.cmake ]] || fail "$build/CPackConfig.cmake missing: the build tree has no package configuration"
unset ROOFCAST_MARKER_OUTPUT ROOFCAST_MARKER_PAPI

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/pkg" > "$tmp/cpack.log" 2>&1 ||
    { cat "$tmp/cpack.log"; fail "cpack -G DEB"; }
debs=("$tmp"/pkg/roofcast_*.deb)
[[ ${#debs[@]} -eq 1 && -f ${debs[0]} ]] || { cat "$tmp/cpack.log"; fail "expected one roofcast_*.deb, got: ${debs[*]}"; }
deb=${debs[0]}

# The version the package carries is the one the built binary reports.
built_version=$("$bin" --version)
[[ $built_version =~ ^roofcast\ ([0-9][0-9.]*)$ ]] || fail "unexpected --version output: $built_version"
version=${BASH_REMATCH[1]}
[[ $(dpkg-deb -f "$deb" Package) == roofcast ]] || fail "Package field: $(dpkg-deb -f "$deb" Package)"
[[ $(dpkg-deb -f "$deb" Version) == "$version"-* ]] || fail "Version field $(dpkg-deb -f "$deb" Version), binary $version"
for field in Maintainer Description Architecture; do
    [[ -n $(dpkg-deb -f "$deb" "$field") ]] || fail "empty $field field"
done
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libc6 libstdc++6 libyaml-cpp0.7 libhwloc15; do
    [[ $depends == *"$lib"* ]] || fail "Depends lacks $lib: $depends"
done

# Commands and their descriptions as the binary itself prints them.
mapfile -t subs < <("$bin" --help | awk '/^Subcommands:/{on=1; next} on && /^  [a-z]/{print $1}')
((${#subs[@]} >= 10)) || fail "roofcast --help lists ${#subs[@]} subcommands"

dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./|/|' > "$tmp/files"
expect_file() { grep -qx -- "$1" "$tmp/files" || fail "the package lacks $1"; }
expect_file /usr/bin/roofcast
expect_file /usr/include/roofcast/marker.h
expect_file /usr/share/bash-completion/completions/roofcast
expect_file /usr/share/doc/roofcast/copyright
expect_file /usr/share/doc/roofcast/changelog.gz
expect_file /usr/share/man/man1/roofcast.1.gz
for s in "${subs[@]}"; do expect_file "/usr/share/man/man1/roofcast-$s.1.gz"; done
grep -qE '^/usr/lib/([^/]+/)?libroofcast-marker\.so\.[0-9]+\.[0-9]+\.[0-9]+$' "$tmp/files" || fail "no libroofcast-marker.so.X.Y.Z"
grep -qE '^/usr/lib/([^/]+/)?cmake/roofcast/roofcastConfig\.cmake$' "$tmp/files" || fail "no roofcastConfig.cmake"
grep -qE '^/usr/lib/([^/]+/)?cmake/roofcast/roofcastTargets\.cmake$' "$tmp/files" || fail "no roofcastTargets.cmake"
if [[ -x $build/roofcast-stencil ]]; then expect_file /usr/bin/roofcast-stencil; fi
if [[ -x $build/roofcast-mpi-probe ]]; then expect_file /usr/bin/roofcast-mpi-probe; fi

root=$tmp/root
dpkg-deb -x "$deb" "$root"
cmp -s "$src/LICENSE" "$root/usr/share/doc/roofcast/copyright" || fail "copyright is not the LICENSE file"
gzip -dc "$root/usr/share/doc/roofcast/changelog.gz" | cmp -s "$src/CHANGELOG.md" - || fail "changelog.gz is not CHANGELOG.md"
[[ $("$root/usr/bin/roofcast" --version) == "$built_version" ]] || fail "unpacked roofcast --version"
"$root/usr/bin/roofcast" validate "$src/data/kernels/"*.yaml > "$tmp/validate.log" 2>&1 ||
    { cat "$tmp/validate.log"; fail "unpacked roofcast validate"; }

# Man pages: gzip files whose NAME is the command and whose text holds the command's own --help options.
for s in roofcast "${subs[@]}"; do
    page=roofcast
    [[ $s == roofcast ]] || page=roofcast-$s
    text=$(gzip -dc "$root/usr/share/man/man1/$page.1.gz") || fail "$page.1.gz is not gzip"
    [[ $text == *".TH ${page^^} \"1\""* ]] || fail "$page.1: no .TH ${page^^} 1 header"
    name_line=$(grep -A1 '^\.SH NAME' <<< "$text" | tail -1)
    [[ $name_line == "$page \- "* ]] || fail "$page.1: NAME is not $page: $name_line"
    if [[ $s != roofcast ]]; then
        for opt in $("$bin" "$s" --help | grep -oE '^  (-[a-zA-Z],)?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+'); do
            grep -qF -- "${opt//-/\\-}" <<< "$text" || fail "$page.1 lacks $opt"
        done
    fi
done
# Their date comes from SOURCE_DATE_EPOCH (else the last commit), not from the day of the build.
if [[ -x $build/roofcast-cli-docs ]]; then
    SOURCE_DATE_EPOCH=86400 cmake -DROOFCAST="$bin" -DCLI_DOCS="$build/roofcast-cli-docs" -DHELP2MAN="$(command -v help2man)" \
        -DGZIP="$(command -v gzip)" -DBASH="$(command -v bash)" -DVERSION=0 -DOUT_DIR="$tmp/man-epoch" \
        -P "$src/cmake/manpages.cmake" > "$tmp/man-epoch.log" 2>&1 || { cat "$tmp/man-epoch.log"; fail "manpages.cmake"; }
    gzip -dc "$tmp/man-epoch/roofcast-scale.1.gz" | grep -q '^\.TH ROOFCAST-SCALE "1" "January 1970"' ||
        fail "SOURCE_DATE_EPOCH=86400 did not date the man pages January 1970"
fi
if command -v man > /dev/null; then
    rendered=$(MANWIDTH=80 man -l "$root/usr/share/man/man1/roofcast-predict.1.gz" 2> "$tmp/man.err") || true
    [[ $rendered == *--machine* ]] || fail "man -l roofcast-predict.1.gz does not render its options: $(head -3 "$tmp/man.err")"
fi

# The unpacked completion, run as bash would: every subcommand after `roofcast `, and after
# `roofcast SUB --` every long option SUB's --help lists.
complete_words() {
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _roofcast
             printf "%s\n" "${COMPREPLY[@]}"' _ "$root/usr/share/bash-completion/completions/roofcast" "$@"
}
offered=$(complete_words roofcast "")
for s in "${subs[@]}"; do grep -qx "$s" <<< "$offered" || fail "completion of 'roofcast ' lacks $s"; done
for s in "${subs[@]}"; do
    offered=$(complete_words roofcast "$s" --)
    for opt in $("$bin" "$s" --help | grep -oE '^  (-[a-zA-Z],)?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+'); do
        grep -qx -- "$opt" <<< "$offered" || fail "completion of 'roofcast $s --' lacks $opt"
    done
done
[[ -z $(complete_words roofcast predict --machine "") ]] || fail "completion after --machine offers words, not files"
grep -qx hierarchical <<< "$(complete_words roofcast plot --view "")" || fail "completion after plot --view lacks its choices"

# A consumer of the unpacked CMake package: the imported target must point into the unpacked tree.
mkdir -p "$tmp/app"
cat > "$tmp/app/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(consumer CXX)
find_package(roofcast REQUIRED)
get_target_property(inc roofcast::marker INTERFACE_INCLUDE_DIRECTORIES)
foreach(path IN ITEMS "${inc}" "${roofcast_EXECUTABLE}")
  string(FIND "${path}" "${UNPACKED}" at)
  if(NOT at EQUAL 0 OR NOT EXISTS "${path}")
    message(FATAL_ERROR "not in the unpacked tree ${UNPACKED}: ${path}")
  endif()
endforeach()
add_executable(consumer main.cpp)
target_link_libraries(consumer PRIVATE roofcast::marker)
CMAKE
cat > "$tmp/app/main.cpp" <<'CPP'
#include <roofcast/marker.h>
#include <cstdio>
int main() {
    roofcast_region_begin("main");
    roofcast_region_work(2.0, 16.0);
    roofcast_region_end("main");
    std::printf("active %d\n", roofcast_marker_active());
    return 0;
}
CPP
cmake -S "$tmp/app" -B "$tmp/app/build" -DCMAKE_PREFIX_PATH="$root/usr" -DUNPACKED="$root/usr" \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF \
    > "$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; fail "consumer configure"; }
cmake --build "$tmp/app/build" > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "consumer build"; }
loaded=$(ldd "$tmp/app/build/consumer")
[[ $loaded == *"=> $root/usr/lib/"*libroofcast-marker.so* ]] ||
    fail "consumer does not load the unpacked marker library: $(grep marker <<< "$loaded")"
[[ $("$tmp/app/build/consumer") == "active 0" ]] || fail "consumer, inactive"
ROOFCAST_MARKER_OUTPUT=$tmp/out "$tmp/app/build/consumer" > /dev/null
"$root/usr/bin/roofcast" validate "$tmp"/out/marker.0.*.json > /dev/null || fail "unpacked roofcast validate of the consumer's marker file"
echo "ok: $(basename "$deb") holds roofcast, the marker library and CMake package, ${#subs[@]}+1 man pages and the completion; unpacked, it runs and a find_package consumer builds against it"
