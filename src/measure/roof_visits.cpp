#include "measure/roof_visits.hpp"

#include <algorithm>
#include <utility>

namespace roofcast::measure {

RoofVisits::RoofVisits(std::size_t levels, Measure measure, RoofVisitOptions options, Clock clock)
    : m_measure(std::move(measure)), m_options(options), m_clock(std::move(clock)), m_samples(levels) {}

bool RoofVisits::maybe_visit() {
    if (m_visits > 0 && m_clock() < m_next)
        return false;
    visit();
    return true;
}

void RoofVisits::visit() {
    const double start = m_clock();
    for (std::size_t l = 0; l < m_samples.size(); ++l) {
        const std::vector<double> rates = m_measure(l);
        m_samples[l].insert(m_samples[l].end(), rates.begin(), rates.end());
    }
    const double end = m_clock();
    if (m_visits == 0)
        m_first_start = start;
    m_last_end = end;
    ++m_visits;
    const double took = end - start;
    m_spent += took;
    // The next visit no sooner than the interval after this one's start, and late enough that this
    // visit is at most max_share of the time from its start to the next.
    const double share = std::clamp(m_options.max_share, 1e-3, 1.0);
    m_next = start + std::max(m_options.interval_seconds, took / share);
}

} // namespace roofcast::measure
