/* roofcast marker API: named, nested regions in a user's own program, timed per thread and written to one
 * JSON file per process, so `roofcast profile` can place each region on the roofline and in the scaling
 * forecast. Usable from C (C89 and later), C++ (C++11 and later) and Fortran; link the shared library
 * `roofcast-marker` (CMake: find_package(roofcast REQUIRED) and target_link_libraries(app roofcast::marker)).
 *
 * Contract (the file format is described in docs/formats-marker.md):
 * - Activation: the library reads the environment once, when it is loaded. ROOFCAST_MARKER_OUTPUT=<dir>
 *   makes it active; at exit (or on roofcast_marker_flush) it writes <dir>/marker.<rank>.<pid>.json
 *   atomically (temporary file + rename, <dir> is created when missing). Unset, every call returns after
 *   one branch: no clock read, no allocation, no file. ROOFCAST_MARKER_PAPI=EV1,EV2 asks for PAPI counters
 *   per region (builds with PAPI only); when they cannot be counted the file says why in `papi_error`.
 * - Regions: roofcast_region_begin/end pairs nest per thread; the names of the open regions, outermost
 *   first and joined by "->", form the region's call path ("main->solve->dot"). A region begun on another
 *   thread while that thread has no open region is placed under the regions the main thread has open at
 *   that moment, so regions inside an OpenMP parallel construct share one path across threads.
 * - roofcast_region_end must name the innermost open region of the calling thread; otherwise the call is a
 *   warning in the output naming both regions and the stack is left unchanged. Regions still open at exit
 *   are closed then, with a warning. No call ever aborts the program.
 * - roofcast_region_work adds declared work (floating-point operations, bytes moved) to the innermost open
 *   region of the calling thread, so a region can be placed on the roofline without hardware counters.
 * - Rank and number of ranks come from the launcher's environment (Open MPI, PMIx, PMI, Slurm); the
 *   library never links MPI.
 * - Thread safety: all calls may be made from any thread at any time (OpenMP, pthreads); each thread keeps
 *   its own stack and figures, merged when the file is written.
 * - Names are copied; a name may be any NUL-terminated string (Fortran: trailing blanks are ignored); at
 *   most 256 bytes of it are kept, and "" is kept as "(unnamed)".
 * - Bounds: call paths deeper than 1024 levels and a thread's paths past 100,000 are counted but not
 *   recorded (their begins and ends are matched by count; stderr says so once); a region's declared work
 *   is at most 1e30 (declarations past it are refused with a warning). docs/formats-marker.md, "Limits".
 * - fork: the child records and writes nothing (its calls return after one branch); the parent's file is
 *   unaffected.
 */
#ifndef ROOFCAST_MARKER_H
#define ROOFCAST_MARKER_H

#include <stddef.h>

#if defined(__GNUC__)
#define ROOFCAST_MARKER_EXPORT __attribute__((visibility("default")))
#else
#define ROOFCAST_MARKER_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Opens the region `name` inside the innermost open region of the calling thread. */
ROOFCAST_MARKER_EXPORT void roofcast_region_begin(const char* name);
/* Closes the innermost open region of the calling thread; `name` must match it. */
ROOFCAST_MARKER_EXPORT void roofcast_region_end(const char* name);
/* Adds declared work to the innermost open region of the calling thread (finite, non-negative values). */
ROOFCAST_MARKER_EXPORT void roofcast_region_work(double flops, double bytes);
/* Writes the output file now with the figures so far (closed regions only); later writes replace it. */
ROOFCAST_MARKER_EXPORT void roofcast_marker_flush(void);
/* 1 when ROOFCAST_MARKER_OUTPUT was set when the library was loaded, else 0. */
ROOFCAST_MARKER_EXPORT int roofcast_marker_active(void);

/* Fortran-callable twins (gfortran convention: trailing underscore, hidden length argument by value). */
ROOFCAST_MARKER_EXPORT void roofcast_region_begin_(const char* name, size_t len);
ROOFCAST_MARKER_EXPORT void roofcast_region_end_(const char* name, size_t len);
ROOFCAST_MARKER_EXPORT void roofcast_region_work_(const double* flops, const double* bytes);
ROOFCAST_MARKER_EXPORT void roofcast_marker_flush_(void);
ROOFCAST_MARKER_EXPORT int roofcast_marker_active_(void);

#ifdef __cplusplus
} /* extern "C" */

namespace roofcast {
namespace marker { /* nested the C++11 way: the header serves C++11 and later */

/* A region open for the lifetime of a scope: `roofcast::marker::Region r("solve");`. */
class Region {
public:
    explicit Region(const char* name) : m_name(name) { roofcast_region_begin(name); }
    ~Region() { roofcast_region_end(m_name); }
    Region(const Region&) = delete;
    Region& operator=(const Region&) = delete;

private:
    const char* m_name;
};

} // namespace marker
} // namespace roofcast
#endif

#endif /* ROOFCAST_MARKER_H */
