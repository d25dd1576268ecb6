// A directory of Score-P experiments, one subdirectory per run named for its point (mm.x25y10z1.r1/
// profile.cubex; analysis/scale/cube_experiments.hpp): `roofcast scale DIR` reads it as Extra-P does.
#include "analysis/scale/cube_experiments.hpp"
#include "core/error.hpp"
#include "formats/format.hpp"

namespace roofcast::model::formats {

namespace {

bool sniff_cube_experiments(const Input& in) {
    return in.is_directory() && scale::is_cube_experiment_dir(in.path());
}

scale::Dataset read_cube_experiments(const Input& in, std::vector<std::string>* /*unread*/) {
    return scale::read_cube_experiments(in.path(), in.scaling());
}

} // namespace

extern constinit const FormatReader cube_experiments_format{
    "cube-experiments",     "Score-P experiment directory",     "tests/measure/data/cube/experiments",
    sniff_cube_experiments, document_of<read_cube_experiments>, read_cube_experiments};

} // namespace roofcast::model::formats
