// Fuzz target: the point a Score-P experiment folder's name carries (mm.x25y10z1.r1), as `roofcast scale
// DIR` parses every folder of a Score-P experiment directory.
#include "fuzz_reader.hpp"
#include "model/scale/cube_experiments.hpp"

void read_input(const std::string& text) {
    (void)roofcast::model::scale::cube_experiment_point(text, "fuzz");
}
