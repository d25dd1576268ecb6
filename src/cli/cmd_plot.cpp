#include "cli/commands.hpp"
#include "cli/data_file.hpp"
#include "cli/host_machine.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "core/process.hpp"
#include "core/profile.hpp"
#include "model/profile_regions.hpp"
#include "report/bandwidth.hpp"
#include "report/profile_regions.hpp"
#include "report/roofline.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <string>
#include <vector>

namespace roofcast::cli {

namespace {

namespace fs = std::filesystem;

struct PlotOptions {
    std::string file;
    std::string output;
    std::string view = "roofline";
    bool png = false;
    MachineArgs machine; // for a profile: the roofs to place its regions under
};

// Renders svg_path to png_path with rsvg-convert (librsvg2-bin) inside a private temporary directory,
// then saves the bytes with the one atomic writer (so a link, device or FIFO at png_path is treated as
// every output is, and nothing is written through a predictable name).
void render_png(const fs::path& svg_path, const fs::path& png_path) {
    const auto rsvg = core::find_in_path("rsvg-convert");
    if (!rsvg)
        throw core::Error(
            "--png needs rsvg-convert, which is not installed (Debian package librsvg2-bin); the "
            "SVG was written to " +
            svg_path.string());
    const core::TempDirectory tmp("roofcast-png");
    const fs::path rendered = tmp.path() / "chart.png";
    const int rc =
        core::run_program({rsvg->string(), "--zoom", "2", "--output", rendered.string(), svg_path.string()});
    if (rc < 0)
        throw core::Error("cannot run rsvg-convert: " + std::string(std::strerror(errno)));
    if (rc != 0)
        throw core::Error("rsvg-convert failed to render " + svg_path.string());
    core::write_file_atomic(png_path, core::read_file(rendered));
}

// A roofcast profile's regions as kernels of a results file under the machine's roofs (docs/profile.md).
DataFile profile_as_results(const PlotOptions& o, const core::Profile& profile) {
    const auto placement = model::place_profile(profile, machine_for_profile(o.machine, o.file));
    fmt::print("{}", core::terminal_text(report::region_verdicts(placement)));
    DataFile d;
    d.results = placement.results;
    return d;
}

void run_plot(const PlotOptions& o) {
    const auto profile = profile_of(o.file);
    const DataFile data = profile ? profile_as_results(o, *profile) : load_data_file(o.file);
    const core::Machine* machine = data.machine ? &*data.machine : nullptr;
    if (data.results) {
        if (!data.results->machine)
            throw core::InputError(o.file, "machine",
                                   "the results file has no embedded machine: nothing to plot");
        machine = &*data.results->machine;
        if (data.results->kernels.empty())
            fmt::print(stderr, "roofcast: warning: {} has no kernels; the chart shows the roofs only\n",
                       o.file);
    }
    std::string svg_text;
    if (o.view == "bandwidth") {
        svg_text = report::bandwidth_chart(*machine).standalone();
    } else if (data.results) {
        const auto view =
            o.view == "hierarchical" ? report::RooflineView::hierarchical : report::RooflineView::classic;
        svg_text = report::roofline_chart(*data.results, view).standalone();
    } else if (o.view == "hierarchical") {
        throw core::InputError(o.file, "",
                               "--view hierarchical needs a results file (a machine file has no kernels)");
    } else {
        svg_text = report::roofline_chart(*machine).standalone();
    }
    fs::path svg_path = o.output;
    fs::path png_path = fs::path(o.output).replace_extension(".png");
    if (o.png && fs::path(o.output).extension() == ".png")
        svg_path = fs::path(o.output).replace_extension(".svg");
    std::vector<std::string> inputs{o.file};
    if (!o.machine.file.empty())
        inputs.push_back(o.machine.file);
    core::ensure_distinct_output(svg_path, inputs, "--output");
    if (o.png)
        core::ensure_distinct_output(png_path, inputs, "--output");
    core::write_file_atomic(svg_path, svg_text);
    fmt::print("wrote {}\n", core::terminal_safe(svg_path.string()));
    if (o.png) {
        render_png(svg_path, png_path);
        fmt::print("wrote {}\n", png_path.string());
    }
}

} // namespace

void add_plot_command(CLI::App& app) {
    auto [cmd, opts] = add_command(app, "plot", run_plot,
                                   "Draw a roofline or bandwidth chart (SVG) of a results or machine file");
    cmd->add_option("FILE", opts->file,
                    "results file (JSON), machine file (YAML) or profile (under --machine or this host's "
                    "cached machine file)")
        ->required();
    cmd->add_option("-o,--output", opts->output, "SVG file to write")->required();
    cmd->add_option("--view", opts->view, "roofline (default), hierarchical or bandwidth")
        ->check(CLI::IsMember({"roofline", "hierarchical", "bandwidth"}));
    add_machine_options(cmd, opts->machine, "machine file whose roofs a profile's regions are placed under",
                        WithoutCache::none);
    cmd->add_flag("--png", opts->png, "also render a PNG next to the SVG (needs rsvg-convert)");
}

} // namespace roofcast::cli
