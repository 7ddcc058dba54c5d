# Every dependency comes from a Debian 12 package through find_package; nothing is fetched.
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(spdlog REQUIRED)
# std::thread for the parallel sweeps (kktdae/parallel/sweep.hpp).
find_package(Threads REQUIRED)
# SUNDIALS 6.4: CVODES and IDAS (CVODE and IDA with forward sensitivities and quadratures; the
# same symbol names, so never linked beside CVODE or IDA) for the adaptive integrators and
# sensitivity/, KLU for large sparse DAEs.
find_package(SUNDIALS 6.4 REQUIRED COMPONENTS cvodes idas nvecserial sunmatrixdense
             sunlinsoldense sunmatrixsparse sunlinsolklu sunlinsolspgmr sunnonlinsolnewton sunnonlinsolfixedpoint)
# KLU (SuiteSparse, 64-bit indices) for the sparse block KKT form. Debian's SuiteSparse 5 ships
# no CMake package: find the header and library directly.
find_path(KKTDAE_KLU_INCLUDE_DIR klu.h PATH_SUFFIXES suitesparse REQUIRED)
find_library(KKTDAE_KLU_LIBRARY klu REQUIRED)
if(NOT TARGET SuiteSparse::KLU)
  add_library(SuiteSparse::KLU UNKNOWN IMPORTED)
  set_target_properties(SuiteSparse::KLU PROPERTIES IMPORTED_LOCATION "${KKTDAE_KLU_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${KKTDAE_KLU_INCLUDE_DIR}")
endif()
if(KKTDAE_BUILD_APPS)
  find_package(CLI11 REQUIRED)
  find_package(nlohmann_json 3 REQUIRED)
endif()
if(KKTDAE_BUILD_TESTS)
  find_package(Catch2 2.13 REQUIRED)
endif()

# The benchmark suite (apps/bench): Google Benchmark, on by default when it is installed
# (Debian's libbenchmark-dev). MuJoCo (libmujoco-dev) is optional: without it the suite builds
# without the MuJoCo comparison and the accuracy program.
if(KKTDAE_BUILD_APPS)
  find_package(benchmark QUIET)
  option(KKTDAE_BUILD_BENCHMARKS "Build the benchmark suite in apps/bench (needs Google Benchmark)"
         ${benchmark_FOUND})
else()
  set(KKTDAE_BUILD_BENCHMARKS OFF)
endif()
if(KKTDAE_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
  find_package(mujoco QUIET)
  if(TARGET mujoco::mujoco)
    # Debian's mujocoTargets.cmake lists /usr/include/libqhull_r/, which no package installs;
    # CMake refuses an imported target with a missing include directory, so keep only those
    # that exist (MuJoCo's public headers need nothing from qhull).
    get_target_property(_kktdae_mujoco_includes mujoco::mujoco INTERFACE_INCLUDE_DIRECTORIES)
    set(_kktdae_mujoco_existing "")
    foreach(_dir IN LISTS _kktdae_mujoco_includes)
      if(EXISTS "${_dir}")
        list(APPEND _kktdae_mujoco_existing "${_dir}")
      endif()
    endforeach()
    set_target_properties(mujoco::mujoco PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_kktdae_mujoco_existing}")
    set(KKTDAE_BENCH_MUJOCO ON)
    message(STATUS "kktdae benchmarks: with the MuJoCo comparison (mujoco ${mujoco_VERSION})")
  else()
    set(KKTDAE_BENCH_MUJOCO OFF)
    message(STATUS "kktdae benchmarks: MuJoCo not found, building without the MuJoCo comparison")
  endif()
endif()
