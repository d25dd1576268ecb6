// Fuzz target: one TAU profile.N.C.T file (--import-tau), as `roofcast profile` reads it.
#include "fuzz_reader.hpp"
#include "measure/profile/tau.hpp"

void read_input(const std::string& text) {
    (void)roofcast::measure::profile::parse_tau_profile(text, "fuzz");
}
