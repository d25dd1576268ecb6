# What the Debian package carries beyond the install rules of cmake/install.cmake, and the package itself:
#   cmake --build build/release --target package      (or: cd build/release && cpack -G DEB)
# - share/bash-completion/completions/roofcast and one man page per command (roofcast.1, roofcast-SUB.1),
#   both generated at build time from the command-line definition (cli::define_app) and the built binary's
#   own --help, so neither can drift from what roofcast parses;
# - the licence as share/doc/roofcast/copyright (Debian policy 12.5);
# - Depends computed by dpkg-shlibdeps from the binaries' shared libraries where dpkg-dev is installed, else
#   the Debian 12 packages of the libraries roofcast links.

# Prints the completion script and the list of commands; links the CLI layer but is not installed.
add_executable(roofcast-cli-docs ${CMAKE_SOURCE_DIR}/src/cli_docs.cpp)
target_link_libraries(roofcast-cli-docs PRIVATE roofcast::cli)
# A build-time tool (man pages and completion): compiled like the cold layers (CMakeLists.txt, roofcast_layer).
target_compile_options(roofcast-cli-docs PRIVATE ${roofcast_cold_options})

set(roofcast_completion ${CMAKE_BINARY_DIR}/share/bash-completion/roofcast)
add_custom_command(OUTPUT ${roofcast_completion}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/share/bash-completion
  COMMAND roofcast-cli-docs bash-completion ${roofcast_completion}
  DEPENDS roofcast-cli-docs
  COMMENT "Generating the bash completion of roofcast"
  VERBATIM)
set(roofcast_shell_files ${roofcast_completion})
install(FILES ${roofcast_completion} DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/bash-completion/completions)

find_program(ROOFCAST_HELP2MAN help2man)
find_program(ROOFCAST_GZIP gzip)
find_program(ROOFCAST_BASH bash)
if(ROOFCAST_HELP2MAN AND ROOFCAST_GZIP AND ROOFCAST_BASH)
  set(roofcast_man_dir ${CMAKE_BINARY_DIR}/share/man1)
  add_custom_command(OUTPUT ${roofcast_man_dir}.stamp
    COMMAND ${CMAKE_COMMAND} -DROOFCAST=$<TARGET_FILE:roofcast> -DCLI_DOCS=$<TARGET_FILE:roofcast-cli-docs>
            -DHELP2MAN=${ROOFCAST_HELP2MAN} -DGZIP=${ROOFCAST_GZIP} -DBASH=${ROOFCAST_BASH}
            -DVERSION=${PROJECT_VERSION} -DOUT_DIR=${roofcast_man_dir} -DSOURCE_DIR=${CMAKE_SOURCE_DIR}
            -P ${CMAKE_SOURCE_DIR}/cmake/manpages.cmake
    COMMAND ${CMAKE_COMMAND} -E touch ${roofcast_man_dir}.stamp
    DEPENDS roofcast roofcast-cli-docs ${CMAKE_SOURCE_DIR}/cmake/manpages.cmake
    COMMENT "Generating the man pages of roofcast from its --help"
    VERBATIM)
  list(APPEND roofcast_shell_files ${roofcast_man_dir}.stamp)
  install(DIRECTORY ${roofcast_man_dir}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "help2man not found: no man pages are generated or installed "
                 "(bash scripts/install-deps.sh --tests installs it)")
endif()
add_custom_target(roofcast-shell-docs ALL DEPENDS ${roofcast_shell_files})

install(FILES ${CMAKE_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME copyright)
# The changes of every release, compressed as Debian policy 12.7 wants a native package's changelog.gz
# (gzip -n: no name or time stamp in the header, so the file depends on CHANGELOG.md alone).
if(ROOFCAST_GZIP AND ROOFCAST_BASH)
  set(roofcast_changelog ${CMAKE_BINARY_DIR}/share/changelog.gz)
  add_custom_command(OUTPUT ${roofcast_changelog}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/share
    COMMAND ${ROOFCAST_BASH} -c "\"$0\" -9nc \"$1\" > \"$2\"" ${ROOFCAST_GZIP} ${CMAKE_SOURCE_DIR}/CHANGELOG.md
            ${roofcast_changelog}
    DEPENDS ${CMAKE_SOURCE_DIR}/CHANGELOG.md
    COMMENT "Compressing the changelog for the package"
    VERBATIM)
  add_custom_target(roofcast-changelog ALL DEPENDS ${roofcast_changelog})
  install(FILES ${roofcast_changelog} DESTINATION ${CMAKE_INSTALL_DOCDIR})
endif()

set(ROOFCAST_PACKAGE_MAINTAINER "the roofcast authors" CACHE STRING "Maintainer field of the Debian package")
set(ROOFCAST_PACKAGE_HOMEPAGE "" CACHE STRING "Homepage field of the Debian package (left out when empty)")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME roofcast)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "the roofcast authors")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "roofline models, machine measurement, profiling and scaling forecasts")
# Lines under 80 characters, as the Description field wants them (Debian policy 5.6.13).
set(CPACK_PACKAGE_DESCRIPTION "roofcast measures a machine's compute ceilings and memory bandwidths, predicts
kernels with roofline-family models, profiles programs per function and region,
and forecasts how they scale. The package also carries the region-marker
library (libroofcast-marker, roofcast/marker.h) and its CMake package:
find_package(roofcast) gives the imported target roofcast::marker.")
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${ROOFCAST_PACKAGE_MAINTAINER}")
if(ROOFCAST_PACKAGE_HOMEPAGE)
  set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${ROOFCAST_PACKAGE_HOMEPAGE}")
endif()
# libroofcast-marker.so.0 gets a shlibs file and the ldconfig trigger, so programs built against it depend on
# the package.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
find_program(ROOFCAST_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(ROOFCAST_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  # The Debian 12 packages of the libraries the binaries link (ldd of roofcast, roofcast-stencil and the
  # marker library); dpkg-shlibdeps (dpkg-dev) computes the same list with versions.
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6, libstdc++6, libgcc-s1, libgomp1, libhwloc15, libyaml-cpp0.7, libfmt9, \
libarchive13, libpugixml1v5, zlib1g, libre2-9")
  if(PAPI_FOUND)
    string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libpapi7.0")
  endif()
  if(MPI_CXX_FOUND)
    string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libopenmpi3")
  endif()
endif()
# mpirun launches the MPI probe and the stencil runner; objdump (binutils) reads loops for `inspect`; the
# profile backends use valgrind and perf where installed.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "openmpi-bin, binutils")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "valgrind, linux-perf, libc6-dbg")
include(CPack)
