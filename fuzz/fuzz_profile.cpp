// Fuzz target: model::scale::read_roofcast_profile, one of the readers of `roofcast scale`, then the
// normalisation every data set goes through.
#include "fuzz_reader.hpp"
#include "model/scale/dataset.hpp"

void read_input(const std::string& text) {
    auto d = roofcast::model::scale::read_roofcast_profile(text, "fuzz");
    roofcast::model::scale::normalize(d);
}
