// Fuzz target: the point a Score-P experiment folder's name carries (mm.x25y10z1.r1), as `roofcast scale
// DIR` parses every folder of a Score-P experiment directory.
#include "analysis/scale/cube_experiments.hpp"
#include "fuzz_reader.hpp"

void read_input(const std::string& text) {
    (void)roofcast::model::scale::cube_experiment_point(text, "fuzz");
}
