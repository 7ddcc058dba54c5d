"""scripts/adaptive_gain_rules.py against the library: a small scan written in kktdae-errdyn's CSV
format, whose best/band/placement columns come from the C++ scan and place_in_band, must be
reproduced by the script's own smoothing and placement bit for bit (docs/notes/baumgarte-adaptive-gains.md)."""
import csv
import importlib.util
import itertools
import math
import random

import pytest

import numpy as np

import kktdae
from conftest import SOURCE_DIR

GAINS_HEADER = ("model,integrator,tolerance,omega,status,scd,end_scd,work,steps,efficiency,error_test_failures,"
                "convergence_failures,linear_solver_setups,max_phi,efficiency_spread").split(",")
BEST_HEADER = ("model,integrator,tolerance,unstabilized_scd,unstabilized_work,unstabilized_mean_step,motion_rate,"
               "best_omega,smoothed_best_omega,band_low,band_high,best_scd,best_work,recommended_omega,ratio,side,"
               "outside_factor,efficiency_loss,grid_top,scatter,ensemble_spread,loss_error").split(",")


def load_script():
    spec = importlib.util.spec_from_file_location("adaptive_gain_rules", SOURCE_DIR / "scripts" / "adaptive_gain_rules.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_scan(directory, chain, omegas_to_place, ensemble):
    """A two-integrator scan of the double pendulum at 1e-5, one best row per ω to place (each under
    its own model name, with that scan's runs repeated), as kktdae-errdyn writes them."""
    start = chain.initial_state(0.3)
    t_end = 1.0
    reference = kktdae.adaptive_gain_reference_path(chain, start, t_end, 20)
    omegas = [10.0 ** (k / 4.0) for k in range(0, 9)]  # 1 .. 100, a quarter decade apart
    options = kktdae.AdaptiveGainOptions(integrators=["cvode_bdf", "ida_index1"], tolerances=[1e-5], omegas=omegas,
                                         ensemble_size=ensemble, smoothing_half_width=2, threads=1)
    scan = kktdae.scan_adaptive_gains(chain, start, t_end, reference, options, name="chain2")
    gains, best_rows = [], []
    for b in scan.best:
        runs = scan.runs[b.first_run:b.first_run + 1 + len(b.omegas)]
        for k, omega in enumerate(omegas_to_place):
            model = "chain2_%d" % k
            for r in runs:
                s = r.summary
                gains.append([model, r.integrator.label, repr(r.tolerance), repr(r.omega), s.status.label, repr(r.scd),
                              repr(r.end_scd), r.work, s.steps, repr(r.efficiency), s.error_test_failures,
                              s.convergence_failures, s.linear_solver_setups, repr(s.max_phi_inf),
                              repr(r.efficiency_spread)])
            p = kktdae.place_in_band(b, omega)
            best_rows.append([model, b.integrator.label, repr(b.tolerance), repr(b.unstabilized.scd),
                              b.unstabilized.work, repr(b.unstabilized_mean_step), repr(3.7),
                              repr(b.best_omega), repr(b.smoothed_best_omega), repr(b.band_low), repr(b.band_high),
                              repr(b.best.scd), b.best.work, repr(omega), repr(p.ratio), p.side,
                              repr(p.outside_factor), repr(p.loss), repr(b.omegas[-1]), repr(b.scatter),
                              repr(b.ensemble_spread), repr(p.loss_error)])
    for name, header, rows in (("adaptive_gains.csv", GAINS_HEADER, gains), ("adaptive_best.csv", BEST_HEADER, best_rows)):
        with open(directory / name, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            w.writerows(rows)
    return scan


def test_the_script_reproduces_the_librarys_smoothing_band_and_placement_exactly(chain, tmp_path, capsys):
    rules = load_script()
    # Below the grid, between grid points, on one, and above it: every branch of placeInBand.
    omegas = [0.3, 2.2, 10.0 ** 0.75, 47.0, 400.0]
    scan = write_scan(tmp_path, chain, omegas, ensemble=3)
    assert rules.main(["check", str(tmp_path), "--ensemble", "3"]) == 0
    assert "0 mismatches" in capsys.readouterr().out
    # A wrong ensemble size changes the error bars, and the check must see it.
    assert rules.main(["check", str(tmp_path), "--ensemble", "5"]) == 1
    assert "loss_error" in capsys.readouterr().out
    # The smoothed curve itself, not only the columns the CSV keeps.
    cases = rules.load(str(tmp_path))
    assert len(cases) == 2 * len(omegas)
    for c in cases[:: len(omegas)]:
        b = next(b for b in scan.best if b.integrator.label == c.integrator)
        s = rules.Smoothed(c, 3, 2, 0.1)
        assert s.efficiency == list(b.smoothed_efficiency)
        assert s.error == list(b.smoothed_error)
        assert c.horizon == pytest.approx(1.0, rel=1e-12)


def test_hits_count_the_band_within_a_factor_two(chain, tmp_path):
    rules = load_script()
    write_scan(tmp_path, chain, [1.0], ensemble=1)
    cases = rules.load(str(tmp_path))
    c = cases[0]
    s = rules.Smoothed(c, 1, 2, 0.1)
    assert rules.place(s, s.best_omega).hit() and rules.place(s, s.best_omega).side == 0
    assert rules.place(s, 2.0 * s.band_high).hit()
    assert not rules.place(s, 2.01 * s.band_high).hit()
    assert not rules.place(s, s.band_low / 2.01).hit()
    assert rules.place(s, s.band_low).loss_error == 0.0  # single runs carry no error bar
    with pytest.raises(ValueError, match="omega"):
        rules.place(s, 0.0)
    # The current rule is recommend_baumgarte's: CVODE min(Ω, 0.3/h̄), ida_index1 1/h̄.
    ida = next(c for c in cases if c.integrator == "ida_index1")
    assert rules.rule_current(ida) == pytest.approx(
        kktdae.recommend_baumgarte("ida_index1", 0.01, mean_step=ida.mean_step).omega, rel=1e-15)
    bdf = next(c for c in cases if c.integrator == "cvode_bdf")
    assert rules.rule_current(bdf) == pytest.approx(
        kktdae.recommend_baumgarte("cvode_bdf", 0.01, motion_rate=bdf.motion_rate, mean_step=bdf.mean_step).omega,
        rel=1e-15)
    assert math.isfinite(bdf.max_phi0) and bdf.max_phi0 > 0.0


def test_the_scripts_proposed_rule_is_the_librarys(chain, tmp_path):
    rules = load_script()
    write_scan(tmp_path, chain, [1.0], ensemble=1)
    ida = next(c for c in rules.load(str(tmp_path)) if c.integrator == "ida_index1")
    assert rules.IDA_RADIANS == kktdae.IDA_INDEX1_OMEGA_STEP_PER_RADIAN
    library = kktdae.recommend_baumgarte("ida_index1", 0.01, motion_rate=ida.motion_rate, mean_step=ida.mean_step,
                                         horizon=ida.horizon)
    assert rules.rule_proposed(ida) == pytest.approx(library.omega, rel=1e-15)
    # ω·h̄ = 0.019·Ω·T here (Ω·T = 3.7 radians), well below the cap and below today's 1/h̄.
    assert library.dt_omega == pytest.approx(kktdae.IDA_INDEX1_OMEGA_STEP_PER_RADIAN * 3.7 * 1.0, rel=1e-12)
    assert library.omega < kktdae.recommend_baumgarte("ida_index1", 0.01, mean_step=ida.mean_step).omega
    with pytest.raises(ValueError, match="horizon"):
        kktdae.recommend_baumgarte("ida_index1", 0.01, motion_rate=3.7, mean_step=0.01, horizon=-1.0)


def test_retest_sees_whether_a_band_reproduces(chain, tmp_path, capsys):
    rules = load_script()
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    write_scan(first, chain, [1.0], ensemble=1)
    # The same scan, against itself, reproduces every case.
    assert rules.main(["retest", str(first), str(first)]) == 0
    out = capsys.readouterr().out
    a = rules.Smoothed(rules.load(str(first))[0], 1, 2, 0.1)
    a_hits = "1 / 1 of 1" if rules.place(a, rules.rule_current(rules.load(str(first))[0])).hit() else "0 / 0 of 1"
    assert "| cvode_bdf | 1 | 1 | %s |" % a_hits in out and "| ida_index1 | 1 | 1 |" in out
    assert "no case at the same decade" not in out
    # A second measurement whose curve peaks at the grid's top (+3 digits at ω = 100) does not.
    with open(first / "adaptive_gains.csv", newline="") as f:
        rows = list(csv.reader(f))
    for r in rows[1:]:
        if float(r[3]) == 100.0:
            r[9] = repr(float(r[9]) + 3.0)
    with open(second / "adaptive_gains.csv", "w", newline="") as f:
        csv.writer(f).writerows(rows)
    (second / "adaptive_best.csv").write_text((first / "adaptive_best.csv").read_text())
    b = rules.Smoothed(rules.load(str(second))[0], 1, 2, 0.1)
    assert b.best_omega == 100.0 and a.band_high < 50.0
    assert rules.band_gap(a, b) == b.band_low / a.band_high > 1.0
    assert rules.main(["retest", str(first), str(second)]) == 0
    out = capsys.readouterr().out
    assert "| cvode_bdf | 1 | 0 |" in out
    with pytest.raises(SystemExit, match="two directories"):
        rules.main(["retest", str(first)])


def test_monotone_hits_finds_the_largest_set_one_monotone_gain_can_hit():
    rules = load_script()
    # Loosest tolerance first. A band that jumps up and comes back: a rising gain misses the last,
    # a falling one the middle, and no monotone gain hits all three.
    jump = [(1.0, 2.0), (10.0, 20.0), (1.0, 2.0)]
    assert rules.monotone_hits(jump, rising=True) == (0, 1)
    assert rules.monotone_hits(jump, rising=False) == (0, 2)
    # Bands that overlap in a chain: a constant gain (4) is both rising and falling.
    chain = [(1.0, 4.0), (2.0, 8.0), (4.0, 16.0)]
    assert rules.monotone_hits(chain, rising=True) == (0, 1, 2)
    assert rules.monotone_hits(chain, rising=False) == (0, 1, 2)
    # Ends count, as Placement.hit() counts a gain exactly ×2 outside the band.
    assert rules.monotone_hits([(1.0, 2.0), (2.0, 3.0)], rising=False) == (0, 1)
    assert rules.monotone_hits([(1.0, 2.0), (2.0 + 1e-12, 3.0)], rising=False) == (0,)
    assert rules.monotone_hits([], rising=True) == ()


def brute_force_monotone_hits(intervals, rising):
    """Every subset, largest first, then in lexicographic order: the first one a monotone walk hits."""
    n = len(intervals)
    for size in range(n, 0, -1):
        for chosen in itertools.combinations(range(n), size):
            gain, feasible = 0.0, True
            for i in (chosen if rising else chosen[::-1]):
                gain = max(gain, intervals[i][0])
                feasible = feasible and gain <= intervals[i][1]
            if feasible:
                return chosen
    return ()


def test_monotone_hits_agrees_with_trying_every_subset():
    rules = load_script()
    rng = random.Random(24)
    for _ in range(300):
        n = rng.randint(1, 8)
        lows = [10.0 ** rng.uniform(-1.0, 3.0) for _ in range(n)]
        intervals = [(low, low * 10.0 ** rng.uniform(0.0, 1.5)) for low in lows]
        for rising in (True, False):
            assert rules.monotone_hits(intervals, rising) == brute_force_monotone_hits(intervals, rising), intervals


def write_toy_scans(directory, peaks, mean_steps=None, model="toy", failed=False):
    """One model and integrator at the tolerances of `peaks` ({tolerance: ω of a sharp peak}), on
    a quarter-decade grid 0.1 … 1000: efficiency −2·|log₁₀(ω/peak)|, so that without smoothing the
    band is the peak's grid point alone. The mean step shrinks as the tolerance tightens. `failed`:
    no grid point reached the end (efficiency −inf everywhere)."""
    gains, best_rows = [], []
    for tolerance, peak in peaks.items():
        mean_step = (mean_steps or {}).get(tolerance, 0.01 * (tolerance / 1e-5) ** 0.2)
        omegas = [10.0 ** (k / 4.0) for k in range(-4, 13)]
        gains.append([model, "cvode_bdf", repr(tolerance), "0.0", "ok", "5.0", "5.0", 1000, 100, "-3.0", 0, 0, 0,
                      "1e-06", "0.0"])
        for omega in omegas:
            efficiency = -math.inf if failed else -2.0 * abs(math.log10(omega / peak))
            gains.append([model, "cvode_bdf", repr(tolerance), repr(omega), "ok", "5.0", "5.0", 1000, 100,
                          repr(efficiency), 0, 0, 0, "1e-06", "0.0"])
        row = {name: "0" for name in BEST_HEADER}
        row.update(model=model, integrator="cvode_bdf", tolerance=repr(tolerance), motion_rate="3.7",
                   recommended_omega="3.7", unstabilized_mean_step=repr(mean_step))
        best_rows.append([row[name] for name in BEST_HEADER])
    for name, header, rows in (("adaptive_gains.csv", GAINS_HEADER, gains),
                               ("adaptive_best.csv", BEST_HEADER, best_rows)):
        with open(directory / name, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            w.writerows(rows)


def test_monotone_says_how_many_tolerances_no_monotone_rule_can_hit(tmp_path, capsys):
    rules = load_script()
    loose, tight = tmp_path / "loose", tmp_path / "tight"
    loose.mkdir()
    tight.mkdir()
    # Split over two directories, as the in-sample and out-of-sample scans are: they count together.
    write_toy_scans(loose, {1e-5: 1.0, 1e-7: 100.0})
    write_toy_scans(tight, {1e-9: 1.0})
    args = ["--ensemble", "1", "--smoothing", "0"]
    assert rules.main(["monotone", str(loose), str(tight), "--rule", "omega"] + args) == 0
    out = capsys.readouterr().out
    # Hit intervals: the band (one grid point) widened ×2 each side.
    assert "1e-05: 0.5–2; 1e-07: 50–200; 1e-09: 0.5–2" in out
    # The least worst loss: a gain of 10 at 1e-7 and 1e-9 (or at 1e-5 and 1e-7) loses a decade's
    # 2 digits; ω = Ω = 3.7 hits none and loses 2·(2 − log₁₀ 3.7) = 2.86 at 1e-7.
    assert "| h̄ falls with τ | 2 of 3 (not 1e-09) | 2 of 3 (not 1e-07) | 2 of 3 | 2.00 | 0 of 3, 2.86 |" in out
    assert "| cvode_bdf | 3 | 2 | 0 |" in out
    # Across models (one model here), ω = Ω·f(Ω·h̄): the same order, so the same cap. The loss is
    # read on a grid of ω/Ω at 32 per decade, whose point nearest 10/3.7 is ω = 10.14: 2.01.
    assert rules.main(["monotone", str(loose), str(tight), "--across-models"] + args) == 0
    out = capsys.readouterr().out
    assert "| 2 of 3 (not toy 1e-09) | 2 of 3 (not toy 1e-07) | 2 of 3 | 2.01 |" in out
    # A peak that only rises as τ tightens is hit everywhere by some rising gain.
    capsys.readouterr()
    rising = tmp_path / "rising"
    rising.mkdir()
    write_toy_scans(rising, {1e-5: 1.0, 1e-7: 10.0, 1e-9: 100.0})
    assert rules.main(["monotone", str(rising)] + args) == 0
    out = capsys.readouterr().out
    assert "| 3 of 3 | 1 of 3 (not 1e-07, 1e-09) | 3 of 3 |" in out
    # The cases are taken in the order of h̄, the rule's input: where h̄ does not fall as τ tightens
    # the order changes, and the premise column says so. With 1e-7's step the smallest, the peaks
    # 1, 100, 10 (in order of τ, where a rising gain would hit two) are 1, 10, 100 in order of h̄.
    uneven = tmp_path / "uneven"
    uneven.mkdir()
    write_toy_scans(uneven, {1e-5: 1.0, 1e-7: 100.0, 1e-9: 10.0}, mean_steps={1e-7: 1e-4})
    assert rules.main(["monotone", str(uneven)] + args) == 0
    out = capsys.readouterr().out
    assert "| **h̄ not monotone in τ** | 3 of 3 |" in out
    # A model none of whose scans has a finite best is named and left out, not a crash, with or
    # without a rule to count.
    dead = tmp_path / "dead"
    dead.mkdir()
    write_toy_scans(dead, {1e-5: 1.0, 1e-7: 1.0}, model="dead", failed=True)
    assert rules.main(["monotone", str(rising), str(dead), "--rule", "omega"] + args) == 0
    out = capsys.readouterr().out
    assert "no case with a finite best, left out: dead cvode_bdf (2 cases)" in out
    assert "| cvode_bdf | 3 | 3 | 0 |" in out


def test_ceiling_counts_the_cases_some_gain_can_hit_on_every_measurement(tmp_path, capsys):
    rules = load_script()
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    shifted = 10.0 ** 0.025  # a second measurement a fortieth of a decade off, as §9's retest
    # At 1e-5 the two peaks are a quarter decade apart: the hit intervals 0.5–2 and 0.89–3.56 meet.
    # At 1e-7 they are two decades apart: no gain is within ×2 of both.
    write_toy_scans(a, {1e-5: 1.0, 1e-7: 100.0})
    write_toy_scans(b, {1e-5 * shifted: 10.0 ** 0.25, 1e-7 * shifted: 1.0})
    with open(tmp_path / "adaptive_tuned.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "integrator", "tolerance", "tuned_omega"])
        w.writerow(["toy", "cvode_bdf", "1e-05", "1.5"])
        w.writerow(["toy", "cvode_bdf", "1e-07", "10.0"])
    args = ["--ensemble", "1", "--smoothing", "0"]
    assert rules.main(["ceiling", str(a), str(b), "--rule", "omega", "--tuned", str(tmp_path)] + args) == 0
    out = capsys.readouterr().out
    assert "| toy cvode_bdf 1e-05 | 1–1 | 1.78–1.78 | 0.889–2 | miss | hit (1.5) |" in out
    assert "| toy cvode_bdf 1e-07 | 100–100 | 1–1 | **none** (bands ×100 apart) | miss | miss (10) |" in out
    # Two cases; some gain hits one on both measurements; ω = Ω = 3.7 hits neither, the tuner one.
    assert "| cvode_bdf | 2 | 1 | 0 | 1 |" in out
    # A measurement against itself: every case has its own band within reach. A case the tuner
    # has no gain for is named, not counted as a miss.
    partial = tmp_path / "partial"
    partial.mkdir()
    with open(partial / "adaptive_tuned.csv", "w", newline="") as f:
        csv.writer(f).writerows([["model", "integrator", "tolerance", "tuned_omega"], ["toy", "cvode_bdf", "1e-05", "1.0"]])
    assert rules.main(["ceiling", str(a), str(a), "--tuned", str(partial)] + args) == 0
    out = capsys.readouterr().out
    assert "| cvode_bdf | 2 | 2 | 1 |" in out and "no tuned gain for: toy cvode_bdf 1e-07" in out
    with pytest.raises(SystemExit, match="at least two"):
        rules.main(["ceiling", str(a)] + args)


def edit_gains(directory, edit):
    """Rewrites adaptive_gains.csv row by row: edit(row dict) returns the row, or None to drop it."""
    with open(directory / "adaptive_gains.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    header = list(rows[0].keys())
    kept = [r for r in (edit(dict(r)) for r in rows) if r is not None]
    with open(directory / "adaptive_gains.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header)
        w.writeheader()
        w.writerows(kept)


def append_scans(directory, other):
    """Adds other's cases to directory's two CSVs."""
    for name in ("adaptive_gains.csv", "adaptive_best.csv"):
        with open(other / name, newline="") as f:
            rows = list(csv.reader(f))[1:]
        with open(directory / name, "a", newline="") as f:
            csv.writer(f).writerows(rows)


def test_pool_makes_one_measurement_of_several(tmp_path, capsys):
    rules = load_script()
    first, second, lonely, pooled = (tmp_path / n for n in ("a", "b", "lonely", "pooled"))
    for d in (first, second, lonely):
        d.mkdir()
    # The same case a fortieth of a decade apart in τ, peaking at 1 and at 10; a second model only
    # in the first scan.
    write_toy_scans(first, {1e-5: 1.0})
    write_toy_scans(second, {1.0593e-5: 10.0})
    write_toy_scans(lonely, {1e-5: 1.0}, model="lonely")
    append_scans(first, lonely)
    # At ω = 1 each scan holds seven explicit members, with unequal spreads.
    members = {"a": [0.1, -0.3, 0.2, 0.0, -0.1, 0.4, -0.2], "b": [-2.5, -1.9, -2.2, -1.4, -2.0, -2.8, -1.7]}
    gain = 10.0 ** 0.25

    def with_members(name):
        def edit(r):
            if r["model"] != "toy":
                return r
            if float(r["omega"]) == 1.0:
                r["efficiency"] = repr(float(np.mean(members[name])))
                r["efficiency_spread"] = repr(float(np.std(members[name], ddof=1)))
            if name == "b" and float(r["omega"]) == gain:
                r["efficiency"] = "-inf"  # a member of the second scan failed at this gain
            if name == "b" and float(r["omega"]) == 1000.0:
                return None  # its grid stops below 1000, as an extension that stopped earlier would
            return r
        return edit

    edit_gains(first, with_members("a"))
    edit_gains(second, with_members("b"))
    assert rules.main(["pool", str(first), str(second), "--out", str(pooled), "--smoothing", "0"]) == 0
    out = capsys.readouterr().out
    assert "1 cases pooled from 2 scans" in out and "count it with --ensemble 14" in out
    assert "no case at the same decade in every scan for: lonely cvode_bdf 1e-05" in out
    # Its best, band and placement columns are what the script recomputes from its points (with
    # the smoothing it was pooled with).
    assert rules.main(["check", str(pooled), "--ensemble", "14", "--smoothing", "0"]) == 0
    capsys.readouterr()
    case = rules.load(str(pooled))[0]
    assert case.tolerance == 1e-5 and 1000.0 not in case.omegas and case.omegas[-1] == 10.0 ** 2.75
    at_one, at_gain = case.omegas.index(1.0), case.omegas.index(gain)
    everyone = members["a"] + members["b"]
    assert case.efficiency[at_one] == pytest.approx(np.mean(everyone), abs=1e-15)
    assert case.spread[at_one] == pytest.approx(np.std(everyone, ddof=1), rel=1e-13)
    assert case.efficiency[at_gain] == -math.inf and case.spread[at_gain] == 0.0  # as the library's failed point
    # Elsewhere the members agree within each scan: mean of 0 and −2 over a decade's flat top.
    assert case.efficiency[case.omegas.index(10.0 ** 0.75)] == pytest.approx(-1.0, abs=1e-15)
    # The first scan's measuring run and rule are kept, its other columns are no pool's.
    assert case.row["recommended_omega"] == "3.7" and case.row["best_scd"] == "nan"
    assert case.runs[at_one]["scd"] == "nan" and case.unstabilized["steps"] == "100"
    with pytest.raises(SystemExit, match="--out"):
        rules.main(["pool", str(first), str(second)])
    # Two cases of one decade in a partner scan cannot be told apart.
    append_scans(second, second)
    with pytest.raises(SystemExit, match="same decade"):
        rules.main(["pool", str(first), str(second), "--out", str(pooled)])
