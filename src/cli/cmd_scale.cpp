#include "analysis/scale/forecast.hpp"
#include "analysis/scale/roofline_forecast.hpp"
#include "cli/commands.hpp"
#include "cli/completion.hpp"
#include "cli/data_file.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "formats/format.hpp"
#include "report/scale_report.hpp"
#include "report/scale_roofline.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <omp.h>
#include <set>
#include <string>
#include <system_error>
#include <vector>

namespace roofcast::cli {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string megabytes(double bytes) {
    return fmt::format("{:.1f} MB", bytes / 1e6);
}

// The rate at which a phase read or wrote its bytes (for bench/scale-speed.sh and the curious).
std::string rate(double bytes, double seconds) {
    return seconds > 0.0 ? fmt::format("{:.0f} MB/s", bytes / 1e6 / seconds) : std::string("rate n/a");
}

struct ScaleOptions {
    std::vector<std::string> files;
    std::vector<std::string> predict;
    std::string select = "forecast";
    std::string evaluate;
    std::string plot_dir;
    std::string metric;
    std::string machine;
    std::string scaling = "weak";
    std::string grid;
    std::vector<std::string> grid_shapes;
    std::string grid_domain;
    bool json = false;
    bool csv = false;
};

// The phases of `roofcast scale`, in a namespace of their own so that the scaling library's names they use
// do not reach the other commands compiled beside this file.
namespace phases {

using namespace model::scale;

// What `scale` fits and against what, every input read and checked before any fitting starts.
struct ScaleInputs {
    Selection selection = Selection::forecast;
    std::optional<Grid> grid;
    Dataset data;
    std::optional<core::Machine> machine; // --machine: the roofline at the targets
    std::vector<Coord> targets;
    std::optional<Dataset> measured; // --evaluate: the measured run at the target
};

std::optional<Grid> grid_of(const ScaleOptions& o) {
    if (!o.grid.empty())
        return parse_grid(o.grid, o.grid_shapes, o.grid_domain);
    if (!o.grid_shapes.empty() || !o.grid_domain.empty())
        throw core::InputError("", o.grid_shapes.empty() ? "--grid-domain" : "--grid-shape",
                               "expected --grid D too: it describes a D-dimensional grid");
    return std::nullopt;
}

// Checked before any fitting: the directory exists (made now) and takes files.
void prepare_plot_dir(const std::string& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir))
        throw core::InputError(dir, "--plot-dir",
                               "expected a directory (or a name for a new one): " +
                                   (ec ? ec.message() : std::string("it exists and is not a directory")));
    core::check_output_writable(std::filesystem::path(dir) / "chart.svg", "--plot-dir");
}

// Each file read on its own, so that a roofcast profile's unknown keys are named with its path; then only the
// series of --metric, when given.
Dataset read_profiles(const ScaleOptions& o) {
    const auto t_read = Clock::now();
    Dataset data;
    std::uintmax_t bytes = 0;
    for (const auto& f : o.files) {
        merge(data, read_scaling_file(f, o.scaling), f);
        std::error_code ec;
        const auto size = std::filesystem::file_size(f, ec);
        bytes += ec ? 0 : size;
    }
    const double read_s = seconds_since(t_read);
    fmt::print(stderr, "roofcast scale: read {} series ({}) in {:.3f} s ({})\n", data.series.size(),
               megabytes(static_cast<double>(bytes)), read_s, rate(static_cast<double>(bytes), read_s));
    if (!o.metric.empty()) {
        std::erase_if(data.series, [&](const Series& s) { return s.metric != o.metric; });
        if (data.series.empty())
            throw core::InputError("", "--metric", fmt::format("no series has metric '{}'", o.metric));
    }
    return data;
}

std::optional<core::Machine> machine_of(const ScaleOptions& o) {
    if (o.machine.empty())
        return std::nullopt;
    if (o.predict.empty())
        throw core::InputError("", "--machine",
                               "expected --predict too: the roofline is drawn at the target");
    return machine_of_data_file(o.machine);
}

// --evaluate: the measured run at the target, with the small runs' parameters; without --predict its points
// are the targets.
Dataset read_evaluation(const ScaleOptions& o, const Dataset& data, std::vector<Coord>& targets) {
    Dataset measured = read_scaling_file(o.evaluate, o.scaling);
    if (measured.parameters != data.parameters)
        throw core::InputError(
            o.evaluate, "parameters",
            fmt::format("expected the parameters of the small runs ({})", fmt::join(data.parameters, ", ")));
    if (targets.empty()) {
        std::set<Coord> pts;
        for (const auto& s : measured.series)
            for (const auto& p : s.points)
                pts.insert(p.x);
        targets.assign(pts.begin(), pts.end());
    }
    return measured;
}

ScaleInputs read_inputs(const ScaleOptions& o) {
    ScaleInputs in;
    in.selection = parse_selection(o.select);
    in.grid = grid_of(o);
    if (!o.plot_dir.empty())
        prepare_plot_dir(o.plot_dir);
    in.data = read_profiles(o);
    in.machine = machine_of(o);
    for (const auto& p : o.predict)
        in.targets.push_back(parse_point(p, in.data.parameters));
    if (!o.evaluate.empty())
        in.measured = read_evaluation(o, in.data, in.targets);
    return in;
}

void write_plots(const std::string& dir, const ScaleResult& r) {
    core::make_directories(dir);
    for (std::size_t i = 0; i < r.data.series.size(); ++i)
        core::write_file_atomic(std::filesystem::path(dir) / report::scale_svg_name(r, i),
                                report::scale_svg(r, i));
    fmt::print(stderr, "roofcast scale: wrote {} SVG chart(s) to {}\n", r.data.series.size(), dir);
}

// The result on standard output: JSON, CSV or the table. The large documents go out piece by piece as they
// are formatted (report::write_scale_json/csv).
void print_result(const ScaleOptions& o, const ScaleResult& r) {
    const auto t_write = Clock::now();
    double written = 0.0;
    const auto print = [&](std::string_view piece) {
        if (std::fwrite(piece.data(), 1, piece.size(), stdout) != piece.size())
            throw std::system_error(errno, std::generic_category(), "cannot write to standard output");
        written += static_cast<double>(piece.size());
    };
    if (o.json)
        report::write_scale_json(r, print);
    else if (o.csv)
        report::write_scale_csv(r, [&](std::string_view piece) {
            // Control characters (from names in the input) are escaped; most pieces have none to copy for.
            const bool plain = std::none_of(piece.begin(), piece.end(), [](char c) {
                const auto u = static_cast<unsigned char>(c);
                return (u < 0x20 && c != '\n' && c != '\t') || u == 0x7f;
            });
            plain ? print(piece) : print(core::terminal_text(piece));
        });
    else
        print(core::terminal_text(report::scale_text(r)));
    if (std::fflush(stdout) != 0)
        throw std::system_error(errno, std::generic_category(), "cannot write to standard output");
    const double write_s = seconds_since(t_write);
    if (o.json || o.csv)
        fmt::print(stderr, "roofcast scale: wrote {} in {:.3f} s ({})\n", megabytes(written), write_s,
                   rate(written, write_s));
}

// The result stays allocated until the process ends: its millions of small allocations take longer to free
// one by one (a third of a second for a million series) than the exit takes to drop the whole heap. Still
// reachable, so a leak checker does not report it.
void keep_until_exit(ScaleResult&& r) {
    static auto* const kept = new std::vector<ScaleResult>;
    kept->push_back(std::move(r));
}

// Read, fit, evaluate, write: each phase above, in that order.
void run_scale(const ScaleOptions& o) {
    ScaleInputs in = read_inputs(o);
    ScaleResult r = forecast(std::move(in.data), in.selection, std::move(in.targets), std::move(in.grid));
    fmt::print(stderr, "roofcast scale: fitted {} series in {:.3f} s ({} threads, selection {})\n",
               r.data.series.size(), r.fit_seconds, omp_get_max_threads(), to_string(in.selection));
    if (r.grid)
        fmt::print(stderr, "{}", core::terminal_text(report::process_grid_text(r)));
    if (in.measured)
        r.evaluation = evaluate(r, *in.measured, o.evaluate);
    if (!o.plot_dir.empty())
        write_plots(o.plot_dir, r);
    print_result(o, r);
    if (in.machine && !o.json && !o.csv)
        for (const Coord& t : r.targets)
            fmt::print("{}", core::terminal_text(report::roofline_forecast_text(
                                 roofline_forecast(r, *in.machine, t), r.data.parameters)));
    keep_until_exit(std::move(r));
}

} // namespace phases

} // namespace

void add_scale_command(CLI::App& app) {
    auto [cmd, o] = add_command(app, "scale", phases::run_scale,
                                "Forecast per-function metrics at large scale from small profiled runs");
    cmd->add_option("FILE", o->files,
                    "profiles: roofcast profile JSON (one per run), Extra-P text (.txt) or JSON, CSV "
                    "(function,metric,param...,value), a directory of Score-P experiments (mm.x25y10.r1/"
                    "profile.cubex), another tool's profile (TAU, likwid, CUBE)")
        ->required();
    cmd->add_option(
           "--scaling", o->scaling,
           "a Score-P experiment directory's locations: weak (each a sample; default) or strong (summed)")
        ->check(CLI::IsMember({"weak", "strong"}));
    cmd->add_option("--predict", o->predict, "target point: 256 or cores=256,size=1e6 (repeatable)");
    offer_choices(cmd->add_option("--select", o->select,
                                  "model selection: forecast (hold out the largest points; default), loo "
                                  "(leave-one-out), mape (lowest error on the fitting points)"),
                  core::names(model::scale::k_selection_names));
    cmd->add_option("--evaluate", o->evaluate, "measured profile at the target: compare predictions with it");
    cmd->add_option("--plot-dir", o->plot_dir, "write one SVG chart per function and metric into DIR");
    cmd->add_option("--metric", o->metric, "model only this metric");
    cmd->add_option("--grid", o->grid,
                    "D (1, 2 or 3): the program decomposes its domain over a D-dimensional process grid; its "
                    "halo terms join the candidates for the rank count");
    cmd->add_option("--grid-shape", o->grid_shapes,
                    "RANKS=AxB[xC]: the grid's shape at a rank count where the program does not take "
                    "MPI_Dims_create's (repeatable)");
    cmd->add_option("--grid-domain", o->grid_domain,
                    "NXxNY[xNZ]: the global domain's extent along the grid's dimensions, largest grid extent "
                    "first, where it is not cubic");
    cmd->add_option(
        "--machine", o->machine,
        "machine file: place each function's fitted flops and bytes on its roofline at the --predict "
        "target, and say where its bottleneck changes");
    auto* json = cmd->add_flag("--json", o->json, "print JSON instead of a table");
    cmd->add_flag("--csv", o->csv, "print CSV instead of a table")->excludes(json);
}

} // namespace roofcast::cli
