// cli/host_machine.hpp without measuring: where this host's cached machine file lives, that a cached file is
// used only when it describes this host (measure::host_mismatch), and what --machine and --no-machine do.
// The measuring path (a quick `roofcast machine`) is covered end to end by tests/e2e/run_main_job.sh.
#include "cli/host_machine.hpp"
#include "core/error.hpp"
#include "core/machine.hpp"
#include "measure/machine_run.hpp"
#include "measure/topology.hpp"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <optional>
#include <string>
#include <unistd.h>

namespace roofcast::cli {
namespace {

namespace fs = std::filesystem;

// XDG_CACHE_HOME pointed at a fresh directory for one test, restored afterwards.
class HostCache : public ::testing::Test {
protected:
    void SetUp() override {
        if (const char* v = std::getenv("XDG_CACHE_HOME"))
            m_saved = v;
        m_dir = fs::temp_directory_path() / ("roofcast-host-cache-" + std::to_string(::getpid()));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
        setenv("XDG_CACHE_HOME", m_dir.c_str(), 1);
    }
    void TearDown() override {
        if (m_saved)
            setenv("XDG_CACHE_HOME", m_saved->c_str(), 1);
        else
            unsetenv("XDG_CACHE_HOME");
        fs::remove_all(m_dir);
    }
    // A machine file that describes this host, as `roofcast machine` would record it.
    static core::Machine this_host() {
        core::Machine m =
            core::load_machine(std::string(ROOFCAST_SOURCE_DIR) + "/data/machines/example-caches.yaml");
        m.topology = measure::detect_topology();
        m.measurement_revision = measure::k_measurement_revision;
        m.source = core::Provenance::measured;
        return m;
    }
    void cache(const core::Machine& m) {
        fs::create_directories(host_machine_cache_path().parent_path());
        core::save_machine(host_machine_cache_path().string(), m);
    }
    fs::path m_dir;
    std::optional<std::string> m_saved;
};

TEST_F(HostCache, LivesUnderTheCacheDirectoryNamedByTheHost) {
    const fs::path p = host_machine_cache_path();
    EXPECT_EQ(p.parent_path(), m_dir / "roofcast");
    EXPECT_EQ(p.filename().string().rfind("machine-", 0), 0u);
    EXPECT_EQ(p.extension(), ".yaml");
    for (char c : p.filename().string())
        EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') << p;
}

TEST_F(HostCache, AFileOfThisHostIsUsedAndOneOfAnotherCpuIsNot) {
    const MachineArgs none_given;
    EXPECT_FALSE(use_machine(none_given, WithoutCache::none)) << "an empty cache gave a machine";
    core::Machine here = this_host();
    cache(here);
    const auto used = use_machine(none_given, WithoutCache::none);
    ASSERT_TRUE(used);
    EXPECT_EQ(used->path, host_machine_cache_path().string());
    EXPECT_EQ(used->machine.topology->model_number, here.topology->model_number);
    // The same file but another model of the same family: not this host's, and never measured here.
    core::Machine other = here;
    other.topology->model_number = (*here.topology->model_number + 1) % 256;
    cache(other);
    EXPECT_FALSE(use_machine(none_given, WithoutCache::none));
    EXPECT_FALSE(cached_host_machine(host_machine_cache_path(), "not used"));
    // A file of an older measurement revision neither.
    here.measurement_revision = measure::k_measurement_revision - 1;
    cache(here);
    EXPECT_FALSE(cached_host_machine(host_machine_cache_path(), "not used"));
}

TEST_F(HostCache, MachineAndNoMachine) {
    cache(this_host());
    MachineArgs none;
    none.none = true;
    EXPECT_FALSE(use_machine(none, WithoutCache::measure)) << "--no-machine used a machine";
    MachineArgs given;
    given.file = std::string(ROOFCAST_SOURCE_DIR) + "/data/machines/example-published.yaml";
    const auto used = use_machine(given, WithoutCache::measure);
    ASSERT_TRUE(used);
    EXPECT_EQ(used->path, given.file);
    EXPECT_EQ(used->machine.name, "some-published-system");
    given.none = true;
    EXPECT_THROW(use_machine(given, WithoutCache::measure), core::InputError);
    // A profile's regions without a machine: one error naming the profile.
    EXPECT_THROW(machine_for_profile(none, "p.json"), core::InputError);
}

} // namespace
} // namespace roofcast::cli
