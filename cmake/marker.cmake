# The region-marker library users link into their own programs (include/roofcast/marker.h). It is a
# separate shared library: it links neither MPI nor the roofcast layers, only the C++ runtime, threads
# and, where found, PAPI; every symbol but the API is hidden.
add_library(roofcast-marker SHARED
  ${CMAKE_SOURCE_DIR}/src/marker/marker.cpp
  ${CMAKE_SOURCE_DIR}/src/marker/environment.cpp
  ${CMAKE_SOURCE_DIR}/src/marker/output.cpp
  ${CMAKE_SOURCE_DIR}/src/marker/papi.cpp
  ${CMAKE_SOURCE_DIR}/src/marker/text.cpp
  ${CMAKE_SOURCE_DIR}/src/marker/tree.cpp)
add_library(roofcast::marker ALIAS roofcast-marker)
set_target_properties(roofcast-marker PROPERTIES
  OUTPUT_NAME roofcast-marker
  EXPORT_NAME marker
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
target_include_directories(roofcast-marker PUBLIC
  $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(roofcast-marker PRIVATE nlohmann_json::nlohmann_json Threads::Threads)
if(PAPI_FOUND)
  target_link_libraries(roofcast-marker PRIVATE PkgConfig::PAPI)
  target_compile_definitions(roofcast-marker PRIVATE ROOFCAST_HAVE_PAPI=1)
endif()
target_link_options(roofcast-marker PRIVATE "LINKER:--version-script=${CMAKE_SOURCE_DIR}/src/marker/exports.map")
set_property(TARGET roofcast-marker APPEND PROPERTY LINK_DEPENDS ${CMAKE_SOURCE_DIR}/src/marker/exports.map)

# bench/marker-overhead.sh runs this: cost of a begin/end pair, active and inactive.
add_executable(roofcast-marker-overhead ${CMAKE_SOURCE_DIR}/bench/marker_overhead.cpp)
target_link_libraries(roofcast-marker-overhead PRIVATE roofcast::marker)

# tests/e2e/marker_limits.sh and test_marker run this: programs that push the library past its bounds (deep
# nesting, many paths, forks, huge names) in a process of their own.
if(ROOFCAST_BUILD_TESTS)
  add_executable(roofcast-marker-driver ${CMAKE_SOURCE_DIR}/tests/marker/driver/marker_driver.cpp)
  target_link_libraries(roofcast-marker-driver PRIVATE roofcast::marker Threads::Threads)
endif()
