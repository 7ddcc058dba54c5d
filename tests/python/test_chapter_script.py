"""apps/python/constraints.py (seed 000's script on kktdae) prints kktdae-constraints' table and
writes its metrics to the last digit, with seed 000's metrics.json keys."""
import json
import os
import subprocess
import sys

import pytest

from conftest import SOURCE_DIR

SCRIPT = SOURCE_DIR / "apps" / "python" / "constraints.py"
APP = os.environ.get("KKTDAE_CONSTRAINTS_APP")
SEED_KEYS = {"system", "integrator", "dt", "steps", "seed", "baumgarte", "results"}
SEED_RESULT_KEYS = {"max_violation", "final_violation", "energy_rel_max", "tip_final"}

FLAG_SETS = {
    "chapter_defaults": [],
    "triple_rk4_seed3": ["--system", "triple", "--integrator", "rk4", "--steps", "600", "--seed", "3"],
    "pendulum_baumgarte_smoke": ["--system", "pendulum", "--stabilization", "baumgarte", "--baumgarte", "35",
                                 "--smoke"],
    "double_euler_none": ["--integrator", "euler", "--stabilization", "none", "--dt", "0.002", "--steps", "1500"],
    # SimulationOptions.generalized_alpha from Python against the C++ app's --rho-inf / --hht-alpha.
    "double_generalized_alpha_rho05": ["--integrator", "generalized_alpha", "--rho-inf", "0.5", "--stabilization",
                                       "none", "--dt", "0.02", "--steps", "200"],
    "triple_hht_alpha03": ["--system", "triple", "--integrator", "hht", "--hht-alpha", "-0.3", "--stabilization",
                           "none", "--dt", "0.02", "--steps", "200"],
}


def table(output):
    """The lines from 'integrated …' through the verdict: the chapter's table."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("integrated "))
    # The app prints the table last (its file list comes first); the script names its metrics file after it.
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("metrics: ")), len(lines))
    return lines[start:end]


def run(command):
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.skipif(APP is None, reason="KKTDAE_CONSTRAINTS_APP not set (the apps are not built)")
@pytest.mark.parametrize("flags", list(FLAG_SETS.values()), ids=list(FLAG_SETS))
def test_python_chapter_equals_kktdae_constraints(flags, output_dir):
    py_out, cpp_out = output_dir / "python", output_dir / "cpp"
    py_text = run([sys.executable, str(SCRIPT), "--out", str(py_out), "--no-rerun", *flags])
    cpp_text = run([APP, "--out", str(cpp_out), "--no-rerun", *flags])
    assert table(py_text) == table(cpp_text)
    assert len(table(py_text)) >= 3

    ours = json.loads((py_out / "metrics.json").read_text())
    theirs = json.loads((cpp_out / "metrics.json").read_text())
    assert set(ours) == SEED_KEYS
    for key in SEED_KEYS - {"results"}:
        assert ours[key] == theirs[key], key
    assert set(ours["results"]) == set(theirs["results"])
    for mode, values in ours["results"].items():
        assert set(values) == SEED_RESULT_KEYS
        for key in SEED_RESULT_KEYS:
            assert values[key] == theirs["results"][mode][key], (mode, key)


def test_python_chapter_prints_the_chapters_table(output_dir):
    text = run([sys.executable, str(SCRIPT), "--out", str(output_dir), "--no-rerun"])
    rows = table(text)
    assert rows[0] == "integrated double (semi_implicit) for 4000 steps of 0.005 s -> 20.00 s of sim time"
    assert rows[2].split() == ["none", "3.8401e-01", "3.8401e-01", "4.2709e-01"]
    assert rows[3].split() == ["baumgarte", "2.3470e-02", "1.4367e-03", "3.2485e-01"]
    assert rows[4].endswith("as expected")
    first = (output_dir / "metrics.json").read_bytes()
    run([sys.executable, str(SCRIPT), "--out", str(output_dir), "--no-rerun"])
    assert (output_dir / "metrics.json").read_bytes() == first  # same inputs, same bytes
