// The roofline chart (Williams, Waterman & Patterson, "Roofline: an insightful visual performance model
// for multicore architectures", CACM 52(4), 2009): compute roofs and ceilings, one slanted bandwidth roof
// per memory level, ridge points, and the kernels of a results file as dots (measured) and hollow markers
// (each model's prediction). The hierarchical view (Ilic, Pratas & Sousa, "Cache-aware roofline model",
// IEEE CAL 13(1), 2014; Intel Advisor's integrated roofline) places one dot per memory level at that level's
// arithmetic intensity and joins the dots of a kernel.
//
// Contract: pure functions from plain structs to an SVG document; never throw on odd values — anything
// that cannot be placed on the log axes is omitted and listed in a visible note inside the chart.
// A machine with neither compute ceilings nor a peak for the precision is a core::InputError (from
// core::Machine::peak), as is a results file without its machine.
#pragma once

#include "core/machine.hpp"
#include "core/results.hpp"
#include "report/svg.hpp"

#include <optional>
#include <string>
#include <vector>

namespace roofcast::report {

struct ComputeRoof {
    std::string label; // "AVX-512 FMA", "AVX-512 add+mul (no FMA)", "theoretical peak"
    double gflops = 0;
    std::optional<core::Summary> measured; // spread of the ceiling, when measured
    bool theoretical = false;
};

struct MemoryRoof {
    std::string level;  // L1, L2, L3, MEM
    double gbs = 0;     // bandwidth of the roof
    std::string source; // as the predictions say it: "measured triad, 2 threads", "entered", ...
    double ridge = 0;   // intensity where this roof meets the top compute roof [FLOP/byte]
    std::optional<core::Summary> measured;
};

// The roofs of one machine for one precision and thread count.
struct Roofs {
    std::string precision = "double";
    int threads = 1;
    std::vector<ComputeRoof> compute; // the top (attainable) roof first, then lower ceilings
    std::vector<MemoryRoof> memory;   // machine order: closest to the core first
    std::vector<std::string> notes;   // substitutions made (other thread count, entered peak, ...)
    double top() const { return compute.empty() ? 0 : compute.front().gflops; }
};

// Chooses the roofs: per vector ISA (widest first) its FMA ceiling (else its best op), plus the widest
// ISA's balanced add+mul ceiling (what a kernel without FMA can reach); the theoretical peak as a dashed
// line when above the measured roof and `threads` uses every core. Falls back to the nearest measured
// thread count (noted) and, without ceilings, to the machine's effective/peak rate. Per level, the
// bandwidth the models use for a workload of unknown read/write mix at `threads`
// (model::choose_bandwidth: the roof kernel measured at that count, in moved bytes; else the level's
// bandwidth_gbs, its curve's plateau or its effective bandwidth).
Roofs roofs_for(const core::Machine& m, int threads, const std::string& precision);

// The thread count and precision shared by most kernels of a results file (1 and double when empty).
int dominant_threads(const core::Results& r);
std::string dominant_precision(const core::Results& r);

// The level whose intensity places a kernel in the classic view: MEM when it has MEM traffic, else the
// level farthest from the core with traffic (a kernel that lives in a cache). Empty when no level has bytes.
std::string classic_level(const core::KernelResult& k, const core::Machine& m);

enum class RooflineView { classic, hierarchical };

// Which kernels a chart draws. The main charts leave the calibration loops out (dozens of points that
// exist to fit the models, not to be read); the report draws them in a chart of their own.
enum class KernelSet { all_but_calibration, calibration_only, all };

// Roofline of a results file (requires its embedded machine; InputError otherwise). Kernels are drawn
// as series, one per suite (colour and marker shape), the mixed family as one series joined per
// (n, cache) in flop-level order and labelled once, every other kernel labelled by name; a label that
// finds no free place becomes a number next to the dot, with the name in the legend.
svg::Document roofline_chart(const core::Results& r, RooflineView view,
                             const std::string& id_prefix = "roofline");
svg::Document roofline_chart(const core::Results& r, RooflineView view, const std::string& id_prefix,
                             KernelSet set);

// The CSS class that marks a kernel's elements with its suite ("s-stream"), for the report's filter.
std::string suite_class(const std::string& suite);
// Roofs only, for a machine file (thread count: the largest with compute ceilings).
svg::Document roofline_chart(const core::Machine& m, const std::string& id_prefix = "roofline");

} // namespace roofcast::report
