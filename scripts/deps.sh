#!/usr/bin/env bash
# Makes sure the Debian 12 packages kktdae builds against are installed. As root it installs what
# is missing with apt-get; otherwise it prints the exact apt-get line and fails.
# Usage: scripts/deps.sh   (sourced or run by scripts/demo.sh and scripts/test.sh)
set -euo pipefail

packages=(
  cmake g++ make
  libeigen3-dev libsundials-dev libsuitesparse-dev
  catch2 libspdlog-dev libcli11-dev nlohmann-json3-dev
  gnuplot-nox
  libbenchmark-dev libmujoco-dev
  python3-dev python3-venv python3-numpy python3-pytest python3-matplotlib pybind11-dev
  libopenmpi-dev openmpi-bin
)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ $status == "install ok installed" ]] || missing+=("$package")
done
((${#missing[@]} == 0)) && exit 0

line="apt-get install -y --no-install-recommends ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
  echo "kktdae needs these Debian packages. Install them as root, then run this again:" >&2
  echo "  sudo apt-get update && sudo $line" >&2
  exit 1
fi
echo "Installing missing packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
$line
