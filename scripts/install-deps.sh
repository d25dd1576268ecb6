#!/usr/bin/env bash
# Installs every Debian 12 package roofcast needs to build, run its main job and its tests.
# Idempotent and quiet when everything is already there. Run as root (or with sudo available).
#   bash scripts/install-deps.sh           # build + main job
#   bash scripts/install-deps.sh --tests   # also what the test suite uses (headless Chromium, gfortran, ...)
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config git clang-format
  libhwloc-dev hwloc libpapi-dev papi-tools libopenmpi-dev openmpi-bin valgrind
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev libeigen3-dev libgtest-dev
  librsvg2-bin
  linux-perf
)
packages+=(binutils) # roofcast inspect and the kernel diagnosis read loops with objdump and nm
# profile --backend callgrind: glibc's own function names (its internal memcpy and memset forms) for valgrind,
# perf and nm alike, so a library function's counts and its sampled time meet (valgrind recommends it)
packages+=(libc6-dbg)
packages+=(libarchive-dev libpugixml-dev zlib1g-dev) # Score-P's CUBE profiles: a tar of XML and data
packages+=(libre2-dev) # threads --time-regex: matching linear in the output
if [[ "${1:-}" == "--tests" ]]; then
  packages+=(chromium likwid jq binutils clang libclang-rt-14-dev libomp-dev clang-tidy)
  packages+=(iproute2) # scripts/netns-ranks.sh: ranks in network namespaces (bench/stencil-k.sh)
  # The end-to-end scripts' checks: python3 and python3-yaml read the JSON and YAML they write, xmllint
  # (libxml2-utils) checks every chart is well-formed XML, gfortran builds the marker library's Fortran
  # consumer, and GNU time (/usr/bin/time) reports the processor time of bench/scale-speed.sh.
  packages+=(python3 python3-yaml libxml2-utils gfortran time)
  # The Debian package (cmake/package.cmake, tests/e2e/package.sh): help2man writes the man pages from
  # --help, dpkg-shlibdeps (dpkg-dev) computes its Depends.
  packages+=(help2man dpkg-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
if ! $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/roofcast-apt.log 2>&1; then
  # Optional test-only packages (a browser) may be unavailable; the core set must install.
  echo "install-deps: some packages failed to install, see /tmp/roofcast-apt.log; retrying the core set" >&2
  core=()
  for p in "${missing[@]}"; do [[ "$p" == chromium || "$p" == likwid || "$p" == jq ]] || core+=("$p"); done
  [[ ${#core[@]} -eq 0 ]] || $SUDO apt-get install -y -qq --no-install-recommends "${core[@]}" >/tmp/roofcast-apt.log 2>&1
fi
