// Roofs over the run's window (issue 22 section 1, docs/design.md "roofs over the run's window"). On a shared
// host a neighbour's burst lasts seconds, so the best epochs of one level measurement, a fraction of a second
// long, say as much about the minute it ran in as about the machine. Between the run's other measurements
// the roof kernel of every level is measured again ("a visit": a few epochs per level), at most once per
// interval and never more than a set share of the time; the visits' epochs join the level's own, and the
// roof (the median of the best epochs) is then the best the host sustained over the whole window. The
// measurement and the clock are injected, so the schedule is unit-testable without timing anything.
#pragma once

#include "measure/harness.hpp"

#include <cstddef>
#include <functional>
#include <vector>

namespace roofcast::measure {

struct RoofVisitOptions {
    double interval_seconds = 0.25; // at least this long between the starts of two visits
    double max_share = 0.125;       // visits take at most this share of the time between them
};

class RoofVisits {
public:
    // Measures level `level` once: the rates of a few epochs, GB/s.
    using Measure = std::function<std::vector<double>(std::size_t level)>;

    RoofVisits(std::size_t levels, Measure measure, RoofVisitOptions options = {},
               Clock clock = steady_clock());

    // Visits when the schedule allows (the first call always does); true when it visited.
    bool maybe_visit();
    // Visits now, whatever the schedule (the last visit of a window).
    void visit();

    std::size_t visits() const { return m_visits; }
    std::size_t levels() const { return m_samples.size(); }
    // Rates of every visit to `level`, in time order.
    const std::vector<double>& samples(std::size_t level) const { return m_samples.at(level); }
    // From the start of the first visit to the end of the last; 0 before any visit.
    double window_seconds() const { return m_visits == 0 ? 0.0 : m_last_end - m_first_start; }
    // Time spent in visits.
    double spent_seconds() const { return m_spent; }

private:
    Measure m_measure;
    RoofVisitOptions m_options;
    Clock m_clock;
    std::vector<std::vector<double>> m_samples;
    std::size_t m_visits = 0;
    double m_first_start = 0, m_last_end = 0, m_next = 0, m_spent = 0;
};

} // namespace roofcast::measure
