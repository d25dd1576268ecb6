// The time backend: the program at full speed, its marker regions timed by the marker library (the whole
// run's wall time when it has none). Always usable.
#include "measure/profile/backend.hpp"

namespace roofcast::measure::profile {

namespace {

class TimeBackend final : public ProfileBackend {
public:
    TimeBackend() : ProfileBackend("time", "marker regions timed (no tool)") {}
    Availability availability(const std::string&) const override {
        return {true, false, "time: marker regions timed"};
    }
    std::vector<Pass> prepare(const RunContext&, core::Profile&) override {
        Pass pass;
        pass.label = "native";
        return {pass};
    }
    void collect(const RunContext&, std::size_t, int, const std::filesystem::path&, Gather&,
                 std::vector<std::string>&) override {}
    bool records_whole_run() const override { return true; }
};

} // namespace

std::unique_ptr<ProfileBackend> make_time_backend() {
    return std::make_unique<TimeBackend>();
}

} // namespace roofcast::measure::profile
