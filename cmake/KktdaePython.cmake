# The Python bindings (lib/python): pybind11 2.10 and the Python headers from Debian 12
# (pybind11-dev, python3-dev, python3-numpy). KKTDAE_BUILD_PYTHON is ON by default exactly when
# they are found, and OFF under the sanitizers: the module would load into an uninstrumented
# interpreter, which needs the sanitizer runtime preloaded (the asan preset skips the Python tests).

# The interpreter whose numpy and pytest Debian installs is /usr/bin/python3; a PATH that puts
# another python3 first (pyenv, conda) would otherwise build against an interpreter without them.
# -DPython3_EXECUTABLE=... chooses another one.
if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The Python interpreter the bindings are built for")
endif()
find_package(Python3 3.9 QUIET COMPONENTS Interpreter Development.Module)
if(Python3_FOUND)
  find_package(pybind11 2.10 CONFIG QUIET)
endif()
set(_kktdae_python_default OFF)
if(Python3_FOUND AND pybind11_FOUND AND NOT KKTDAE_SANITIZE)
  set(_kktdae_python_default ON)
endif()
option(KKTDAE_BUILD_PYTHON "Build the kktdae Python package (lib/python; needs pybind11-dev, python3-dev)"
       ${_kktdae_python_default})
if(KKTDAE_BUILD_PYTHON)
  if(NOT Python3_FOUND OR NOT pybind11_FOUND)
    message(FATAL_ERROR "KKTDAE_BUILD_PYTHON needs the Python headers and pybind11 "
                        "(apt-get install python3-dev pybind11-dev python3-numpy)")
  endif()
  execute_process(COMMAND ${Python3_EXECUTABLE} -c "import numpy" RESULT_VARIABLE _kktdae_numpy_missing
                  OUTPUT_QUIET ERROR_QUIET)
  if(_kktdae_numpy_missing)
    message(FATAL_ERROR "KKTDAE_BUILD_PYTHON: ${Python3_EXECUTABLE} cannot import numpy "
                        "(apt-get install python3-numpy, or -DKKTDAE_BUILD_PYTHON=OFF)")
  endif()
  # Relative to the install prefix: `cmake --install build/release --component python --prefix VENV`
  # lands in VENV's site-packages (scripts/install-python.sh).
  set(KKTDAE_PYTHON_INSTALL_DIR "lib/python${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}/site-packages"
      CACHE STRING "Where cmake --install puts the kktdae package, relative to the prefix")
  message(STATUS "kktdae Python bindings: for ${Python3_EXECUTABLE} (${Python3_VERSION}), pybind11 ${pybind11_VERSION}")
elseif(KKTDAE_SANITIZE)
  message(STATUS "kktdae Python bindings: off under the sanitizers (the Python tests are skipped)")
endif()
