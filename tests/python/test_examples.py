"""The Python examples run as a user runs them."""
import importlib.util
import subprocess
import sys

import pytest

from conftest import SOURCE_DIR

EXAMPLES = SOURCE_DIR / "apps" / "python"


def test_spherical_pendulum_example_passes_its_checks():
    done = subprocess.run([sys.executable, str(EXAMPLES / "spherical_pendulum.py"), "--steps", "400"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "success: rk4/schur, 400 steps" in done.stdout


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="python3-matplotlib not installed")
def test_plot_example_writes_both_plots(output_dir):
    done = subprocess.run([sys.executable, str(EXAMPLES / "plot_drift.py"), "--out", str(output_dir),
                           "--steps", "800"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    for name in ("violation.png", "energy.png"):
        data = (output_dir / name).read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 10_000, name
