// Fuzz target: model::scale::read_extrap_text, one of the readers of `roofcast scale`, then the normalisation
// every data set goes through.
#include "fuzz_reader.hpp"
#include "model/scale/dataset.hpp"

void read_input(const std::string& text) {
    auto d = roofcast::model::scale::read_extrap_text(text, "fuzz");
    roofcast::model::scale::normalize(d);
}
