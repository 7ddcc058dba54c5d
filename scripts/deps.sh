#!/usr/bin/env bash
# Makes sure the Debian 12 packages kktdae builds against are installed. As root it installs what
# is missing with apt-get; otherwise it prints the exact apt-get line (in its sudo and su forms)
# and fails.
# Usage: scripts/deps.sh   (sourced or run by scripts/demo.sh and scripts/test.sh)
set -euo pipefail

# One package per line, grouped by what needs it, so that additions merge without conflicts.
packages=(
  # build tools; ccache (cmake/KktdaeCcache.cmake): 0.7 MB to download, 14 s to install
  cmake
  g++
  make
  ccache
  # the library
  libeigen3-dev
  libsundials-dev
  libsuitesparse-dev
  libspdlog-dev
  # tests and apps
  catch2
  libcli11-dev
  nlohmann-json3-dev
  gnuplot-nox
  # benchmarks and the MuJoCo peer: Debian's mujocoConfig.cmake calls find_dependency(OpenGL),
  # which needs the GL headers that --no-install-recommends leaves out
  libbenchmark-dev
  libmujoco-dev
  libgl-dev
  libopengl-dev
  # the Python bindings (lib/python, tests/python)
  python3-dev python3-venv python3-numpy python3-pytest python3-matplotlib pybind11-dev
  # `pip install --no-build-isolation .` (pyproject.toml, setup.py; tests/python/test_packaging.py):
  # 0.55 MB to download, 2.7 MB installed (apt-cache show; they were already on the machine
  # measured, so their install time was not)
  python3-setuptools python3-wheel
  # kktdae-sweep across MPI ranks
  libopenmpi-dev openmpi-bin
  # the API reference (scripts/docs.sh) and the docs_completeness test: 4.6 MB to download, 8 s to
  # install (graphviz, for fancier class graphs, is left out)
  doxygen
)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ $status == "install ok installed" ]] || missing+=("$package")
done
((${#missing[@]} == 0)) && exit 0

line="apt-get install -y --no-install-recommends ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
  # Minimal Debian installs (and any install given a root password) have no sudo: say both forms.
  echo "kktdae needs these Debian packages. Install them as root, then run this again:" >&2
  echo "  with sudo:  sudo apt-get update && sudo $line" >&2
  echo "  without:    su -c 'apt-get update && $line'" >&2
  exit 1
fi
echo "Installing missing packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
$line
