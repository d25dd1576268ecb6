// Reports of `roofcast stencil`: the predicted-versus-measured table of a k sweep, the simulation mode's
// best k and strong-scaling curve, and their JSON forms (docs/stencil.md). Pure functions of the result
// structs: nothing here measures or models.
#pragma once

#include "analysis/stencil/measured.hpp"
#include "analysis/stencil/model.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace roofcast::report {

struct StencilHeader {
    std::string kernel;
    model::stencil::Index3 grid{0, 0, 0}; // z y x
    model::stencil::Index3 dims{1, 1, 1}; // z y x
    std::string decomp;
    int ranks = 1;
    int threads = 1;
    int steps = 1;
    std::vector<std::string> model_sources; // where each cost input came from; empty: no model
};

std::string format_stencil_sweep(const StencilHeader& h, const model::stencil::MeasuredStencil& m,
                                 const model::stencil::KComparison& c);
nlohmann::json stencil_sweep_json(const StencilHeader& h, const model::stencil::MeasuredStencil& m,
                                  const model::stencil::KComparison& c);

struct StencilSimulation {
    StencilHeader header;
    model::stencil::KChoice choice; // at header.ranks
    std::vector<model::stencil::ScalingPoint> scaling;
};

std::string format_stencil_simulation(const StencilSimulation& s);
nlohmann::json stencil_simulation_json(const StencilSimulation& s);

} // namespace roofcast::report
