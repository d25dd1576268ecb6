// roofcast-mpi-probe: the MPI ping-pong that `roofcast machine` launches with mpirun (2 ranks).
// Rank 0 sends a message of m bytes, rank 1 returns it; the one-way time is half the round trip
// (the ping-pong of Hockney, Parallel Computing 20(3), 1994, section 3, and of the Intel MPI
// Benchmarks' PingPong). Every message size is timed `samples` times; sizes are interleaved within
// each round, so a change of host load hits all sizes alike. One sample repeats the round trip until
// it lasts at least `min_seconds` (iteration count chosen once per size, identically on both ranks).
// Rank 0 writes the raw samples as JSON to --out; `roofcast machine` summarizes and fits them.
//   roofcast-mpi-probe --out FILE [--sizes 1,8,...] [--samples N] [--min-seconds S]
#include <mpi.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Args {
    std::string out;
    std::vector<std::uint64_t> sizes;
    int samples = 11;
    double min_seconds = 0.005;
};

[[noreturn]] void usage_error(const std::string& what) {
    std::fprintf(stderr, "roofcast-mpi-probe: %s\n", what.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
    std::exit(2);
}

Args parse(int argc, char** argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string k = argv[i];
        if (i + 1 >= argc)
            usage_error("option " + k + " needs a value");
        const std::string v = argv[++i];
        char* end = nullptr;
        if (k == "--out") {
            a.out = v;
        } else if (k == "--samples") {
            const long n = std::strtol(v.c_str(), &end, 10);
            if (*end || n < 1 || n > 1000)
                usage_error("--samples: expected an integer in 1..1000, got '" + v + "'");
            a.samples = static_cast<int>(n);
        } else if (k == "--min-seconds") {
            const double s = std::strtod(v.c_str(), &end);
            if (*end || !(s > 0 && s < 10))
                usage_error("--min-seconds: expected a number in (0, 10), got '" + v + "'");
            a.min_seconds = s;
        } else if (k == "--sizes") {
            std::stringstream ss(v);
            for (std::string item; std::getline(ss, item, ',');) {
                const unsigned long long b = std::strtoull(item.c_str(), &end, 10);
                if (item.empty() || *end || b < 1 || b > (1ull << 30) ||
                    (!a.sizes.empty() && b <= a.sizes.back()))
                    usage_error("--sizes: expected increasing byte counts in 1..1GiB, got '" + v + "'");
                a.sizes.push_back(b);
            }
        } else {
            usage_error("unknown option " + k);
        }
    }
    if (a.out.empty())
        usage_error("--out FILE is required");
    if (a.sizes.empty())
        for (std::uint64_t b = 1; b <= (std::uint64_t{16} << 20); b *= 4)
            a.sizes.push_back(b);
    return a;
}

// `iters` round trips of `bytes` between ranks 0 and 1 (other ranks idle); seconds on rank 0.
double round_trips(char* buf, std::uint64_t bytes, std::uint64_t iters, int rank) {
    const int n = static_cast<int>(bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (std::uint64_t i = 0; i < iters; ++i) {
        if (rank == 0) {
            MPI_Send(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t0;
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    int size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const Args a = parse(argc, argv);
    if (size < 2)
        usage_error("needs at least 2 ranks (run it under mpirun -np 2)");

    // One page-aligned buffer of the largest size, touched by its owner (first-touch placement).
    const std::uint64_t cap = a.sizes.back();
    std::unique_ptr<char, decltype(&std::free)> buf(
        static_cast<char*>(std::aligned_alloc(4096, (cap + 4095) / 4096 * 4096)), &std::free);
    if (!buf)
        usage_error("cannot allocate the message buffer");
    std::memset(buf.get(), rank + 1, cap);

    // Iterations per sample: doubled until a sample lasts min_seconds (rank 0 decides, both follow).
    std::vector<std::uint64_t> iters(a.sizes.size(), 1);
    for (std::size_t s = 0; s < a.sizes.size(); ++s) {
        round_trips(buf.get(), a.sizes[s], 2, rank); // warm-up: connection set-up, page faults
        for (;;) {
            const double t = round_trips(buf.get(), a.sizes[s], iters[s], rank);
            int again = rank == 0 && t < a.min_seconds && iters[s] < (std::uint64_t{1} << 24);
            MPI_Bcast(&again, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (!again)
                break;
            iters[s] *= 2;
        }
    }

    std::vector<std::vector<double>> one_way(a.sizes.size());
    for (int r = 0; r < a.samples; ++r)
        for (std::size_t s = 0; s < a.sizes.size(); ++s) {
            const double t = round_trips(buf.get(), a.sizes[s], iters[s], rank);
            one_way[s].push_back(t / (2.0 * static_cast<double>(iters[s])));
        }

    // Where the ranks ran, for the machine file's placement line.
    char host[MPI_MAX_PROCESSOR_NAME] = {};
    int len = 0;
    MPI_Get_processor_name(host, &len);
    std::vector<char> hosts(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
    MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
               MPI_COMM_WORLD);

    int rc = 0;
    if (rank == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {};
        int lib_len = 0;
        MPI_Get_library_version(lib, &lib_len);
        std::string library(lib, static_cast<std::size_t>(lib_len));
        library = library.substr(0, library.find_first_of(",\n"));
        nlohmann::json j;
        j["ranks"] = size;
        j["library"] = library;
        j["wtick_s"] = MPI_Wtick();
        for (int r = 0; r < size; ++r)
            j["hosts"].push_back(std::string(&hosts[static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME]));
        for (std::size_t s = 0; s < a.sizes.size(); ++s)
            j["points"].push_back(
                {{"bytes", a.sizes[s]}, {"iterations", iters[s]}, {"one_way_seconds", one_way[s]}});
        std::ofstream out(a.out);
        out << j.dump(1) << "\n";
        if (!out) {
            std::fprintf(stderr, "roofcast-mpi-probe: cannot write %s\n", a.out.c_str());
            rc = 1;
        }
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return rc;
}
