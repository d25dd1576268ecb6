// Internals of the HTML report (report/html.hpp), shared by the files that implement one part each:
// html_cells.cpp (escaping and the table cells every section uses), html_kernels.cpp (the predictions
// table and the per-kernel derivations), html.cpp (the page: summary, charts, machine, warnings). Not a
// public interface: only the report's HTML sources include it.
#pragma once

#include "core/results.hpp"
#include "report/roofline.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace roofcast::report::html_detail {

// html_cells.cpp
std::string h(std::string_view text); // escaped for XHTML
std::string noisy_badge(const core::Summary& s);
// A machine row's spread cell: the interquartile spread of its epochs, which its NOISY flag is judged by
// against the floor of its kind (core/machine_noise.hpp); the range spread for a figure without samples.
std::string machine_spread_cell(const core::Summary& s);
// A kernel's spread cell: the interquartile spread its NOISY flag is judged by, where the run had probes.
std::string kernel_spread_cell(const core::KernelResult& k);
std::string num_td(const std::string& text);
std::string td(const std::string& text);
std::string fixed3(double v);
std::string threads_text(int t);
std::string anchor_id(const std::string& name); // the id of a kernel's derivation
// The valid prediction with the smallest |error|, or null.
const core::Prediction* closest(const core::KernelResult& k);
std::vector<std::string> model_names(const core::Results& r); // in order of first appearance

// html_kernels.cpp
void predictions_section(std::string& o, const core::Results& r);
// One kernel's derivation with the threshold table and each model's terms (not for the
// calibration loops and the mixed family, whose predictions the predictions table lists).
void derivation(std::string& o, const core::KernelResult& k, const Roofs& roofs);
// The kernels of many rows of one construction (calibration loops, the mixed family, STREAM): one table row
// each (flops, bytes, measured rate, closest model, the level bounding it on the charts' roofline), opened
// by compact_table_start and closed by compact_table_end; the row's id is the kernel's anchor.
void compact_table_start(std::string& o);
void compact_row(std::string& o, const core::KernelResult& k, const Roofs& roofs);
void compact_table_end(std::string& o);

} // namespace roofcast::report::html_detail
