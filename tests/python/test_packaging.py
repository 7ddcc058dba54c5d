"""pip installs the package from pyproject.toml into a venv, with metadata, and uninstalls it.

The install reuses this CMake build tree (KKTDAE_CMAKE_BUILD_DIR, the tree whose module the other
tests import), so it compiles nothing that is up to date there: the test costs a venv and a pip run,
not a library compile. The source is a copy of the clone's tracked files, as a user's clone would be.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SOURCE_DIR

BUILD_DIR = os.environ.get("KKTDAE_BINARY_DIR")


def clean_env(**extra):
    """The environment without the build tree on PYTHONPATH: the venv must import its own copy."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PIP_USER")}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", **extra)
    return env


def run(args, cwd, **extra):
    done = subprocess.run(args, cwd=cwd, env=clean_env(**extra), capture_output=True, text=True)
    assert done.returncode == 0, f"{args} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.mark.skipif(BUILD_DIR is None, reason="needs KKTDAE_BINARY_DIR, the CMake build tree (ctest sets it)")
def test_pip_install_metadata_and_uninstall(tmp_path):
    clone = tmp_path / "clone"
    # The work tree's files that git would commit (tracked, and new ones not ignored): none of the build's output.
    tracked = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             cwd=SOURCE_DIR, capture_output=True, check=True).stdout
    for name in filter(None, tracked.decode().split("\0")):
        source = SOURCE_DIR / name
        if source.is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, clone / name)

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    run([python, "-m", "pip", "install", "--no-build-isolation", "."], cwd=clone, KKTDAE_CMAKE_BUILD_DIR=BUILD_DIR)

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    probe = ("import importlib.metadata, kktdae; "
             "print(kktdae.__file__); print(importlib.metadata.version('kktdae')); print(kktdae.__version__); "
             "print(kktdae.PendulumChain(2).nq())")
    lines = run([python, "-c", probe], cwd=outside).split()
    assert Path(lines[0]).resolve().is_relative_to(venv.resolve()), lines[0]
    assert lines[1] == lines[2] == "0.1.0"
    assert lines[3] == "6"
    listed = run([python, "-m", "pip", "list", "--format=freeze"], cwd=outside)
    assert "kktdae==0.1.0" in listed.split()

    run([python, "-m", "pip", "uninstall", "-y", "kktdae"], cwd=outside)
    gone = subprocess.run([python, "-c", "import kktdae"], cwd=outside, env=clean_env(), capture_output=True, text=True)
    assert gone.returncode != 0 and "No module named 'kktdae'" in gone.stderr
    site = Path(run([python, "-c", "import sysconfig; print(sysconfig.get_path('platlib'))"], cwd=outside).strip())
    assert not (site / "kktdae").exists()
