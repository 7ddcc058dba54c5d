"""scripts/adaptive_gain_equal_work.py: the equal-accuracy reading of a tolerance sweep on lines whose
answer is known, and both modes end to end on a short scan of the double pendulum
(docs/notes/baumgarte-adaptive-gains.md, "At equal accuracy")."""
import csv
import importlib.util
import math

import numpy as np
import pytest

from conftest import SOURCE_DIR


def load_script(name):
    spec = importlib.util.spec_from_file_location(name, SOURCE_DIR / "scripts" / (name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def script():
    return load_script("adaptive_gain_equal_work")


def straight_sweep(script, scd_slope=-0.8):
    """log10 τ from −12 to −8.5; log10 work = 3 − 0.1 (x + 10); scd = 8.2 + scd_slope (x + 10)."""
    x = np.arange(-12.0, -8.5 + 1e-9, 0.05)
    return script.Sweep(x, 3.0 - 0.1 * (x + 10.0), 8.2 + scd_slope * (x + 10.0))


def test_work_is_read_where_the_scd_line_reaches_the_target(script):
    sweep = straight_sweep(script)
    log_work, error, bound = sweep.work_at_scd(8.2)
    assert log_work == pytest.approx(3.0, abs=1e-12)
    assert error == pytest.approx(0.0, abs=1e-9)
    assert not bound
    # One digit more needs 1/0.8 decades tighter, 0.125 decades more work.
    assert sweep.work_at_scd(9.2)[0] == pytest.approx(3.125, abs=1e-12)


def test_outside_the_sweep_it_is_nan_or_a_bound(script):
    sweep = straight_sweep(script)
    # Beyond the tightest tolerance's accuracy: not reached, no extrapolation.
    log_work, error, bound = sweep.work_at_scd(12.0)
    assert math.isnan(log_work) and math.isnan(error) and not bound
    # More accurate than asked even at the loosest tolerance: read there, an upper bound on the work.
    log_work, _, bound = sweep.work_at_scd(5.0)
    assert bound
    assert log_work == pytest.approx(3.0 - 0.1 * 1.5, abs=1e-12)


def test_a_scd_that_does_not_rise_as_tau_tightens_gives_nan(script):
    log_work, _, bound = straight_sweep(script, scd_slope=0.3).work_at_scd(8.2)
    assert math.isnan(log_work) and not bound


def test_the_error_grows_with_the_scatter(script):
    rng = np.random.default_rng(3)
    x = np.arange(-12.0, -8.5 + 1e-9, 0.05)
    errors = []
    for noise in (0.01, 0.1):
        sweep = script.Sweep(x, 3.0 - 0.1 * (x + 10.0) + noise * rng.standard_normal(len(x)),
                             8.2 - 0.8 * (x + 10.0) + noise * rng.standard_normal(len(x)))
        log_work, error, _ = sweep.work_at_scd(8.2)
        assert abs(log_work - 3.0) < 4.0 * error
        errors.append(error)
    assert errors[1] > 5.0 * errors[0]


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


SHORT = ["--models", "chain2", "--integrators", "cvode_bdf", "--tolerances", "1e-5", "--tighter", "8",
         "--looser", "8", "--threads", "1"]


def test_rule_against_band_end_to_end(script, tmp_path):
    script.main(["--out", str(tmp_path)] + SHORT)
    (row,) = read(tmp_path / "equal_accuracy.csv")
    band, rule = float(row["band_omega"]), float(row["rule_omega"])
    assert float(row["band_low"]) <= band <= float(row["band_high"])
    assert rule == pytest.approx(3.69, rel=0.02)  # ω = Ω of the double pendulum
    sweeps = read(tmp_path / "sweeps.csv")
    assert len(sweeps) == 17 * len({band, rule})
    # The band's own lines, read at its own ensemble's accuracy, give about its ensemble's work.
    mine = [r for r in sweeps if float(r["omega"]) == band and -3 <= int(r["k"]) <= 3]
    ensemble_log_work = np.mean([math.log10(int(r["work"])) for r in mine])
    assert float(row["band_log_work_at_band_scd"]) == pytest.approx(ensemble_log_work, abs=0.05)
    for at in ("band_scd", "rule_scd"):
        ratio = float(row["work_ratio_at_" + at])
        assert math.isfinite(ratio) and ratio > 0.0
        assert ratio == pytest.approx(10.0 ** (float(row["rule_log_work_at_" + at]) -
                                                float(row["band_log_work_at_" + at])))
    # --compare-only recomputes the same file from the runs.
    first = (tmp_path / "equal_accuracy.csv").read_bytes()
    script.main(["--out", str(tmp_path), "--compare-only"] + SHORT)
    assert (tmp_path / "equal_accuracy.csv").read_bytes() == first


def test_grid_is_read_by_the_rules_script(script, tmp_path):
    script.main(["--out", str(tmp_path), "--grid"] + SHORT)
    rules = load_script("adaptive_gain_rules")
    (case,) = rules.load(str(tmp_path / "grid"))
    assert case.omegas[:len(script.GRID)] == script.GRID
    (best,) = read(tmp_path / "grid" / "adaptive_best.csv")
    smoothed = rules.Smoothed(case, 1, 2, 0.1)
    assert smoothed.best_omega == float(best["smoothed_best_omega"])
    assert (smoothed.band_low, smoothed.band_high) == (float(best["band_low"]), float(best["band_high"]))
    assert math.isfinite(smoothed.best_efficiency)
    # ω = 0 is scored at its own line's accuracy: scd − log10 work of its run at τ, to the sweep's scatter.
    gains = read(tmp_path / "grid" / "adaptive_gains.csv")
    unstabilized = gains[0]
    assert float(unstabilized["omega"]) == 0.0
    assert float(unstabilized["efficiency"]) == pytest.approx(
        float(unstabilized["scd"]) - math.log10(int(unstabilized["work"])), abs=0.3)
    # The rule counts on it as on kktdae-errdyn's files.
    placement = rules.place(smoothed, rules.rule_proposed(case))
    assert placement.outside_factor >= 1.0


@pytest.mark.parametrize("bad, message", [
    (["--tighter", "2"], "--tighter and --looser"),
    (["--integrators", "rk4"], "unknown integrator rk4"),
    (["--tolerances", "0"], "--tolerances must be > 0"),
])
def test_bad_arguments_are_refused_by_name(script, tmp_path, bad, message):
    with pytest.raises(SystemExit, match=message):
        script.main(["--out", str(tmp_path)] + bad)
