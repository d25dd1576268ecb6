// MPI point-to-point figures of the machine file: a ping-pong between two ranks on this node
// (roofcast-mpi-probe, launched with mpirun), summarized per message size, with the Hockney model
// t(m) = alpha + m / beta fitted to the curve. Where MPI cannot run (no mpirun, no probe, a launch
// failure), the caller gets the reason and the machine file simply has no `mpi` section.
#pragma once

#include "core/machine.hpp"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace roofcast::measure {

struct HockneyFit {
    double alpha_s = 0;               // start-up time
    std::optional<double> beta_gbs;   // asymptotic bandwidth; nullopt when the curve shows none
    double max_relative_residual = 0; // max over the points of |model - measured| / measured
};

// Fits t(m) = alpha + m / beta (Hockney, Parallel Computing 20(3), 1994, eq. 1) to the points' median
// one-way times by least squares on relative residuals (weights 1/t^2, so a 1-byte message counts as
// much as a 16 MiB one); a negative alpha is clamped to 0 and the slope refitted. Throws
// std::invalid_argument with fewer than two distinct sizes or a non-positive time.
HockneyFit fit_hockney(const std::vector<core::MpiPoint>& points);

// Reads the probe's JSON (`label` names it in errors): per-size summaries of the one-way times,
// latency = the smallest message's time, bandwidth = the largest message's size over its times, and
// the Hockney fit. Throws core::InputError naming the field for a malformed document.
core::MpiFigures mpi_figures_from_probe(const nlohmann::json& probe, const std::string& label);

struct MpiOptions {
    bool quick = false;
    int ranks = 2;
    std::string probe;   // path of roofcast-mpi-probe; empty = find_mpi_probe()
    int timeout_s = 120; // for the whole mpirun
};

struct MpiMeasurement {
    std::optional<core::MpiFigures> figures;
    std::string note; // what ran, or why nothing could
};

// Where roofcast-mpi-probe is: $ROOFCAST_MPI_PROBE, else beside the running executable, else the
// build tree it was compiled in; empty when none exists.
std::string find_mpi_probe();

// Runs the ping-pong under mpirun (ranks bound to distinct cores when there are enough) and returns the
// figures, or no figures and the reason (never throws for a missing or failing MPI).
MpiMeasurement measure_mpi(const MpiOptions& opt);

} // namespace roofcast::measure
