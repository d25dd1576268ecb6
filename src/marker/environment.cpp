// Reads the marker's configuration from the environment: output directory, PAPI events, and the MPI rank
// and size as the launcher exports them (the library never links MPI, so it cannot ask MPI_Comm_rank).
#include "state.hpp"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <optional>

namespace roofcast::marker::detail {
namespace {

// Ranks and numbers of ranks past this are refused: 2^30, so that rank + 1 (the lower bound written when
// no size is given) is still an int.
constexpr long k_max_rank = 1L << 30;

std::optional<int> env_int(const char* name, Config& config) {
    const char* text = std::getenv(name);
    if (text == nullptr || *text == '\0') {
        return std::nullopt;
    }
    char* end = nullptr;
    errno = 0;
    const long value = std::strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < 0 || value > k_max_rank) {
        config.env_warnings.push_back(std::string(name) + "=" + display(text) +
                                      " is not an integer from 0 to " + std::to_string(k_max_rank) +
                                      "; ignored");
        return std::nullopt;
    }
    return static_cast<int>(value);
}

std::vector<std::string> split_commas(const char* text) {
    std::vector<std::string> items;
    std::string item;
    for (const char* c = text;; ++c) {
        if (*c == ',' || *c == '\0') {
            const auto first = item.find_first_not_of(" \t");
            if (first != std::string::npos) {
                items.push_back(item.substr(first, item.find_last_not_of(" \t") - first + 1));
            }
            item.clear();
            if (*c == '\0') {
                break;
            }
        } else {
            item += *c;
        }
    }
    return items;
}

} // namespace

Config config_from_env() {
    Config config;
    if (const char* dir = std::getenv("ROOFCAST_MARKER_OUTPUT"); dir != nullptr) {
        config.output_dir = dir;
        // Relative to the directory the program started in, even if it changes directory before exit.
        std::error_code ec;
        if (!config.output_dir.empty() && config.output_dir[0] != '/') {
            const auto cwd = std::filesystem::current_path(ec);
            if (!ec) {
                config.output_dir = (cwd / config.output_dir).string();
            }
        }
    }
    if (const char* events = std::getenv("ROOFCAST_MARKER_PAPI"); events != nullptr) {
        config.papi_requested = split_commas(events);
    }
    // Launchers in the contract's order (docs/formats-marker.md); PMIx exports no size of its own.
    struct Launcher {
        const char* rank;
        const char* size;
    };
    static constexpr Launcher k_launchers[] = {{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                               {"PMIX_RANK", nullptr},
                                               {"PMI_RANK", "PMI_SIZE"},
                                               {"SLURM_PROCID", "SLURM_NTASKS"}};
    for (const Launcher& launcher : k_launchers) {
        const auto rank = env_int(launcher.rank, config);
        if (!rank) {
            continue;
        }
        config.rank = *rank;
        int size = -1;
        if (launcher.size != nullptr) {
            size = env_int(launcher.size, config).value_or(-1);
        }
        for (const Launcher& other : k_launchers) {
            if (size < 0 && other.size != nullptr) {
                size = env_int(other.size, config).value_or(-1);
            }
        }
        if (size <= *rank) {
            config.env_warnings.push_back(std::string("rank from ") + launcher.rank +
                                          " but no consistent number of ranks in the environment; "
                                          "ranks is rank + 1, a lower bound");
            size = *rank + 1;
        }
        config.ranks = size;
        break;
    }
    return config;
}

} // namespace roofcast::marker::detail
