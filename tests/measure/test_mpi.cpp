#include "measure/mpi.hpp"

#include "core/stats.hpp"
#include "core/units.hpp"
#include "test_inputs.hpp"

#include <cstdlib>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

using namespace roofcast;
using namespace roofcast::measure;
using roofcast::test::input_error_of;

namespace {

core::MpiPoint mpi_point(std::uint64_t bytes, double seconds) {
    core::MpiPoint p;
    p.bytes = bytes;
    p.seconds = *core::summarize({seconds});
    return p;
}

// A probe document with three samples per size, times alpha + m / beta scaled by 0.9, 1, 1.2.
nlohmann::json probe_json(double alpha, double beta_bytes_per_s) {
    nlohmann::json j;
    j["ranks"] = 2;
    j["library"] = "Open MPI v4.1.4";
    j["hosts"] = {"node7", "node7"};
    for (std::uint64_t b : {1, 64, 4096, 262144, 16777216}) {
        const double t = alpha + static_cast<double>(b) / beta_bytes_per_s;
        j["points"].push_back({{"bytes", b}, {"iterations", 4}, {"one_way_seconds", {1.2 * t, 0.9 * t, t}}});
    }
    return j;
}

} // namespace

TEST(FitHockney, RecoversAlphaAndBetaFromExactData) {
    const double alpha = 1.5e-6, beta = 8e9; // 1.5 us, 8 GB/s
    std::vector<core::MpiPoint> pts;
    for (std::uint64_t b = 1; b <= (1u << 24); b *= 4)
        pts.push_back(mpi_point(b, alpha + static_cast<double>(b) / beta));
    const HockneyFit f = fit_hockney(pts);
    EXPECT_NEAR(f.alpha_s, alpha, 1e-9 * alpha);
    ASSERT_TRUE(f.beta_gbs);
    EXPECT_NEAR(*f.beta_gbs, 8.0, 1e-9 * 8.0);
    EXPECT_LT(f.max_relative_residual, 1e-9);
}

TEST(FitHockney, RelativeResidualsLetSmallMessagesCount) {
    // A 10 % error on the largest message must not wreck the latency: with absolute residuals the
    // intercept would absorb a large part of the big message's error (hundreds of microseconds).
    const double alpha = 2e-6, beta = 5e9;
    std::vector<core::MpiPoint> pts;
    for (std::uint64_t b : {1, 16, 256, 4096, 65536})
        pts.push_back(mpi_point(b, alpha + static_cast<double>(b) / beta));
    pts.push_back(mpi_point(1u << 24, 1.1 * (alpha + (1u << 24) / beta)));
    const HockneyFit f = fit_hockney(pts);
    EXPECT_NEAR(f.alpha_s, alpha, 0.02 * alpha);
    EXPECT_GT(f.max_relative_residual, 0.01);
    EXPECT_LT(f.max_relative_residual, 0.1);
}

TEST(FitHockney, NegativeInterceptIsClampedToZero) {
    // Two points whose straight line crosses zero time at a positive size: alpha would be negative.
    const HockneyFit f = fit_hockney({mpi_point(1000, 1e-7), mpi_point(1000000, 1e-3)});
    EXPECT_EQ(f.alpha_s, 0.0);
    ASSERT_TRUE(f.beta_gbs);
    EXPECT_GT(*f.beta_gbs, 0.0);
}

TEST(FitHockney, RejectsTooFewSizesAndBadTimes) {
    EXPECT_THROW(fit_hockney({mpi_point(8, 1e-6)}), std::invalid_argument);
    EXPECT_THROW(fit_hockney({mpi_point(8, 1e-6), mpi_point(8, 2e-6)}), std::invalid_argument);
    EXPECT_THROW(fit_hockney({}), std::invalid_argument);
    core::MpiPoint zero = mpi_point(64, 1e-6);
    zero.seconds.median = 0;
    EXPECT_THROW(fit_hockney({mpi_point(8, 1e-6), zero}), std::invalid_argument);
}

TEST(MpiFiguresFromProbe, SummarizesLatencyBandwidthAndFit) {
    const double alpha = 1e-6, beta = 10e9;
    const core::MpiFigures f = mpi_figures_from_probe(probe_json(alpha, beta), "p.json");
    EXPECT_EQ(f.source, core::Provenance::measured);
    EXPECT_EQ(f.ranks, 2);
    EXPECT_EQ(f.library, "Open MPI v4.1.4");
    EXPECT_EQ(f.placement, "2 ranks on one node (node7)");
    ASSERT_EQ(f.points.size(), 5u);
    ASSERT_TRUE(f.latency_s);
    const double t1 = alpha + 1 / beta;
    EXPECT_DOUBLE_EQ(f.latency_s->median, t1);
    EXPECT_DOUBLE_EQ(f.latency_s->min, 0.9 * t1);
    EXPECT_DOUBLE_EQ(f.latency_s->max, 1.2 * t1);
    EXPECT_EQ(f.latency_s->n, 3u);
    ASSERT_TRUE(f.bandwidth_gbs);
    const double tbig = alpha + 16777216 / beta;
    EXPECT_NEAR(f.bandwidth_gbs->median, 16777216 / tbig / 1e9, 1e-12);
    EXPECT_NEAR(f.bandwidth_gbs->max, 16777216 / (0.9 * tbig) / 1e9, 1e-12); // the fastest sample
    // The medians are exact, so the fit returns the generating model.
    ASSERT_TRUE(f.alpha_s && f.beta_gbs);
    EXPECT_NEAR(*f.alpha_s, alpha, 1e-9 * alpha);
    EXPECT_NEAR(*f.beta_gbs, 10.0, 1e-8);
}

TEST(MpiFiguresFromProbe, MalformedDocumentsNameTheField) {
    const auto err = [](nlohmann::json j) {
        return input_error_of([&] { mpi_figures_from_probe(j, "p.json"); });
    };
    nlohmann::json j = probe_json(1e-6, 1e10);
    j.erase("points");
    EXPECT_NE(err(j).find("points"), std::string::npos) << err(j);
    j = probe_json(1e-6, 1e10);
    j["ranks"] = 1;
    EXPECT_NE(err(j).find("ranks"), std::string::npos) << err(j);
    j = probe_json(1e-6, 1e10);
    j["points"][1]["one_way_seconds"][2] = -1.0;
    EXPECT_NE(err(j).find("points[1].one_way_seconds"), std::string::npos) << err(j);
    j = probe_json(1e-6, 1e10);
    j["points"][2]["bytes"] = 8;
    EXPECT_NE(err(j).find("increasing"), std::string::npos) << err(j);
    j = probe_json(1e-6, 1e10);
    j["points"][0]["one_way_seconds"] = nlohmann::json::array();
    EXPECT_NE(err(j).find("points[0].one_way_seconds"), std::string::npos) << err(j);
    EXPECT_NE(err(nlohmann::json::array()).find("p.json"), std::string::npos);
}

namespace {

// Sets an environment variable for the scope of one test and restores it afterwards.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : m_name(name) {
        if (const char* old = std::getenv(name))
            m_old = old;
        if (value)
            ::setenv(name, value, 1);
        else
            ::unsetenv(name);
    }
    ~ScopedEnv() {
        if (m_old)
            ::setenv(m_name.c_str(), m_old->c_str(), 1);
        else
            ::unsetenv(m_name.c_str());
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    std::string m_name;
    std::optional<std::string> m_old;
};

} // namespace

TEST(MeasureMpi, MissingPiecesGiveAReasonAndNoFigures) {
    {
        const ScopedEnv probe("ROOFCAST_MPI_PROBE", "/nonexistent/roofcast-mpi-probe");
        const MpiMeasurement m = measure_mpi({});
        EXPECT_FALSE(m.figures);
        EXPECT_NE(m.note.find("ROOFCAST_MPI_PROBE='/nonexistent/roofcast-mpi-probe' is not an executable"),
                  std::string::npos)
            << m.note;
    }
    {
        MpiOptions o;
        o.probe = "/nonexistent/probe";
        const MpiMeasurement m = measure_mpi(o);
        EXPECT_FALSE(m.figures);
        EXPECT_NE(m.note.find("'/nonexistent/probe' is not an executable"), std::string::npos) << m.note;
    }
    {
        // An executable probe but no mpirun on PATH.
        const ScopedEnv path("PATH", "/nonexistent");
        MpiOptions o;
        o.probe = "/bin/true";
        const MpiMeasurement m = measure_mpi(o);
        EXPECT_FALSE(m.figures);
        EXPECT_NE(m.note.find("no mpirun on PATH"), std::string::npos) << m.note;
    }
}
