#!/usr/bin/env python3
"""The adaptive gains compared at equal accuracy rather than at equal tolerance (docs/notes/baumgarte-adaptive-gains.md).

kktdae-errdyn --adaptive scores each gain ω at the scan's tolerance τ by scd − log10 work, so one
digit is worth one decade of work. A variable-order method's work-precision curve is much steeper
than that (cvode_adams gains several digits per decade of work at tight tolerances), so a gain
that only makes the solver take smaller steps than τ asks for scores higher at fixed τ, although
tightening τ would buy the same digits for less. Here each gain may pick its own tolerance: for
each ω a sweep of tolerances τ·10^(0.05k), k = −LOW … HIGH, gives log10 work and scd, each fitted
as a line in log10 τ (locally, ±0.5 decades of τ around where it is read: the curves bend), and
the gain is scored by the work its lines need for a target accuracy. scd falls steeply and
monotonically with τ while the work hardly moves, so reading the work at a given scd is well
conditioned (reading scd at a given work is not: Adams' work is nearly flat in τ).

Two modes:

  (default) the fixed-τ best against the rule. For each (model, integrator, τ): kktdae-errdyn's
  fixed-τ scan (ω = 0.1 … 1e4 eight per decade, extended as below, ensemble of 7 at τ·10^(0.05k),
  k = −3 … 3, smoothing ±2, band 0.1) gives the band and its smoothed best ω_b; the library's
  rule gives ω_r (recommend_baumgarte_for_model, RULE mode, over the same run); both gains are
  swept, and at the accuracy each reaches at τ (its ensemble's mean scd) both lines are read:
  work_ratio = W_r / W_b at that accuracy (< 1: the rule needs less work for the band's digits).
  cases.csv, sweeps.csv (every run) and equal_accuracy.csv; --compare-only recomputes the last
  from the first two.

  --grid: every gain of the grid, scored at the accuracy S* the ω = 0 sweep's line has at τ (the
  same target for every gain): efficiency = S* − log10 W_ω(S*), written with its standard error in
  kktdae-errdyn's columns (grid/adaptive_gains.csv, grid/adaptive_best.csv), so that
      scripts/adaptive_gain_rules.py count DIR/grid --ensemble 1 --rule proposed
  counts the library's rules against the equal-accuracy bands (--ensemble 1: the spread column is
  already a standard error). A gain that does not reach S* within its sweep scores −inf; one more
  accurate than S* even at the sweep's loosest tolerance is scored there (an upper bound on its
  work: the lower_bound column); the gains above the largest one whose run at τ costs at most
  WORK_CAP × the ω = 0 run's are not swept and score −inf.

kktdae-errdyn's five problems (the chains, the circle, Andrews' squeezer and the car axis, scored
on the Test Set's coordinates), horizons, starts and grid extension (past 1e4 while the top run
costs under ×10 of ω = 0, up to 1e6), 100 interpolated outputs against ida_ggl at
--reference-tolerance (1e-13 by default; where ida_ggl fails there, once ten times looser), the step
cap 20,000, ζ = 1. Every file is written whole. Needs
PYTHONPATH=build/release/python, e.g.
  PYTHONPATH=build/release/python /usr/bin/python3 scripts/adaptive_gain_equal_work.py --out /tmp/ew \\
      --models circle --integrators cvode_adams --tolerances 1e-10
"""

import argparse
import csv
import math
import os

import numpy as np

import kktdae

OUTPUTS = 100
GRID = [10.0 ** (0.125 * j) for j in range(-8, 33)]  # 0.1 .. 1e4, 8 per decade (errdyn_adaptive.cpp)
MODELS = ("chain2", "chain3", "circle", "andrews", "caraxis")
# kktdae-errdyn's extension: the grid goes on past 1e4 while the top run costs under ×10 of ω = 0.
EXTENSION = {"extend_max_omega": 1e6, "extend_work_factor": 10.0}
ENSEMBLE_STEP = 0.05
LOCAL_HALF_WIDTH = 0.5  # decades of τ each side of where a line is read
MIN_POINTS = 8
WORK_CAP = 4.0  # --grid: gains costing more than this × the ω = 0 run at τ are not swept
GRID_SWEEP_STRIDE = 2  # --grid: every second tolerance of the sweep (0.1 decades apart)
INTEGRATOR = {"cvode_bdf": kktdae.Integrator.CVODE_BDF, "cvode_adams": kktdae.Integrator.CVODE_ADAMS,
              "ida_index1": kktdae.Integrator.IDA_INDEX1}

CASES_HEADER = "model,integrator,tolerance,band_low,band_high,band_omega,rule_omega,rule_fixed_loss".split(",")
SWEEPS_HEADER = "model,integrator,tolerance,omega,k,sweep_tolerance,work,scd,reached_end".split(",")
# At the band's accuracy at τ, then at the rule's: that scd, each line's log10 work there, the rule's
# work over the band's and the standard error of its log10, and whether either reading is at the
# sweep's loosest tolerance (an upper bound on that gain's work).
EQUAL_HEADER = ("band_scd,band_log_work_at_band_scd,rule_log_work_at_band_scd,work_ratio_at_band_scd,"
                "log_ratio_error_at_band_scd,rule_bound_at_band_scd,band_bound_at_band_scd,"
                "rule_scd,band_log_work_at_rule_scd,rule_log_work_at_rule_scd,work_ratio_at_rule_scd,"
                "log_ratio_error_at_rule_scd,rule_bound_at_rule_scd,band_bound_at_rule_scd").split(",")
GRID_GAINS_HEADER = ("model,integrator,tolerance,omega,status,scd,end_scd,work,steps,efficiency,error_test_failures,"
                     "convergence_failures,linear_solver_setups,max_phi,efficiency_spread,target_scd,"
                     "lower_bound").split(",")
GRID_BEST_HEADER = ("model,integrator,tolerance,unstabilized_scd,unstabilized_work,unstabilized_mean_step,"
                    "motion_rate,smoothed_best_omega,band_low,band_high").split(",")


def line(x, y):
    """Least squares y = a + b·x: a, b, the residual variance, x̄ and Σ(x − x̄)²."""
    xm = x.mean()
    sxx = float(((x - xm) ** 2).sum())
    b = float(((x - xm) * (y - y.mean())).sum()) / sxx
    a = float(y.mean() - b * xm)
    residual = y - (a + b * x)
    return a, b, float((residual ** 2).sum()) / (len(x) - 2), xm, sxx


class Sweep:
    """One gain's runs over the tolerances: log10 work and scd, each a line in log10 τ (the
    regressor without noise), fitted over the runs within LOCAL_HALF_WIDTH decades of τ of where
    it is read (at least MIN_POINTS runs)."""

    def __init__(self, log_tolerances, log_works, scds):
        self.x = np.asarray(log_tolerances, dtype=float)
        self.log_work = np.asarray(log_works, dtype=float)
        self.scd = np.asarray(scds, dtype=float)

    def lines(self, centre=None):
        if centre is None:
            near = np.arange(len(self.x))
        else:
            near = np.flatnonzero(np.abs(self.x - centre) <= LOCAL_HALF_WIDTH)
            if len(near) < MIN_POINTS:
                near = np.argsort(np.abs(self.x - centre), kind="stable")[:MIN_POINTS]
        x = self.x[near]
        return x, line(x, self.log_work[near]), line(x, self.scd[near])

    def scd_at(self, log_tolerance):
        _, _, (a, b, _, _, _) = self.lines(log_tolerance)
        return a + b * log_tolerance

    def work_at_scd(self, target):
        """(log10 work, its standard error, bound) where the scd line reaches `target`; nan where
        that needs a tighter tolerance than the sweep's tightest. A gain more accurate than
        `target` even at the sweep's loosest tolerance is read there: bound = True, an upper bound
        on its work."""
        at = None
        for _ in range(3):  # the whole sweep's lines say where; the local lines there say what
            x, (aw, bw, vw, xm, sxx), (a_s, bs, vs, _, _) = self.lines(at)
            if not bs < 0.0 and at is not None:
                # A jump in scd can tilt a local line the wrong way; the whole sweep's does not.
                x, (aw, bw, vw, xm, sxx), (a_s, bs, vs, _, _) = self.lines(None)
            if not bs < 0.0:  # scd must rise as τ tightens
                return math.nan, math.nan, False
            at = (target - a_s) / bs
            tighter, bound = at < self.x.min(), at > self.x.max()
            at = min(max(at, float(self.x.min())), float(self.x.max()))
        if tighter:
            return math.nan, math.nan, False
        leverage = 1.0 / len(x) + (at - xm) ** 2 / sxx
        # The scd line's error moves the tolerance read off it, and the work with it at bw/bs per digit.
        return aw + bw * at, math.sqrt(leverage * (vw + (bw / bs) ** 2 * vs)), bound


def model(name):
    """errdyn_adaptive.cpp's problems: (system, start, t_end, scored components; 0 = all)."""
    if name in ("chain2", "chain3"):
        system = kktdae.PendulumChain(int(name[-1]))
        return system, system.initial_state(0.3), 2.0, 0
    if name == "circle":
        system = kktdae.CircleMass()
        return system, system.initial_state(1.0), 5.0, 0
    if name in ("andrews", "caraxis"):
        case = kktdae.test_set_case(name)
        return case["system"], case["start"], case["t_end"], case["scored_components"]
    raise SystemExit("unknown model %r (%s)" % (name, ", ".join(MODELS)))


def problem(name, args):
    """The model, its start, t_end and the reference path at --reference-tolerance."""
    system, start, t_end, components = model(name)
    try:
        reference = kktdae.adaptive_gain_reference_path(system, start, t_end, OUTPUTS, components,
                                                        args.reference_tolerance)
    except ValueError:  # as the tuner does: once ten times looser (Andrews' squeezer fails at 1e-13)
        reference = kktdae.adaptive_gain_reference_path(system, start, t_end, OUTPUTS, components,
                                                        10.0 * args.reference_tolerance)
        print("%s: the reference failed at %g, made at %g" % (name, args.reference_tolerance,
                                                             10.0 * args.reference_tolerance), flush=True)
    return system, start, t_end, reference


def write_csv(path, header, rows):
    """Whole or not at all: a temporary file renamed over the target."""
    with open(path + ".tmp", "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    os.replace(path + ".tmp", path)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def each_case(args):
    """Every (model, integrator, τ) asked for, with the model's problem made once per model."""
    for name in args.models:
        system, start, t_end, reference = problem(name, args)
        for integrator in args.integrators:
            for tau in args.tolerances:
                yield name, system, start, t_end, reference, integrator, tau


def measure(args):
    """Every case's fixed-τ scan and both gains' sweeps: cases.csv and sweeps.csv."""
    cases, sweeps = [], []
    for name, system, start, t_end, reference, integrator, tau in each_case(args):
        fixed = kktdae.scan_adaptive_gains(system, start, t_end, reference, kktdae.AdaptiveGainOptions(
            integrators=[integrator], tolerances=[tau], omegas=GRID, ensemble_size=7,
            ensemble_step=ENSEMBLE_STEP, max_steps=20000, threads=args.threads, **EXTENSION), name=name)
        best = fixed.best[0]
        guidance = kktdae.recommend_baumgarte_for_model(
            system, start, INTEGRATOR[integrator], 0.0,
            kktdae.ModelGuidanceOptions(horizon=t_end - start.t, tolerance=tau))
        rule_omega = guidance.recommendation.omega
        cases.append([name, integrator, repr(tau), repr(best.band_low), repr(best.band_high),
                      repr(best.smoothed_best_omega), repr(rule_omega),
                      repr(kktdae.place_in_band(best, rule_omega).loss)])
        ks = list(range(-args.tighter, args.looser + 1))
        tolerances = [tau * 10.0 ** (ENSEMBLE_STEP * k) for k in ks]
        gains = sorted({best.smoothed_best_omega, rule_omega})
        scan = kktdae.scan_adaptive_gains(system, start, t_end, reference, kktdae.AdaptiveGainOptions(
            integrators=[integrator], tolerances=tolerances, omegas=gains, ensemble_size=1,
            max_steps=20000, threads=args.threads), name=name)
        for k, t, b in zip(ks, tolerances, scan.best):
            for r in scan.runs[b.first_run + 1:b.first_run + 1 + len(gains)]:
                sweeps.append([name, integrator, repr(tau), repr(r.omega), k, repr(t), r.work, repr(r.scd),
                               int(r.reached_end)])
        print("measured %s %s %g" % (name, integrator, tau), flush=True)
    write_csv(os.path.join(args.out, "cases.csv"), CASES_HEADER, cases)
    write_csv(os.path.join(args.out, "sweeps.csv"), SWEEPS_HEADER, sweeps)


def compare(directory):
    """equal_accuracy.csv from cases.csv and sweeps.csv."""
    runs = {}
    for r in read_csv(os.path.join(directory, "sweeps.csv")):
        runs.setdefault((r["model"], r["integrator"], float(r["tolerance"]), float(r["omega"])), []).append(r)
    rows = []
    for c in read_csv(os.path.join(directory, "cases.csv")):
        key = (c["model"], c["integrator"], float(c["tolerance"]))
        band_omega, rule_omega = float(c["band_omega"]), float(c["rule_omega"])
        sweeps, accuracy = {}, {}
        for omega in (band_omega, rule_omega):
            mine = runs[key + (omega,)]
            accuracy[omega] = float(np.mean([float(r["scd"]) for r in mine if -3 <= int(r["k"]) <= 3]))
            ok = [r for r in mine if r["reached_end"] == "1"]
            sweeps[omega] = Sweep([math.log10(float(r["sweep_tolerance"])) for r in ok],
                                  [math.log10(int(r["work"])) for r in ok], [float(r["scd"]) for r in ok])
        out = list(c.values())
        text = []
        for target in (accuracy[band_omega], accuracy[rule_omega]):
            b_work, b_err, b_bound = sweeps[band_omega].work_at_scd(target)
            r_work, r_err, r_bound = sweeps[rule_omega].work_at_scd(target)
            out += [repr(target), repr(b_work), repr(r_work), repr(10.0 ** (r_work - b_work)),
                    repr(math.hypot(r_err, b_err)), int(r_bound), int(b_bound)]
            text.append("%s×%.2f (±%.2f decades)" % ("≤" if r_bound and not b_bound else "",
                                                     10.0 ** (r_work - b_work), math.hypot(r_err, b_err)))
        rows.append(out)
        print("%s %s %g: band %.3g-%.3g (best %.3g), rule %.3g (fixed-τ loss %.2f); the rule's work over the "
              "band's, at the band's scd %s, at the rule's scd %s"
              % (key + (float(c["band_low"]), float(c["band_high"]), band_omega, rule_omega,
                        float(c["rule_fixed_loss"]), text[0], text[1])), flush=True)
    write_csv(os.path.join(directory, "equal_accuracy.csv"), CASES_HEADER + EQUAL_HEADER, rows)


def smoothed_band(omegas, efficiency, half_width=2, band=0.1):
    """bestOf()'s smoothed best and band (kktdae-errdyn's smoothing ±2 and band 0.1), for the log
    line; scripts/adaptive_gain_rules.py recomputes them, with the error bars, from the CSV."""
    n = len(omegas)
    smooth = []
    for j in range(n):
        lo, hi = max(0, j - half_width), min(n - 1, j + half_width)
        smooth.append(sum(efficiency[lo:hi + 1]) / (hi - lo + 1))
    top = 0
    for j in range(n):
        if smooth[j] > smooth[top]:
            top = j
    if not math.isfinite(smooth[top]):
        return 0.0, 0.0, 0.0
    lo = hi = top
    while lo > 0 and smooth[lo - 1] >= smooth[top] - band:
        lo -= 1
    while hi + 1 < n and smooth[hi + 1] >= smooth[top] - band:
        hi += 1
    return omegas[top], omegas[lo], omegas[hi]


def measure_grid(args):
    """Every affordable gain of the grid scored at the ω = 0 sweep's accuracy at τ."""
    gains_rows, best_rows = [], []
    for name, system, start, t_end, reference, integrator, tau in each_case(args):
        probe = kktdae.scan_adaptive_gains(system, start, t_end, reference, kktdae.AdaptiveGainOptions(
            integrators=[integrator], tolerances=[tau], omegas=GRID, ensemble_size=1, max_steps=20000,
            threads=args.threads, **EXTENSION), name=name)
        unstabilized = probe.runs[0]
        omegas = probe.best[0].omegas
        affordable = [r.omega for r in probe.runs[1:]
                      if r.reached_end and r.work <= WORK_CAP * unstabilized.work]
        grid = [w for w in omegas if affordable and w <= max(affordable)]
        ks = list(range(-args.tighter, args.looser + 1, GRID_SWEEP_STRIDE))
        tolerances = [tau * 10.0 ** (ENSEMBLE_STEP * k) for k in ks]
        scan = kktdae.scan_adaptive_gains(system, start, t_end, reference, kktdae.AdaptiveGainOptions(
            integrators=[integrator], tolerances=tolerances, omegas=grid, ensemble_size=1,
            max_steps=20000, threads=args.threads), name=name)
        x = [math.log10(t) for t in tolerances]

        def sweep_of(j):
            runs = [scan.runs[b.first_run + j] for b in scan.best]
            ok = [(xi, math.log10(r.work), r.scd) for xi, r in zip(x, runs) if r.reached_end]
            return Sweep(*zip(*ok)) if len(ok) >= MIN_POINTS else None

        target = sweep_of(0).scd_at(math.log10(tau))
        scale = kktdae.measure_motion_time_scale(system, start, t_end, INTEGRATOR[integrator], tau)
        efficiencies = []
        for j, r in enumerate(probe.runs):
            score, error, bound = -math.inf, 0.0, False
            sweep = sweep_of(j) if j <= len(grid) else None
            if sweep is not None:
                log_work, log_work_error, bound = sweep.work_at_scd(target)
                if math.isfinite(log_work):
                    score, error = target - log_work, log_work_error
            s = r.summary
            gains_rows.append([name, integrator, repr(tau), repr(r.omega), s.status.label, repr(r.scd),
                               repr(r.end_scd), r.work, s.steps, repr(score), s.error_test_failures,
                               s.convergence_failures, s.linear_solver_setups, repr(s.max_phi_inf),
                               repr(error), repr(target), int(bound)])
            if j > 0:
                efficiencies.append(score)
        top, low, high = smoothed_band(omegas, efficiencies)
        best_rows.append([name, integrator, repr(tau), repr(unstabilized.scd), unstabilized.work,
                          repr(scale.mean_step), repr(scale.motion_rate), repr(top), repr(low), repr(high)])
        print("equal-accuracy grid %s %s %g: best %.3g, band %.3g-%.3g"
              % (name, integrator, tau, top, low, high), flush=True)
    directory = os.path.join(args.out, "grid")
    os.makedirs(directory, exist_ok=True)
    write_csv(os.path.join(directory, "adaptive_gains.csv"), GRID_GAINS_HEADER, gains_rows)
    write_csv(os.path.join(directory, "adaptive_best.csv"), GRID_BEST_HEADER, best_rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="directory for the CSV files")
    parser.add_argument("--compare-only", action="store_true", help="recompute equal_accuracy.csv from --out's files")
    parser.add_argument("--grid", action="store_true", help="every gain of the grid instead (grid/)")
    parser.add_argument("--models", nargs="+", default=list(MODELS))
    parser.add_argument("--integrators", nargs="+", default=["cvode_bdf", "cvode_adams", "ida_index1"])
    parser.add_argument("--tolerances", type=float, nargs="+", default=[1e-5, 1e-7, 1e-10])
    parser.add_argument("--tighter", type=int, default=50, help="LOW: the sweep goes down to τ·10^(−0.05·LOW)")
    parser.add_argument("--looser", type=int, default=20, help="HIGH: and up to τ·10^(0.05·HIGH)")
    parser.add_argument("--reference-tolerance", type=float, default=1e-13)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    if args.tighter < 3 or args.looser < 3 or args.tighter + args.looser + 1 < 2 * MIN_POINTS:
        raise SystemExit("--tighter and --looser must be >= 3 (the ensemble k = -3 ... 3) with at least %d "
                         "tolerances, got %d and %d" % (2 * MIN_POINTS, args.tighter, args.looser))
    unknown = [i for i in args.integrators if i not in INTEGRATOR]
    if unknown:
        raise SystemExit("unknown integrator %s (%s)" % (", ".join(unknown), ", ".join(INTEGRATOR)))
    if not all(t > 0.0 for t in args.tolerances):
        raise SystemExit("--tolerances must be > 0, got %s" % args.tolerances)
    os.makedirs(args.out, exist_ok=True)
    if args.grid:
        measure_grid(args)
        return
    if not args.compare_only:
        measure(args)
    compare(args.out)


if __name__ == "__main__":
    main()
