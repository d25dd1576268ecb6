// The concurrent address streams of a loop nest's innermost loop, and what they imply for the caches'
// sets and the TLB (evidence for the diagnosis, experiment/diagnosis.hpp). Pure functions of the declared
// loop nest: no measurement.
//
// A stream is one array walked by the innermost loop at one position of the outer indices: accesses of
// the same array whose byte offsets lie within k_stream_merge_bytes of each other (a(i-1), a(i), a(i+1))
// share a stream; a(j+1) one row away is another. Arrays are assumed to start at the same offset modulo
// every cache's set span and every page, which is what large allocations get (page-aligned mmap, plus
// the allocator's fixed header), so two streams conflict exactly when their offsets inside their arrays
// do (Hager & Wellein, "Introduction to High Performance Computing for Scientists and Engineers", 2010,
// §3.3 "cache thrashing" and §3.4 on padding).
#pragma once

#include "model/kernel.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace roofcast::model {

inline constexpr double k_stream_merge_bytes = 128; // two cache lines

struct AccessStream {
    std::string array;
    double offset_bytes = 0; // of the stream's first access, from the array's origin at the same iteration
    bool write = false;      // written by at least one of its accesses
    int accesses = 0;
};

struct StreamSummary {
    std::vector<AccessStream> streams; // in declaration order of their first access
    int reads = 0;                     // streams only read
    int writes = 0;                    // streams written (read-modify-write counts as a write)
    int total() const { return reads + writes; }
};

// Streams of the innermost loop of `nest` (element sizes from the arrays' types; `file` names errors).
StreamSummary innermost_streams(const LoopNest& nest, const std::string& file = "");

// How many streams fall into one set of a cache of `size_bytes` with `associativity` ways and `line` bytes
// (the largest such count): above the associativity, the streams evict each other's lines between the
// reuses of a line.
int max_streams_per_set(const StreamSummary& s, double size_bytes, int associativity, double line = 64);

// Distinct pages of `page_bytes` the streams touch at one iteration (streams within one page share it).
int pages_in_flight(const StreamSummary& s, double page_bytes = 4096);

} // namespace roofcast::model
