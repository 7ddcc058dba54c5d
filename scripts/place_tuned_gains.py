#!/usr/bin/env python3
"""Places the tuner's gains (kktdae-errdyn --adaptive-tuner-only: adaptive_tuned.csv) in the bands of a
full scan (kktdae-errdyn --adaptive: adaptive_best.csv, adaptive_gains.csv), as docs/notes/baumgarte-adaptive-gains.md
"Measured gains (the tuner)" counts them, with the rule's gain of the same full scan beside it.

    scripts/place_tuned_gains.py TUNED_DIR FULL_DIR [--smoothing 2] [--by-decade]

--by-decade matches a tuned case to the full scan's case of the same model, integrator and decade
of tolerance (round(log10 τ)), so that the tuner at τ can be placed in a second measurement made at
τ·10^0.025 (docs §9, "Does the measurement reproduce itself?").

Per case: where the tuned ω (the tuner's band middle) and the tuner's own smoothed best fall against
the full scan's band (inside, or the factor outside), the loss on the full scan's smoothed curve
(rebuilt from adaptive_gains.csv as AdaptiveGainBest does: each point and `smoothing` neighbours on
each side, interpolated linearly in log ω; checked against the full scan's own efficiency_loss for
the rule's gain), and the tuner's cost in model calls over one unstabilized run of the whole horizon.
"""
import argparse
import csv
import math
import statistics
import sys
from collections import defaultdict
from pathlib import Path


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def number(text):
    return float(text) if text not in ("", None) else -math.inf


def smoothed_curve(points, half):
    omegas = [w for w, _ in points]
    eff = [e for _, e in points]
    curve = []
    for j in range(len(eff)):
        lo, hi = max(0, j - half), min(len(eff) - 1, j + half)
        window = eff[lo:hi + 1]
        curve.append(sum(window) / len(window) if all(math.isfinite(e) for e in window) else -math.inf)
    return omegas, curve


def interpolate(omegas, curve, omega):
    if omega <= omegas[0]:
        return curve[0]
    if omega >= omegas[-1]:
        return curve[-1]
    j = next(i for i, w in enumerate(omegas) if w >= omega)
    s = math.log(omega / omegas[j - 1]) / math.log(omegas[j] / omegas[j - 1])
    a, b = curve[j - 1], curve[j]
    return (1 - s) * a + s * b if math.isfinite(a) and math.isfinite(b) else min(a, b)


def placement(omega, low, high):
    """0 inside the band, else the factor outside it with its sign (- below, + above)."""
    if omega < low:
        return -low / omega
    if omega > high:
        return omega / high
    return 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tuned_dir", type=Path)
    parser.add_argument("full_dir", type=Path)
    parser.add_argument("--smoothing", type=int, default=2, help="the full scan's smoothing half-width")
    parser.add_argument("--by-decade", action="store_true",
                        help="match cases by the decade of their tolerance, not the tolerance itself")
    args = parser.parse_args()

    def key_of(r):
        tolerance = float(r["tolerance"])
        return (r["model"], r["integrator"], 10.0 ** round(math.log10(tolerance)) if args.by_decade else tolerance)

    def by_key(rows, where):
        keyed = {}
        for r in rows:
            if key_of(r) in keyed:
                raise SystemExit(f"{where}: two cases of {r['model']} {r['integrator']} at "
                                 f"{keyed[key_of(r)]['tolerance']} and {r['tolerance']} match the same key")
            keyed[key_of(r)] = r
        return keyed

    tuned = by_key(read(args.tuned_dir / "adaptive_tuned.csv"), args.tuned_dir)
    full = by_key(read(args.full_dir / "adaptive_best.csv"), args.full_dir)
    grid = defaultdict(list)
    for r in read(args.full_dir / "adaptive_gains.csv"):
        if float(r["omega"]) > 0:
            grid[key_of(r)].append((float(r["omega"]), number(r["efficiency"])))

    print(f"{'model':8} {'integrator':11} {'tol':>6} {'band':>17} {'rule':>9} {'place':>7} {'tuned':>9} {'place':>7} "
          f"{'loss':>5} {'t.best':>9} {'place':>7} {'cost':>6} {'runs':>5}")
    counts = defaultdict(lambda: defaultdict(int))
    costs = defaultdict(list)
    worst_check = 0.0
    for key in sorted(full, key=lambda k: (list(full).index(k))):
        if key not in tuned:
            continue
        f, t = full[key], tuned[key]
        low, high = float(f["band_low"]), float(f["band_high"])
        omegas, curve = smoothed_curve(sorted(grid[key]), args.smoothing)
        top = max(curve)
        rule = float(f["recommended_omega"])
        # The rebuilt curve must give the full scan's own loss for the rule's gain.
        worst_check = max(worst_check, abs((top - interpolate(omegas, curve, rule)) - float(f["efficiency_loss"])))
        tuned_omega, tuned_best = float(t["tuned_omega"]), float(t["tuned_smoothed_best"])
        loss = top - interpolate(omegas, curve, tuned_omega)
        cost = int(t["tuned_model_calls"]) / int(f["unstabilized_work"])
        integrator = key[1]
        # A case whose scan gave no gain (tuned_used 0) gets the rule's gain, as the user does;
        # its "tuner's smoothed best" is that gain too.
        if t["tuned_used"] != "1":
            tuned_best = tuned_omega
        for name, omega in (("rule", rule), ("tuned", tuned_omega), ("tuned_best", tuned_best)):
            p = placement(omega, low, high)
            counts[integrator][name + "_inside"] += p == 0.0
            counts[integrator][name + "_x2"] += abs(p) <= 2.0
        counts[integrator]["cases"] += 1
        counts[integrator]["tuned_used"] += t["tuned_used"] == "1"
        costs[integrator].append(cost)
        counts[integrator]["loss_sum_milli"] += round(1000 * loss)
        counts[integrator]["rule_loss_sum_milli"] += round(1000 * float(f["efficiency_loss"]))

        def show(omega):
            p = placement(omega, low, high)
            return "in" if p == 0.0 else f"{'-' if p < 0 else '+'}{abs(p):.2f}"

        print(f"{key[0]:8} {integrator:11} {key[2]:6.0e} {low:8.3g}-{high:<8.3g} {rule:9.3g} {show(rule):>7} "
              f"{tuned_omega:9.3g} {show(tuned_omega):>7} {loss:5.2f} {tuned_best:9.3g} {show(tuned_best):>7} "
              f"{cost:6.1f} {t['tuned_runs']:>5}")
    print(f"\nrebuilt curve against the full scan's efficiency_loss of the rule: worst difference {worst_check:.2g}")
    print(f"\n{'integrator':11} {'cases':>5} {'rule in':>7} {'rule x2':>7} {'tuned in':>8} {'tuned x2':>8} "
          f"{'t.best in':>9} {'t.best x2':>9} {'mean loss':>9} {'rule loss':>9} {'cost median (range)':>22}")
    for integrator, c in counts.items():
        cs = costs[integrator]
        print(f"{integrator:11} {c['cases']:5} {c['rule_inside']:7} {c['rule_x2']:7} {c['tuned_inside']:8} "
              f"{c['tuned_x2']:8} {c['tuned_best_inside']:9} {c['tuned_best_x2']:9} "
              f"{c['loss_sum_milli'] / 1000 / c['cases']:9.2f} {c['rule_loss_sum_milli'] / 1000 / c['cases']:9.2f} "
              f"{statistics.median(cs):8.1f} ({min(cs):.1f}-{max(cs):.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
