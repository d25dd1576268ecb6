// Fuzz target: the text of `perf report --stdio`, as `roofcast profile` reads it.
#include "fuzz_reader.hpp"
#include "measure/profile/perf_report.hpp"

void read_input(const std::string& text) {
    (void)roofcast::measure::profile::parse_perf_report(text, "fuzz");
}
