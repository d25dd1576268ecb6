/* Internal hook of the marker library for its own tests (not installed): discards every figure and
 * re-reads the environment, as at library load. Call it only while no thread is inside a region. */
#ifndef ROOFCAST_MARKER_TESTING_H
#define ROOFCAST_MARKER_TESTING_H

#include "roofcast/marker.h"

#ifdef __cplusplus
extern "C" {
#endif

ROOFCAST_MARKER_EXPORT void roofcast_marker_testing_reinit(void);

#ifdef __cplusplus
}
#endif

#endif
