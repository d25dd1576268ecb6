#include "measure/host_noise.hpp"

#include "core/stats.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace roofcast::measure {

std::optional<CpuTimes> parse_proc_stat(std::string_view text) {
    std::istringstream in{std::string(text)};
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("cpu ", 0) != 0)
            continue;
        std::istringstream fields(line.substr(4));
        std::vector<std::uint64_t> v;
        std::uint64_t x = 0;
        while (fields >> x)
            v.push_back(x);
        if (!fields.eof() || v.size() < 4)
            return std::nullopt;
        v.resize(std::max<std::size_t>(v.size(), 8), 0);
        // proc(5): user nice system idle iowait irq softirq steal [guest guest_nice, already in user/nice]
        CpuTimes t;
        t.busy = v[0] + v[1] + v[2] + v[5] + v[6];
        t.idle = v[3] + v[4];
        t.steal = v[7];
        return t;
    }
    return std::nullopt;
}

std::optional<CpuTimes> read_proc_stat() {
    std::ifstream f("/proc/stat");
    if (!f)
        return std::nullopt;
    std::stringstream ss;
    ss << f.rdbuf();
    return parse_proc_stat(ss.str());
}

std::optional<double> steal_fraction(const CpuTimes& before, const CpuTimes& after) {
    if (after.total() <= before.total() || after.steal < before.steal)
        return std::nullopt;
    return static_cast<double>(after.steal - before.steal) /
           static_cast<double>(after.total() - before.total());
}

bool scales_with_threads(double one_thread_gbs, double k_threads_gbs, int k, double tolerance) {
    return k_threads_gbs >= (1.0 - tolerance) * static_cast<double>(k) * one_thread_gbs;
}

std::optional<double> roof_thread_scaling(const core::Level& level, std::string_view kernel, int threads,
                                          const std::vector<double>& extra, std::size_t best) {
    if (threads < 2)
        return std::nullopt;
    const auto at = [&](int t) {
        return std::find_if(
            level.measurements.begin(), level.measurements.end(),
            [&](const core::BandwidthPoint& p) { return p.kernel == kernel && p.threads == t; });
    };
    const auto one = at(1), all = at(threads);
    if (one == level.measurements.end() || all == level.measurements.end())
        return std::nullopt;
    std::vector<double> rates = all->gbs.samples;
    rates.insert(rates.end(), extra.begin(), extra.end());
    const auto roof = core::best_k_median(rates, best);
    const auto single = core::best_k_median(one->gbs.samples, best);
    if (!roof || !single || !(*single > 0))
        return std::nullopt;
    return *roof / (threads * *single);
}

} // namespace roofcast::measure
