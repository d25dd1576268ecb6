// `roofcast profile`: runs the user's program (plain, or one process per rank under `mpirun -np N`)
// under one backend and gathers every rank's results into one core::Profile.
//
// Backends (docs/profile.md): papi (presets counted per marker region by the marker library; only when
// PAPI can add an event here), perf (`perf record -e cpu-clock` sampling, plus hardware events when
// `perf stat` shows they work), cachegrind (valgrind's cache simulation configured from the machine
// file), time (marker regions timed). Every metric records its origin. Each run uses its own mkdtemp
// directory, removed afterwards. Failure policy: a program that exits non-zero or is killed yields no
// profile (core::Error naming the status); a tool that is missing is a core::Unsupported naming what
// exists instead. Progress and choices are reported through `say`, never printed here.
#pragma once

#include "core/machine.hpp"
#include "core/profile.hpp"
#include "measure/profile/cachegrind.hpp"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace roofcast::measure::profile {

struct ProfileRequest {
    std::string backend = "auto";                           // auto, papi, perf, cachegrind, time
    int ranks = 0;                                          // 0: a plain process; N: mpirun -np N
    std::vector<std::pair<std::string, double>> parameters; // empty: {"ranks", N or 1}
    int repeat = 1;
    std::optional<core::Machine> machine; // cache geometry for cachegrind
    std::vector<std::string> command;     // program and arguments
};

struct BackendChoice {
    std::string backend;
    std::string reason;
};

using Say = std::function<void(const std::string&)>;

// Which presets PAPI can actually add here (tries each in its own event set); `why` gets the reasons of
// the failures ("PAPI_TOT_INS: Event does not exist", or "roofcast was built without PAPI").
std::vector<std::string> papi_addable_presets(std::string& why);

// Resolves `auto` or checks that the requested backend can run; core::Unsupported otherwise.
BackendChoice choose_backend(const std::string& requested);

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

core::Profile run_profile(const ProfileRequest& request, const Say& say);

} // namespace roofcast::measure::profile
