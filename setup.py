"""The build step behind pyproject.toml: CMake builds the extension module, setuptools packages it.

The module is built for sys.executable (the interpreter pip runs, which may not be the python3 on
PATH) with the tests, apps and benchmarks off, and only its target (kktdae_python, with the library
it links) is compiled. The build tree is build/pip-<python version> in the source tree, reused by the
next install; KKTDAE_CMAKE_BUILD_DIR=DIR uses an already configured tree instead (CMake's own
build/release, say: then nothing is compiled that is already up to date there). KKTDAE_JOBS sets
the parallel compile jobs (default 2).
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = pathlib.Path(__file__).resolve().parent


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text()
    match = re.search(r"project\(kktdae\s+VERSION\s+([0-9][0-9.]*)", text)
    if match is None:
        raise RuntimeError("setup.py: no 'project(kktdae VERSION x.y.z' in CMakeLists.txt")
    return match.group(1)


def cache_entry(build_dir, name):
    cache = build_dir / "CMakeCache.txt"
    for line in cache.read_text().splitlines():
        if line.startswith(name + ":"):
            return line.split("=", 1)[1]
    return None


class CMakeBuildPy(build_py):
    """build_py, then the extension module from CMake into the same build/lib/kktdae."""

    def run(self):
        super().run()
        module = self.build_module_with_cmake()
        target_dir = pathlib.Path(self.build_lib) / "kktdae"
        target_dir.mkdir(parents=True, exist_ok=True)
        shutil.copy2(module, target_dir / module.name)

    def build_module_with_cmake(self):
        given = os.environ.get("KKTDAE_CMAKE_BUILD_DIR")
        jobs = os.environ.get("KKTDAE_JOBS", "2")
        if given:
            build_dir = pathlib.Path(given).resolve()
            if not (build_dir / "CMakeCache.txt").is_file():
                raise RuntimeError(f"KKTDAE_CMAKE_BUILD_DIR={given}: not a configured CMake build tree "
                                   "(no CMakeCache.txt)")
            built_for = cache_entry(build_dir, "Python3_EXECUTABLE")
            if built_for is None or os.path.realpath(built_for) != os.path.realpath(sys.executable):
                raise RuntimeError(f"KKTDAE_CMAKE_BUILD_DIR={given} builds the module for {built_for}, "
                                   f"not for {sys.executable} (pip's interpreter)")
        else:
            build_dir = ROOT / "build" / f"pip-py{sys.version_info[0]}.{sys.version_info[1]}"
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build_dir),
                            "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_UNITY_BUILD=ON",
                            "-DKKTDAE_BUILD_TESTS=OFF", "-DKKTDAE_BUILD_APPS=OFF",
                            "-DKKTDAE_BUILD_BENCHMARKS=OFF", "-DKKTDAE_BUILD_PYTHON=ON",
                            f"-DPython3_EXECUTABLE={sys.executable}"], check=True)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "kktdae_python", "-j", jobs], check=True)
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        module = build_dir / "python" / "kktdae" / f"_kktdae{suffix}"
        if not module.is_file():
            raise RuntimeError(f"setup.py: CMake built no {module}")
        return module


class BinaryDistribution(Distribution):
    """The wheel holds a compiled module: tag it for this platform and Python, not 'py3-none-any'."""

    def has_ext_modules(self):
        return True


setup(
    version=project_version(),
    packages=["kktdae"],
    package_dir={"kktdae": "lib/python/kktdae"},
    package_data={"kktdae": ["_kktdae.pyi", "py.typed"]},
    cmdclass={"build_py": CMakeBuildPy},
    distclass=BinaryDistribution,
    zip_safe=False,
)
