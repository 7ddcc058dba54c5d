# Installs kktdae into a scratch prefix, then builds and runs an outside project against that
# prefix only, once per set of compiler flags a user might choose. Run by CTest (tests/CMakeLists.txt):
#   cmake -D MODE=install|library_only -D WORK_DIR=… -D CONSUMER_DIR=… -D README=… [more] -P this
# MODE=install        installs the build under test (BUILD_DIR/lib, with CONFIG)
# MODE=library_only   configures PROJECT_DIR as a user who only wants the library would
#                     (README's command: tests, apps, benchmarks and Python off;
#                     BUILD_SHARED_LIBS=SHARED), builds and installs it, and checks the installed
#                     files (no programs, no Python module, the .so's versioned SONAME)
# EXTRA_FLAGS: added to every consumer build (the sanitizer flags of a sanitized build under test).
# CXX, EIGEN_INCLUDE: the compiler and Eigen's include directory (MODE=install's last check).
# LAUNCHER: compiler launcher for the library-only build (ccache when the build under test has it).
# VERSION: the project version (names the shared library's files).
cmake_policy(VERSION 3.25)  # list(GET) keeps the empty flags field (CMP0007)
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")

function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "step failed (${result}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()

function(run_and_show name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${name}:\n${out}${err}")
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${name} failed (${result}): ${ARGN}")
  endif()
endfunction()

# ---- the install tree -----------------------------------------------------------------------
if(MODE STREQUAL "install")
  run_step(${CMAKE_COMMAND} --install "${BUILD_DIR}/lib" --prefix "${prefix}" --config "${CONFIG}")
elseif(MODE STREQUAL "library_only")
  set(launcher "")
  if(LAUNCHER)
    set(launcher "-DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER}")
  endif()
  # ccache logs this build's lookups apart, to say below how much of lib/ it served; the lines
  # then go on to the log of the run around the test (.ci/run's), if there is one.
  set(outer_stats_log "$ENV{CCACHE_STATSLOG}")
  set(ENV{CCACHE_STATSLOG} "${WORK_DIR}/ccache_stats.log")
  string(TIMESTAMP start "%s")
  run_step(${CMAKE_COMMAND} -S "${PROJECT_DIR}" -B "${WORK_DIR}/library" -DCMAKE_BUILD_TYPE=Release
           -DKKTDAE_BUILD_TESTS=OFF -DKKTDAE_BUILD_APPS=OFF -DKKTDAE_BUILD_BENCHMARKS=OFF
           -DKKTDAE_BUILD_PYTHON=OFF "-DBUILD_SHARED_LIBS=${SHARED}" ${launcher})
  run_step(${CMAKE_COMMAND} --build "${WORK_DIR}/library" -j2)
  run_step(${CMAKE_COMMAND} --install "${WORK_DIR}/library" --prefix "${prefix}")
  string(TIMESTAMP end "%s")
  set(ENV{CCACHE_STATSLOG} "${outer_stats_log}")
  math(EXPR seconds "${end} - ${start}")
  set(cached "")
  if(EXISTS "${WORK_DIR}/ccache_stats.log")
    file(STRINGS "${WORK_DIR}/ccache_stats.log" stats)
    list(FILTER stats INCLUDE REGEX "^(direct_cache_hit|preprocessed_cache_hit|cache_miss)$")
    set(misses ${stats})
    list(FILTER misses INCLUDE REGEX "^cache_miss$")
    list(LENGTH stats lookups)
    list(LENGTH misses compiled)
    math(EXPR served "${lookups} - ${compiled}")
    set(cached "; ccache served ${served} of its ${lookups} compiles")
    if(outer_stats_log)
      file(READ "${WORK_DIR}/ccache_stats.log" lines)
      file(APPEND "${outer_stats_log}" "${lines}")
    endif()
  endif()
  message(STATUS "library-only build and install (BUILD_SHARED_LIBS=${SHARED}): ${seconds} s${cached}")

  file(GLOB_RECURSE installed RELATIVE "${prefix}" "${prefix}/lib*/libkktdae*")
  file(GLOB_RECURSE apps "${prefix}/bin/*")
  if(apps)
    message(FATAL_ERROR "a library-only install installed programs: ${apps}")
  endif()
  file(GLOB_RECURSE python "${prefix}/_kktdae*")
  if(python)
    message(FATAL_ERROR "a library-only install installed the Python module: ${python}")
  endif()
  string(REGEX MATCH "^[0-9]+\\.[0-9]+" soversion "${VERSION}")
  if(SHARED)
    foreach(name "libkktdae.so" "libkktdae.so.${soversion}" "libkktdae.so.${VERSION}")
      if(NOT installed MATCHES "(^|;)lib[^;]*/${name}(;|$)")
        message(FATAL_ERROR "the shared install lacks ${name}; it has: ${installed}")
      endif()
    endforeach()
    if(installed MATCHES "libkktdae\\.a")
      message(FATAL_ERROR "a shared install also installed the static library: ${installed}")
    endif()
    file(GLOB_RECURSE library "${prefix}/lib*/libkktdae.so.${VERSION}")
    find_program(READELF readelf REQUIRED)
    execute_process(COMMAND "${READELF}" -d "${library}" OUTPUT_VARIABLE dynamic)
    if(NOT dynamic MATCHES "Library soname: \\[libkktdae\\.so\\.${soversion}\\]")
      message(FATAL_ERROR "libkktdae's SONAME is not libkktdae.so.${soversion}:\n${dynamic}")
    endif()
  elseif(NOT installed MATCHES "libkktdae\\.a" OR installed MATCHES "libkktdae\\.so")
    message(FATAL_ERROR "a static install should hold libkktdae.a only; it has: ${installed}")
  endif()
else()
  message(FATAL_ERROR "MODE must be install or library_only, got '${MODE}'")
endif()

# ---- the package's SUNDIALS: IDAS and CVODES, never IDA or CVODE beside them -----------------
# IDAS and CVODES define the same symbols as IDA and CVODE: a consumer linking both pairs gets
# whichever the linker meets first, and the sensitivity drivers need the S versions.
file(GLOB_RECURSE package_files "${prefix}/*/cmake/kktdae/*.cmake")
set(package_text "")
foreach(package_file IN LISTS package_files)
  file(READ "${package_file}" text)
  string(APPEND package_text "${text}")
endforeach()
set(wanted_names "COMPONENTS cvodes idas")
file(GLOB_RECURSE static_library "${prefix}/*/libkktdae.a")
if(static_library)  # a shared libkktdae carries its SUNDIALS in its own DT_NEEDED instead
  list(APPEND wanted_names "SUNDIALS::idas" "SUNDIALS::cvodes")
endif()
foreach(wanted IN LISTS wanted_names)
  string(FIND "${package_text}" "${wanted}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "the installed CMake package does not name ${wanted}: ${package_files}")
  endif()
endforeach()
if(package_text MATCHES "SUNDIALS::(ida|cvode)[^s]" OR package_text MATCHES "COMPONENTS (ida|cvode) ")
  message(FATAL_ERROR "the installed CMake package still names SUNDIALS' IDA or CVODE (${CMAKE_MATCH_0})")
endif()

# ---- README's example, exactly as printed ---------------------------------------------------
file(READ "${README}" readme)
string(FIND "${readme}" "## A model in a few lines" section)
string(SUBSTRING "${readme}" ${section} -1 readme)
string(REGEX MATCH "```cpp\n(.*)" readme "${readme}")
string(FIND "${CMAKE_MATCH_1}" "\n```" block_end)
if(section EQUAL -1 OR block_end EQUAL -1)
  message(FATAL_ERROR "no ```cpp block under '## A model in a few lines' in ${README}")
endif()
string(SUBSTRING "${CMAKE_MATCH_1}" 0 ${block_end} example)
file(WRITE "${WORK_DIR}/readme_example.cpp" "${example}\n")

# ---- the consumer, once per set of flags ----------------------------------------------------
# name | build type | compiler flags | C++ standard. -march=native: on a CPU with AVX it is where
# the library (built for the baseline ISA) and its user disagreed on Eigen's allocation (issue 15).
set(variants "release|Release||17" "debug|Debug||17" "march_native|Release|-O2 -march=native|20")
if(EXISTS /proc/cpuinfo)
  file(STRINGS /proc/cpuinfo cpu_flags REGEX "^flags" LIMIT_COUNT 1)
  if(cpu_flags MATCHES " avx2( |$)" AND cpu_flags MATCHES " fma( |$)")
    list(APPEND variants "avx2_fma|Release|-O2 -mavx2 -mfma|17")
  endif()
endif()
foreach(variant IN LISTS variants)
  string(REPLACE "|" ";" fields "${variant}")
  list(GET fields 0 name)
  list(GET fields 1 build_type)
  list(GET fields 2 flags)
  list(GET fields 3 standard)
  set(build "${WORK_DIR}/consumer_${name}")
  run_step(${CMAKE_COMMAND} -S "${CONSUMER_DIR}" -B "${build}" "-DCMAKE_PREFIX_PATH=${prefix}"
           "-DCMAKE_BUILD_TYPE=${build_type}" "-DCMAKE_CXX_STANDARD=${standard}"
           "-DCMAKE_CXX_FLAGS=${flags} ${EXTRA_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${EXTRA_FLAGS}"
           "-DREADME_EXAMPLE=${WORK_DIR}/readme_example.cpp")
  run_step(${CMAKE_COMMAND} --build "${build}" -j2)
  run_and_show("consumer [${name}: ${build_type} '${flags}', C++${standard}]" "${build}/consumer")
  run_and_show("README example [${name}]" "${build}/readme_example")
endforeach()

# ---- without the target's definitions, the headers refuse to compile -------------------------
# A user who compiles by hand (no CMake) with -march=native must get our message, not a crash.
if(MODE STREQUAL "install")
  file(WRITE "${WORK_DIR}/no_definitions.cpp" "#include <kktdae/core/types.hpp>\nint main() {}\n")
  execute_process(COMMAND "${CXX}" -std=c++17 -march=native -fsyntax-only "-I${prefix}/include"
                          "-I${EIGEN_INCLUDE}" "${WORK_DIR}/no_definitions.cpp"
                  RESULT_VARIABLE result ERROR_VARIABLE err OUTPUT_QUIET)
  if(result EQUAL 0 OR NOT err MATCHES "kktdae: compile with -DEIGEN_MAX_ALIGN_BYTES=16")
    message(FATAL_ERROR "compiling kktdae's headers without EIGEN_MAX_ALIGN_BYTES=16 and "
                        "EIGEN_MALLOC_ALREADY_ALIGNED=0 did not fail with kktdae's message:\n${err}")
  endif()
  message(STATUS "without the target's definitions the headers refuse to compile, as they should")
endif()
