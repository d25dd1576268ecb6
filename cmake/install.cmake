# Install rules: the roofcast command (and the MPI probe and stencil runner it launches, found beside it), the
# marker library with its header, and a CMake package so that a user's project can write
#   find_package(roofcast REQUIRED)
#   target_link_libraries(app PRIVATE roofcast::marker)
include(CMakePackageConfigHelpers)

install(TARGETS roofcast RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET roofcast-mpi-probe)
  install(TARGETS roofcast-mpi-probe RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
if(TARGET roofcast-stencil)
  install(TARGETS roofcast-stencil RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(TARGETS roofcast-marker EXPORT roofcastTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${CMAKE_SOURCE_DIR}/include/roofcast/marker.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/roofcast)

set(roofcast_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/roofcast)
install(EXPORT roofcastTargets NAMESPACE roofcast:: FILE roofcastTargets.cmake DESTINATION ${roofcast_cmake_dir})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/roofcastConfig.cmake.in
  ${CMAKE_BINARY_DIR}/roofcastConfig.cmake
  INSTALL_DESTINATION ${roofcast_cmake_dir}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/roofcastConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/roofcastConfig.cmake ${CMAKE_BINARY_DIR}/roofcastConfigVersion.cmake
  DESTINATION ${roofcast_cmake_dir})
