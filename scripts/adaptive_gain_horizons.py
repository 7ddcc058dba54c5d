#!/usr/bin/env python3
"""kktdae-errdyn --adaptive's scan at other horizons, for the rules that use the run's length.

kktdae-errdyn scans five models at one horizon each, so a rule that uses the horizon T (or Ω T)
cannot be told from a rule that knows the model's name on its data. This scan runs the same
grid (ω = 0 and 0.1 … 1e4 eight per decade, extended past 1e4 while the work stays within ×10,
ζ = 1, 100 interpolated outputs scored against ida_ggl at 1e-12, the step cap 20,000, an
ensemble of --ensemble tolerances 0.05 digits apart, smoothing ±2, band 0.1) on the double and
triple pendulum and the circle at the horizons given, and writes adaptive_gains.csv and
adaptive_best.csv in kktdae-errdyn's columns (recommended_omega: what recommendBaumgarteForModel
returns, from a measuring run of 200 outputs over the same horizon), so that
scripts/adaptive_gain_rules.py reads it as it reads kktdae-errdyn's.

Needs the Python package (PYTHONPATH=build/release/python); e.g.
  PYTHONPATH=build/release/python nice -n 5 /usr/bin/python3 scripts/adaptive_gain_horizons.py \\
      --out /tmp/gains-horizons --case chain2:8 --case circle:1.5 --tolerances 1e-6 1e-9
"""

import argparse
import csv
import math
import os
import sys

import kktdae

OUTPUTS = 100
GRID = [10.0 ** (0.125 * j) for j in range(-8, 33)]  # 0.1 .. 1e4, 8 per decade (errdyn_adaptive.cpp)

GAINS_HEADER = ("model,integrator,tolerance,omega,status,scd,end_scd,work,steps,efficiency,error_test_failures,"
                "convergence_failures,linear_solver_setups,max_phi,efficiency_spread").split(",")
BEST_HEADER = ("model,integrator,tolerance,unstabilized_scd,unstabilized_work,unstabilized_mean_step,motion_rate,"
               "best_omega,smoothed_best_omega,band_low,band_high,best_scd,best_work,recommended_omega,ratio,side,"
               "outside_factor,efficiency_loss,grid_top,scatter,ensemble_spread,loss_error").split(",")


def model(name):
    """errdyn_adaptive.cpp's models and starts."""
    if name == "chain2":
        system = kktdae.PendulumChain(2)
        return system, system.initial_state(0.3)
    if name == "chain3":
        system = kktdae.PendulumChain(3)
        return system, system.initial_state(0.3)
    if name == "circle":
        system = kktdae.CircleMass()
        return system, system.initial_state(1.0)
    raise SystemExit("unknown model %r (chain2, chain3, circle)" % name)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="directory for the two CSV files")
    parser.add_argument("--case", action="append", required=True, help="MODEL:HORIZON, e.g. chain2:8 (repeatable)")
    parser.add_argument("--tolerances", type=float, nargs="+", default=[1e-6, 1e-9])
    parser.add_argument("--integrators", nargs="+", default=["cvode_bdf", "cvode_adams", "ida_index1"])
    parser.add_argument("--ensemble", type=int, default=7)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    gains, best_rows = [], []
    for spec in args.case:
        name, _, horizon_text = spec.partition(":")
        horizon = float(horizon_text)
        system, start = model(name)
        label = "%s_T%g" % (name, horizon)
        t_end = start.t + horizon
        reference = kktdae.adaptive_gain_reference_path(system, start, t_end, OUTPUTS)
        options = kktdae.AdaptiveGainOptions(integrators=args.integrators, tolerances=args.tolerances, omegas=GRID,
                                             extend_max_omega=1e6, extend_work_factor=10.0,
                                             ensemble_size=args.ensemble, max_steps=20000, threads=args.threads)
        scan = kktdae.scan_adaptive_gains(system, start, t_end, reference, options, name=label)
        for b in scan.best:
            for r in scan.runs[b.first_run:b.first_run + 1 + len(b.omegas)]:
                s = r.summary
                gains.append([label, r.integrator.label, repr(r.tolerance), repr(r.omega), s.status.label,
                              repr(r.scd), repr(r.end_scd), r.work, s.steps, repr(r.efficiency),
                              s.error_test_failures, s.convergence_failures, s.linear_solver_setups,
                              repr(s.max_phi_inf), repr(r.efficiency_spread)])
            scale = kktdae.measure_motion_time_scale(system, start, t_end, b.integrator, b.tolerance)
            mean_step = scale.mean_step if scale.summary.status.label == "success" else 0.0
            omega = kktdae.recommend_baumgarte(b.integrator, horizon, motion_rate=scale.motion_rate,
                                               mean_step=mean_step).omega
            p = kktdae.place_in_band(b, omega)
            nearest = min(range(len(b.omegas)), key=lambda j: abs(
                math.log(b.omegas[j] / b.smoothed_best_omega)))
            at_best = scan.runs[b.first_run + 1 + nearest]
            best_rows.append([label, b.integrator.label, repr(b.tolerance), repr(b.unstabilized.scd),
                              b.unstabilized.work, repr(b.unstabilized_mean_step), repr(scale.motion_rate),
                              repr(b.best_omega), repr(b.smoothed_best_omega), repr(b.band_low), repr(b.band_high),
                              repr(at_best.scd), at_best.work, repr(omega), repr(p.ratio), p.side,
                              repr(p.outside_factor), repr(p.loss), repr(b.omegas[-1]), repr(b.scatter),
                              repr(b.ensemble_spread), repr(p.loss_error)])
        write(args.out, gains, best_rows)  # after every case: a long scan keeps what it finished
        print("%s done" % label, flush=True)
    return 0


def write(directory, gains, best_rows):
    for file_name, header, rows in (("adaptive_gains.csv", GAINS_HEADER, gains),
                                    ("adaptive_best.csv", BEST_HEADER, best_rows)):
        path = os.path.join(directory, file_name)
        with open(path + ".part", "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(header)
            w.writerows(rows)
        os.replace(path + ".part", path)


if __name__ == "__main__":
    sys.exit(main())
