// The tiny machine the suite-catalogue tests size their kernels for: one core, caches of 4 KiB, 32 KiB
// and 256 KiB, entered roofs of 400, 200, 100 and 20 GB/s and peaks of 100 / 200 GFLOP/s, so the
// catalogue's arrays stay small enough to run the bodies in a test.
#pragma once

#include "core/machine.hpp"

#include <string>
#include <utility>
#include <vector>

namespace roofcast::test {

inline core::Machine tiny_machine() {
    core::Machine m;
    m.name = "tiny";
    m.peak_gflops = {{"double", 100}, {"single", 200}};
    core::Topology t;
    t.cores = 1;
    t.caches = {{"L1", 4096, 64, {}, 1, 1, {}, ""},
                {"L2", 32768, 64, {}, 1, 1, {}, ""},
                {"L3", 262144, 64, {}, 1, 1, {}, ""}};
    m.topology = t;
    const std::vector<std::pair<std::string, double>> levels{
        {"L1", 400}, {"L2", 200}, {"L3", 100}, {"MEM", 20}};
    for (const auto& [name, bw] : levels) {
        core::Level l;
        l.name = name;
        l.bandwidth_gbs = bw;
        m.levels.push_back(l);
    }
    return m;
}

} // namespace roofcast::test
