#include "experiment/round_settle.hpp"

#include "measure/harness.hpp"

namespace roofcast::model {

RoundSettleCap round_settle_cap(bool quick) {
    RoundSettleCap c;
    c.max_extra_rounds = quick ? 3 : 4;
    c.max_time_share = quick ? 1.0 : 0.5;
    return c;
}

bool round_settled(const std::vector<double>& round_best) {
    return measure::best_agree(round_best, k_round_settle_best, k_round_settle_tolerance);
}

std::vector<std::size_t> unsettled_kernels(const std::vector<std::vector<double>>& round_best) {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < round_best.size(); ++i)
        if (!round_settled(round_best[i]))
            out.push_back(i);
    return out;
}

bool another_round(const RoundSettleCap& cap, int extra_rounds, double extra_seconds, double pass_seconds) {
    return extra_rounds < cap.max_extra_rounds && extra_seconds < cap.max_time_share * pass_seconds;
}

} // namespace roofcast::model
