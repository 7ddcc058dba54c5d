#!/usr/bin/env bash
# Builds the API reference under build/docs/:
#   cpp/index.html     the C++ headers (lib/include/kktdae) by Doxygen, configured by docs/Doxyfile;
#   python/kktdae.html the Python package's docstrings by pydoc, imported from the module that
#                      scripts/test.sh builds (build/release/python) with the interpreter that build
#                      found; skipped, with a note, when no module is built.
# Any Doxygen warning (an undocumented public name, a broken link) fails the build, printed with
# its file and line; the docs_completeness test (tests/docs) makes the same check in CTest.
# Class diagrams need graphviz's dot: drawn when it is installed, left out otherwise.
# Usage: ./scripts/docs.sh      KKTDAE_BUILD_DIR=build/<preset> takes the module from another build.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v doxygen >/dev/null; then
  echo "scripts/docs.sh needs doxygen: run scripts/deps.sh (Debian package doxygen)." >&2
  exit 1
fi

out=build/docs
mkdir -p "$out"
rm -rf "$out/cpp" "$out/python"
log=$out/doxygen.log
have_dot=NO
command -v dot >/dev/null && have_dot=YES
{ cat docs/Doxyfile; echo "HAVE_DOT = $have_dot"; } | nice doxygen - >/dev/null 2>"$log"
if [[ -s $log ]]; then
  echo "Doxygen's complaints about lib/include (also in $log):" >&2
  cat "$log" >&2
  exit 1
fi
echo "C++ API reference: $out/cpp/index.html"

build=${KKTDAE_BUILD_DIR:-build/release}
if ! compgen -G "$build/python/kktdae/_kktdae*.so" >/dev/null; then
  echo "Python API reference skipped: no module built in $build/python (scripts/test.sh builds it)."
  exit 0
fi
# The interpreter the module was built for (tests/python runs pytest with it too).
python=$(sed -n 's/^Python3_EXECUTABLE:FILEPATH=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
python=${python:-python3}
package_dir=$(cd "$build/python" && pwd)
mkdir -p "$out/python"
# pydoc -w reports a failed import on stdout ("problem in kktdae") and its exit code is no guide.
pydoc_out=$(cd "$out/python" && PYTHONPATH=$package_dir PYTHONDONTWRITEBYTECODE=1 \
              "$python" -m pydoc -w kktdae 2>&1) || true
if [[ ! -s $out/python/kktdae.html ]]; then
  echo "pydoc could not document the module in $package_dir with $python:" >&2
  echo "$pydoc_out" >&2
  exit 1
fi
echo "Python API reference: $out/python/kktdae.html"
