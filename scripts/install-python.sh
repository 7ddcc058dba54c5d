#!/usr/bin/env bash
# Makes `import kktdae` work in a virtual environment, offline, with Debian 12's packages only:
# creates VENV with --system-site-packages (so Debian's numpy, pytest and matplotlib are seen),
# builds the bindings with the release preset and installs the package into VENV's site-packages.
#
#   scripts/install-python.sh ~/.venvs/kktdae && ~/.venvs/kktdae/bin/python -c "import kktdae"
#
# Without a venv: cmake --install build/release --component python --prefix PREFIX, then
# PYTHONPATH=PREFIX/lib/python3.11/site-packages.
set -euo pipefail
if [[ $# -ne 1 ]]; then
  echo "usage: scripts/install-python.sh VENV_DIR" >&2
  exit 2
fi
venv=$1
cd "$(dirname "$0")/.."
./scripts/deps.sh
# Debian's interpreter: the one python3-numpy and pybind11-dev were built for.
/usr/bin/python3 -m venv --system-site-packages "$venv"
cmake --preset release -DKKTDAE_BUILD_PYTHON=ON >/dev/null
cmake --build build/release -j "${KKTDAE_JOBS:-2}" --target kktdae_python
cmake --install build/release --component python --prefix "$venv"
"$venv/bin/python" -c "import kktdae; print('kktdae', kktdae.__version__, 'in', kktdae.__file__)"
