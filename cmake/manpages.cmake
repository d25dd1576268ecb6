# Writes roofcast.1.gz and one roofcast-SUBCOMMAND.1.gz per subcommand into OUT_DIR, each made by help2man
# from the built binary's own --help (never a copy of the help text), gzipped with -9n as Debian policy
# (section 12.1) asks. Their date is SOURCE_DATE_EPOCH where the environment sets it, else the time of the
# checkout's last commit (SOURCE_DIR, when it is a git checkout), else the build's: the same sources give the
# same pages (reproducible-builds.org/specs/source-date-epoch). Run by cmake/package.cmake at build time:
#   cmake -DROOFCAST=... -DCLI_DOCS=... -DHELP2MAN=... -DGZIP=... -DBASH=... -DVERSION=... -DOUT_DIR=...
#         [-DSOURCE_DIR=...] -P manpages.cmake
foreach(var ROOFCAST CLI_DOCS HELP2MAN GZIP BASH VERSION OUT_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "manpages.cmake: ${var} is not set")
  endif()
endforeach()

execute_process(COMMAND ${CLI_DOCS} commands OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR listing STREQUAL "")
  message(FATAL_ERROR "manpages.cmake: '${CLI_DOCS} commands' failed (${rc})")
endif()
if(listing MATCHES ";")
  message(FATAL_ERROR "manpages.cmake: a command's description holds a ';', which a CMake list cannot carry")
endif()
string(REPLACE "\n" ";" lines "${listing}")

set(epoch "$ENV{SOURCE_DATE_EPOCH}")
if(epoch STREQUAL "" AND DEFINED SOURCE_DIR AND EXISTS ${SOURCE_DIR}/.git)
  find_program(GIT git)
  if(GIT)
    execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} log -1 --format=%ct OUTPUT_VARIABLE epoch
                    OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_QUIET)
    if(NOT rc EQUAL 0 OR NOT epoch MATCHES "^[0-9]+$")
      set(epoch "")
    endif()
  endif()
endif()
set(date_env "")
if(NOT epoch STREQUAL "")
  set(date_env SOURCE_DATE_EPOCH=${epoch})
endif()

set(work ${OUT_DIR}.work)
file(REMOVE_RECURSE ${work} ${OUT_DIR})
file(MAKE_DIRECTORY ${work} ${OUT_DIR})
set(see_also "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([^\t]+)\t")
    if(NOT CMAKE_MATCH_1 STREQUAL "roofcast")
      string(APPEND see_also ".BR roofcast-${CMAKE_MATCH_1} (1),\n")
    endif()
  endif()
endforeach()
string(REGEX REPLACE ",\n$" "\n" see_also "${see_also}")

foreach(line IN LISTS lines)
  if(NOT line MATCHES "^([^\t]+)\t(.*)$")
    continue()
  endif()
  set(name ${CMAKE_MATCH_1})
  set(description "${CMAKE_MATCH_2}")
  # help2man runs a program with --help: for a subcommand, a wrapper named like its page that runs
  # `roofcast NAME` under the argv[0] `roofcast`, so the usage line reads as a user types it.
  if(name STREQUAL "roofcast")
    set(page roofcast)
    set(args "")
    file(WRITE ${work}/roofcast.h2m "[SEE ALSO]\n${see_also}")
  else()
    set(page roofcast-${name})
    set(args " ${name}")
    file(WRITE ${work}/${page}.h2m "[SEE ALSO]\n.BR roofcast (1)\n")
  endif()
  file(WRITE ${work}/bin/${page} "#!${BASH}\nexec -a roofcast '${ROOFCAST}'${args} \"$@\"\n")
  file(CHMOD ${work}/bin/${page} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env ${date_env} ${HELP2MAN} --no-info --no-discard-stderr --section=1 "--name=${description}"
            "--version-string=${page} ${VERSION}" "--source=roofcast ${VERSION}" --include=${work}/${page}.h2m
            --output=${work}/${page}.1 ${work}/bin/${page}
    RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "manpages.cmake: help2man failed for ${page}: ${err}")
  endif()
  execute_process(COMMAND ${GZIP} -9n -c ${work}/${page}.1 OUTPUT_FILE ${OUT_DIR}/${page}.1.gz RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "manpages.cmake: gzip failed for ${page}")
  endif()
endforeach()
file(REMOVE_RECURSE ${work})
