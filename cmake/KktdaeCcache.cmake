# Compiles through ccache when it is installed (scripts/deps.sh installs it; -DKKTDAE_CCACHE=OFF
# or a launcher of your own turns it off). A compile whose command, source and headers match one
# ccache has seen is served from its cache (~/.cache/ccache, kept by the machine, 5 GB at most)
# instead of compiled. That pays in two places: a later build of the same sources at the same path,
# and, within one run of the suite, the library-only package test, which compiles lib/ with this
# build's commands (tests/CMakeLists.txt). On a miss ccache costs one preprocessor run more per
# compile (0.2 CPU-s for a file of lib/, measured; docs/contributing.md).
option(KKTDAE_CCACHE "Compile through ccache when it is installed" ON)
if(KKTDAE_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(KKTDAE_CCACHE_PROGRAM ccache)
  if(KKTDAE_CCACHE_PROGRAM)
    set(CMAKE_CXX_COMPILER_LAUNCHER "${KKTDAE_CCACHE_PROGRAM}")
  endif()
endif()
