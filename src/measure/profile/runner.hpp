// `roofcast profile`: runs the user's program (plain, or one process per rank under `mpirun -np N`)
// under one backend and gathers every rank's results into one core::Profile.
//
// The backends implement one interface (backend.hpp) and are listed in backend_registry.cpp; every
// metric records its origin. Each pass of each run uses its own mkdtemp
// directory, removed afterwards. Failure policy: a program that exits non-zero or is killed yields no
// profile (core::Error naming the status); a tool that is missing is a core::Unsupported naming what
// exists instead. Progress and choices are reported through `say`, never printed here.
#pragma once

#include "core/machine.hpp"
#include "core/profile.hpp"
#include "measure/profile/backend.hpp"
#include "measure/profile/cachegrind.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace roofcast::measure::profile {

struct BackendChoice {
    std::string backend;
    std::string reason;
};

// Which presets PAPI can actually add here (tries each in its own event set); `why` gets the reasons of
// the failures ("PAPI_TOT_INS: Event does not exist", or "roofcast was built without PAPI").
std::vector<std::string> papi_addable_presets(std::string& why);

// Resolves `auto` (the first backend of the registry that counts with hardware counters, else the first that
// can run here for `program`) or checks that the requested backend can run; core::Unsupported otherwise.
BackendChoice choose_backend(const std::string& requested, const std::string& program = "");

// The data cache levels to simulate: the machine file's topology (its last level with the effective size
// `roofcast machine` measured), else a hand-written file's level sizes, else hwloc's reported sizes;
// `from` says which.
struct SimulatedCaches {
    std::vector<core::CacheInfo> levels;
    std::string from;
};
SimulatedCaches simulated_caches(const std::optional<core::Machine>& machine);

struct CachegrindCaches {
    CacheGeometry i1, d1, ll;
    std::string source; // where the sizes came from, and any rounding
};
// The simulated caches: the machine file's L1 and effective last-level size, else hwloc's reported sizes
// (said so in `source`).
CachegrindCaches cachegrind_caches(const std::optional<core::Machine>& machine);

// The program's path: as given when it contains '/', else looked up in $PATH. InputError when it does
// not exist or is not executable.
std::string resolve_program(const std::string& program);

// The functions an object (program or shared library) defines, demangled, with their addresses
// (`nm -C --defined-only`); for a stripped object those of its separate debug file where one is installed
// (/usr/lib/debug/.build-id/xx/yyyy.debug, as gdb, perf and valgrind find it: Debian's -dbg packages), else
// empty, as where nm cannot read it.
std::map<std::string, std::uint64_t> object_symbols(const std::string& object);

// How many of `simulated` simulated passes run at once: `requested` when positive; for 0 the number that
// finishes them soonest when each launch starts `nranks` processes on `cores` cores (3 passes on 2 cores:
// all 3 sharing them, 1.5 passes' time, rather than 2 then 1, two passes' time).
std::size_t passes_at_once(int requested, int nranks, std::size_t simulated, unsigned cores);

core::Profile run_profile(const ProfileRequest& request, const Say& say);

} // namespace roofcast::measure::profile
