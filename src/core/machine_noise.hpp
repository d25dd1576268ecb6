// Noise flags of a machine file's measured rows (issue 15 §3, issue 22 §6; docs/noise.md). A fixed 5 %
// spread flagged nearly every row of a run on a shared host, so a row is flagged NOISY when the
// interquartile spread of its epochs is an outlier among the rows of its kind in the same run: above
// Tukey's upper fence Q3 + 1.5 (Q3 - Q1) of their interquartile spreads (Tukey, Exploratory Data Analysis,
// 1977, ch. 2), and never below k_noisy_spread. On a quiet host the floor is that fixed 5 %; on a loaded one
// the fence lifts it to tens of per cent (the noise line says which), so the flag marks the rows disturbed
// more than the rest of the run, and a host that disturbs every row alike flags none.
// A kind with fewer than k_machine_noise_min_rows rows judged has no floor of its own and uses
// k_noisy_spread on the interquartile spread.
//
// Kinds: "core" (compute ceilings; bandwidths of caches private to a core), "memory" (shared caches and
// memory, their stream capacity), "sweep" (the working-set sweep), "overhead" (thread start-up), "mpi".
#pragma once

#include "core/machine.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace roofcast::core {

inline constexpr std::size_t k_machine_noise_min_rows = 8;

struct MachineNoiseKind {
    std::string kind;
    std::size_t rows = 0;    // rows with samples
    std::size_t flagged = 0; // of those, flagged NOISY
    double floor = k_noisy_spread;
    bool own_floor = false; // false: too few rows, the fixed threshold was used
};

// Sets `noisy` on every measured row of `m` (the clock keeps its drift rule) and returns the floors.
// Rows without samples (entered figures) are never flagged. Deterministic: the same file gives the same
// flags, so a file read back shows what the run showed.
std::vector<MachineNoiseKind> flag_machine_noise(Machine& m);
// The same floors and counts without setting any flag (for a text about a machine it must not change).
std::vector<MachineNoiseKind> machine_noise_kinds(const Machine& m);

// A row measured alone (`roofcast bandwidth`, `roofcast ceiling`) has no kind to be judged among: it is
// judged as the rows of a small kind are, NOISY when its interquartile spread exceeds k_noisy_spread (never
// without samples). Sets and returns `noisy`.
bool flag_row_alone(Summary& s);

// "core" or "memory": a level is memory-like when it is MEM or a cache shared by more than one core.
std::string machine_noise_kind(const Machine& m, const std::string& level);

} // namespace roofcast::core
