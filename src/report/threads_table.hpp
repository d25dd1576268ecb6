// Reporters of `roofcast threads`: pure functions from a ThreadsAnalysis to a text table, the JSON
// results file (format "roofcast-threads", docs/threads.md), one SVG chart per series and an HTML
// section for `roofcast report`. Contract: every measured point appears with its spread (median, min,
// max, n; noisy ones flagged); every model with its formula, citation, errors and regimes' parameters
// (meaning and unit); predictions use roofcast scale's layout (x, value, lo, hi).
#pragma once

#include "analysis/threads/analysis.hpp"

#include <string>

namespace roofcast::report {

std::string threads_text(const model::threads::ThreadsAnalysis& a);
std::string threads_json(const model::threads::ThreadsAnalysis& a);
// Time against n (log-log), one colour per thread count: measured medians with min–max bars, the
// roofcast model's lines, the cache capacities (in n) as dashed verticals, the best s per size ringed.
std::string threads_svg(const model::threads::ThreadsAnalysis& a, std::size_t series);
// <section> with the charts (inline SVG) and the tables, for the HTML report.
std::string threads_html_section(const model::threads::ThreadsAnalysis& a);
// A standalone (polyglot XHTML) page holding the threads section, for `roofcast report THREADS.json`.
std::string threads_html_page(const model::threads::ThreadsAnalysis& a);

} // namespace roofcast::report
