// The HTML report of a results file and the report directory written by `roofcast run`.
//
// html_report: one self-contained page (inline CSS, SVG and one small inline script for the per-suite
// filter; no fonts, libraries or links to fetch, so it opens offline and can be mailed or archived) with
// warnings, the machine summary (topology, clock, compute and bandwidth ceilings with their spreads and NOISY
// flags), the roofline (classic and hierarchical) and bandwidth charts, the prediction and accuracy tables,
// and a derivation per kernel. The page is polyglot XHTML (well-formed XML as well as HTML5), so tests can
// parse it strictly.
//
// write_report_dir: writes index.html, roofline.svg, roofline-hierarchical.svg, bandwidth.svg,
// roofline-calibration.svg (the calibration loops, left out of the main charts), results.json and
// machine.yaml (k_report_files) into a fresh directory and swaps it in for `dir` whole
// (core::replace_directory); an existing `dir` holding anything else is refused. A results value
// without its machine is a core::InputError (the charts and the summary need it).
#pragma once

#include "core/results.hpp"

#include <filesystem>
#include <set>
#include <string>

namespace roofcast::report {

std::string html_report(const core::Results& results);

inline const std::set<std::string> k_report_files = {
    "index.html",   "roofline.svg", "roofline-hierarchical.svg", "bandwidth.svg",
    "results.json", "machine.yaml", "roofline-calibration.svg"};

void write_report_dir(const std::filesystem::path& dir, const core::Results& results);

} // namespace roofcast::report
