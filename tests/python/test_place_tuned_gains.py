"""scripts/place_tuned_gains.py: the tuner's gains placed in a full scan's bands (docs/notes/baumgarte-adaptive-gains.md),
by exact tolerance or, with --by-decade, in a second measurement made a fraction of a decade away."""
import csv
import math
import subprocess
import sys

from conftest import SOURCE_DIR

SCRIPT = SOURCE_DIR / "scripts" / "place_tuned_gains.py"


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def write_full_scan(directory, tolerance):
    """One cvode_bdf case whose curve peaks at ω = 10 (efficiency −|log₁₀(ω/10)|, 1 … 100 a quarter
    decade apart), its band 5.62–17.8 and the rule's gain 2 with that curve's loss."""
    omegas = [10.0 ** (k / 4.0) for k in range(0, 9)]
    write_csv(directory / "adaptive_gains.csv", ["model", "integrator", "tolerance", "omega", "efficiency"],
              [["toy", "cvode_bdf", repr(tolerance), "0", "-2.0"]] +
              [["toy", "cvode_bdf", repr(tolerance), repr(w), repr(-abs(math.log10(w / 10.0)))] for w in omegas])
    rule_loss = 0.0 - (-(1.0 - math.log10(2.0)))  # 2 lies between grid points 1.78 and 3.16
    write_csv(directory / "adaptive_best.csv",
              ["model", "integrator", "tolerance", "band_low", "band_high", "recommended_omega", "efficiency_loss",
               "unstabilized_work"],
              [["toy", "cvode_bdf", repr(tolerance), repr(10.0 ** 0.75), repr(10.0 ** 1.25), "2.0", repr(rule_loss),
                "100"]])


def write_tuned(directory, tolerance):
    """The tuner's gain 25 (×1.4 above the band) and its own smoothed best 10 (inside), 500 model calls."""
    write_csv(directory / "adaptive_tuned.csv",
              ["model", "integrator", "tolerance", "tuned_omega", "tuned_smoothed_best", "tuned_model_calls",
               "tuned_used", "tuned_runs"],
              [["toy", "cvode_bdf", repr(tolerance), "25.0", "10.0", "500", "1", "42"]])


def run(*args):
    done = subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, check=True)
    return done.stdout


def summary_counts(out):
    """The summary row of cvode_bdf: cases, rule in, rule ×2, tuned in, tuned ×2, best in, best ×2."""
    row = next(line for line in out.splitlines()[::-1] if line.startswith("cvode_bdf"))
    return [int(x) for x in row.split()[1:8]]


def test_the_tuned_gain_is_placed_in_the_band_and_a_second_measurement_by_decade(tmp_path):
    tuned, same, shifted = tmp_path / "tuned", tmp_path / "same", tmp_path / "shifted"
    for d in (tuned, same, shifted):
        d.mkdir()
    write_tuned(tuned, 1e-5)
    write_full_scan(same, 1e-5)
    write_full_scan(shifted, 10.0 ** 0.025 * 1e-5)
    out = run(tuned, same)
    # The rule's 2 is ×2.8 below the band (a miss), the tuned 25 ×1.4 above it (a hit), the tuner's
    # own best inside; the rebuilt curve gives the scan's own loss for the rule.
    assert summary_counts(out) == [1, 0, 0, 0, 1, 1, 1]
    assert "worst difference 0" in out
    # At τ·10^0.025 the case matches only by decade.
    assert "cvode_bdf" not in run(tuned, shifted).split("worst difference")[1]
    assert summary_counts(run(tuned, shifted, "--by-decade")) == [1, 0, 0, 0, 1, 1, 1]


def test_two_scans_in_one_decade_are_refused_by_decade(tmp_path):
    tuned, full = tmp_path / "tuned", tmp_path / "full"
    for d in (tuned, full):
        d.mkdir()
    write_tuned(tuned, 1e-5)
    write_full_scan(full, 1e-5)
    with open(full / "adaptive_best.csv") as f:
        header, row = f.read().splitlines()
    (full / "adaptive_best.csv").write_text("\n".join([header, row, row.replace("1e-05", "1.0593e-05")]) + "\n")
    done = subprocess.run([sys.executable, str(SCRIPT), str(tuned), str(full), "--by-decade"], capture_output=True,
                          text=True)
    assert done.returncode != 0
    assert "toy cvode_bdf at 1e-05 and 1.0593e-05 match the same key" in done.stderr
