-- Writes the likwid-perfctr marker CSV fixtures (`likwid-perfctr -m -O`) with likwid's own output routine
-- (likwid.printOutput of the Debian package likwid 5.2.2), fed with set counter values: the counters
-- cannot be read where the fixtures were made (no /dev/cpu/*/msr in a VM), so the values are chosen here
-- and everything else (layout, headers, number formatting, the STAT and Metric tables) is likwid's.
-- likwid prints to standard output, as likwid-perfctr does:
--   lua5.3 make-fixtures.lua flops-dp >flops-dp.csv; lua5.3 make-fixtures.lua custom-events >custom-events.csv
package.path = '/usr/share/lua/?.lua;' .. package.path
local likwid = require("likwid")

local function fixture(name, groups, regions, cpus)
    if arg[1] ~= name then
        return
    end
    -- groups[g] = {name=, events={{name, counter}...}, metrics={names...}}
    -- regions[r] = {tag=, time={per cpu}, count={per cpu}, values[g][e][c], metrics[g][m][c]}
    likwid.getCpuClock = function() return 2.45e9 end
    likwid.getNameOfGroup = function(g) return groups[g].name end
    likwid.getRuntimeOfGroup = function(g) return 0 end
    likwid.getNumberOfMetrics = function(g) return #groups[g].metrics end
    likwid.getNameOfEvent = function(g, e) return groups[g].events[e][1] end
    likwid.getNameOfCounter = function(g, e) return groups[g].events[e][2] end
    likwid.getNameOfMetric = function(g, m) return groups[g].metrics[m] end
    likwid.markerRegionThreads = function(r) return #cpus end
    likwid.markerRegionCpulist = function(r) return cpus end
    likwid.markerRegionTag = function(r) return regions[r].tag end
    likwid.markerRegionTime = function(r, c) return regions[r].time[c] end
    likwid.markerRegionCount = function(r, c) return regions[r].count[c] end
    use_csv = true
    for r = 1, #regions do
        likwid.printOutput(regions[r].values, regions[r].metrics, cpus, r, false)
    end
end

local flops = {name = "FLOPS_DP",
    events = {{"INSTR_RETIRED_ANY", "FIXC0"}, {"CPU_CLK_UNHALTED_CORE", "FIXC1"},
              {"RETIRED_SSE_AVX_FLOPS_ALL", "PMC0"}, {"MERGE", "PMC1"}},
    metrics = {"Runtime (RDTSC) [s]", "CPI", "DP [MFLOP/s]"}}
fixture("flops-dp", {flops}, {
    {tag = "sum", time = {0.001234, 0.0011}, count = {3, 3},
     values = {{{2000000, 2100000}, {1500000, 1600000}, {3000000, 2999999.5}, {0, 0}}},
     metrics = {{{0.001234, 0.0011}, {0.75, 0.7619}, {2431.1183, 2727.2723}}}},
    {tag = "copy, then scale", time = {0.5, 0.25}, count = {1, 1},
     values = {{{123456789012, 1.5e12}, {98765, 4321}, {0.125, 1e-7}, {0, 7}}},
     metrics = {{{0.5, 0.25}, {8.0005e-07, 2.8807e-09}, {2.5e-07, 4e-13}}}},
}, {0, 2})

local custom = {name = "Custom",
    events = {{"INSTR_RETIRED_ANY", "FIXC0"}, {"L1D_REPLACEMENT", "PMC0"}},
    metrics = {}}
fixture("custom-events", {custom}, {
    {tag = "compute", time = {2.0}, count = {10},
     values = {{{5e9}, {12345}}}, metrics = {{}}},
}, {1})
