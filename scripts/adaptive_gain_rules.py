#!/usr/bin/env python3
"""Counts candidate Baumgarte-gain rules for the adaptive integrators against a measured scan.

Reads kktdae-errdyn --adaptive's two files from each directory given (docs/notes/baumgarte-adaptive-gains.md):
  adaptive_gains.csv   every grid point of every scan (efficiency = ensemble mean, its spread)
  adaptive_best.csv    one row per (model, integrator, tolerance): Ω, h̄, band, recommendation
and recomputes, from the grid points alone, what the library's bestOf() and placeInBand()
(lib/src/experiments/adaptive_gain.cpp) compute: the smoothed curve, its error bar, the smoothed
best, the band, and for any ω the placement (ratio, side, outside factor, loss, loss error). The
same floating-point operations in the same order, so `check` reproduces the CSV's own columns bit
for bit (libm's log and hypot through ctypes, as std::log and std::hypot call them).

A rule is ω = f(case), a case holding Ω (motion_rate), h̄ (unstabilized_mean_step), τ, the
integrator, the horizon T (= h̄ · steps of the ω = 0 run) and the ω = 0 run's counters (max_phi,
steps, error_test_failures, ...). A hit is ω inside the band or outside it by at most a factor 2.

Commands (numpy and the standard library only; /usr/bin/python3):
  check  DIR...                 recomputed best/band/placement against the CSV's, exactly
  count  DIR... [--rule NAME]   hits per integrator for the named rules (all by default), each
                                directory a sample of its own
  cases  DIR... --rule NAME     one line per case: placement, loss ± error, σ
  search --fit DIR --test DIR   one-parameter and two-parameter families, chosen on --fit only,
                                then counted on --test without refitting
  tables DIR... --rule NAME     the markdown tables of docs/notes/baumgarte-adaptive-gains.md
  compare DIR...                the current rule here against the 3-member table in --doc
  curve  DIR... [--case WORDS]  a scan's grid points, smoothed curve and band
  retest A B [--rule NAME]      two scans a fraction of a decade apart in tolerance: does the band
                                reproduce within ×2, and do the rules hit on both
  monotone DIR... [--rule NAME] per (model, integrator), over all tolerances of the directories
                                together: the most cases any gain monotone in h̄ can hit, rising as
                                h̄ shrinks or falling, and the least worst loss it can reach;
                                --across-models: per integrator, any ω = Ω·f(Ω·h̄), f monotone
  pool DIR... --out OUT         several scans of the same cases (tolerances a fraction of a decade
                                apart) as one with all their members, to count with
                                --ensemble N·(number of scans)
  ceiling DIR... [--rule NAME] [--tuned DIR]
                                several measurements of the same cases (matched by decade): per case
                                the gains within ×2 of every measurement's band, if any; per
                                integrator how many cases any gain can hit on all of them, and how
                                many the rules (and the tuner's gains) do
--ensemble N (default 7) is the scan's ensemble size (the error bars need it; the CSV does not
hold it). --smoothing (2) and --band (0.1) are AdaptiveGainOptions' smoothing_half_width and
band_tolerance as kktdae-errdyn sets them.
"""

import argparse
import csv
import ctypes
import ctypes.util
import math
import os
import sys

import numpy as np

_libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
_libm.log.restype = ctypes.c_double
_libm.log.argtypes = [ctypes.c_double]
_libm.hypot.restype = ctypes.c_double
_libm.hypot.argtypes = [ctypes.c_double, ctypes.c_double]


def c_log(x):
    return _libm.log(x)


def c_hypot(a, b):
    return _libm.hypot(a, b)


CVODE = ("cvode_bdf", "cvode_adams")
INTEGRATORS = ("cvode_bdf", "cvode_adams", "ida_index1")
# adaptiveStiffnessCap() (lib/src/stabilization/baumgarte_guidance.cpp)
STIFFNESS_CAP = {"cvode_bdf": 0.3, "cvode_adams": 0.3, "ida_index1": 3.0}
HIT_FACTOR = 2.0


def _number(text):
    # to_chars writes "-inf", "inf" and "nan" for the non-finite values; float() reads them.
    return float(text)


class Case:
    """One (model, integrator, tolerance) scan: its grid points and its row of adaptive_best.csv."""

    def __init__(self, best_row, runs):
        self.row = best_row
        self.model = best_row["model"]
        self.integrator = best_row["integrator"]
        self.tolerance = _number(best_row["tolerance"])
        self.motion_rate = _number(best_row["motion_rate"])
        self.mean_step = _number(best_row["unstabilized_mean_step"])
        self.unstabilized = runs[0]
        assert _number(runs[0]["omega"]) == 0.0, "each scan starts with its omega = 0 run"
        self.runs = runs[1:]
        self.omegas = [_number(r["omega"]) for r in self.runs]
        self.efficiency = [_number(r["efficiency"]) for r in self.runs]
        self.spread = [_number(r["efficiency_spread"]) for r in self.runs]
        steps0 = int(self.unstabilized["steps"])
        self.horizon = self.mean_step * steps0  # (t_end - t0) / steps * steps
        self.max_phi0 = _number(self.unstabilized["max_phi"])
        self.error_test_failures0 = int(self.unstabilized["error_test_failures"])
        self.steps0 = steps0
        self.scd0 = _number(self.unstabilized["scd"])
        self.work0 = int(self.unstabilized["work"])

    def key(self):
        return (self.model, self.integrator, self.tolerance)

    def label(self):
        return "%s %s %g" % (self.model, self.integrator, self.tolerance)


def load(directory):
    """The cases of one run directory, in adaptive_best.csv's order."""
    with open(os.path.join(directory, "adaptive_gains.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(directory, "adaptive_best.csv"), newline="") as f:
        best_rows = list(csv.DictReader(f))
    scans = {}
    for row in rows:  # runs are written scan by scan, omega = 0 first, then ascending
        scans.setdefault((row["model"], row["integrator"], _number(row["tolerance"])), []).append(row)
    cases = []
    for b in best_rows:
        key = (b["model"], b["integrator"], _number(b["tolerance"]))
        if key not in scans:
            raise SystemExit("%s: no grid points for %s" % (directory, key))
        cases.append(Case(b, scans[key]))
    return cases


class Smoothed:
    """bestOf()'s smoothed curve, its error, the smoothed best and the band."""

    def __init__(self, case, ensemble, half_width, band_tolerance):
        n = len(case.omegas)
        self.omegas = case.omegas
        self.efficiency = []
        self.error = []
        self.best_efficiency = -math.inf
        self.best_omega = 0.0
        top = 0
        for j in range(n):
            lo, hi = max(0, j - half_width), min(n - 1, j + half_width)
            total, variance = 0.0, 0.0
            for i in range(lo, hi + 1):
                total += case.efficiency[i]
                variance += case.spread[i] * case.spread[i] / float(ensemble)
            count = float(hi - lo + 1)
            mean = total / count
            self.efficiency.append(mean)
            self.error.append(math.sqrt(variance) / count)
            if mean > self.best_efficiency:
                self.best_efficiency = mean
                self.best_omega = case.omegas[j]
                top = j
        self.band_low = self.band_high = 0.0
        if math.isfinite(self.best_efficiency):
            floor = self.best_efficiency - band_tolerance
            lo = hi = top
            while lo > 0 and self.efficiency[lo - 1] >= floor:
                lo -= 1
            while hi + 1 < n and self.efficiency[hi + 1] >= floor:
                hi += 1
            self.band_low, self.band_high = case.omegas[lo], case.omegas[hi]


class Placement:
    def __init__(self, ratio, outside_factor, side, loss, loss_error):
        self.ratio, self.outside_factor, self.side = ratio, outside_factor, side
        self.loss, self.loss_error = loss, loss_error

    def hit(self):
        return self.side == 0 or self.outside_factor <= HIT_FACTOR


def place(s, omega):
    """placeInBand(): where omega (> 0) falls relative to the smoothed curve `s`."""
    if not omega > 0.0:
        raise ValueError("omega must be > 0, got %r" % omega)
    ratio = omega / s.best_omega
    side, outside = 0, 1.0
    if omega < s.band_low:
        side, outside = -1, s.band_low / omega
    elif omega > s.band_high:
        side, outside = 1, omega / s.band_high
    w, e, err = s.omegas, s.efficiency, s.error
    at, at_error = e[0], err[0]
    if omega >= w[-1]:
        at, at_error = e[-1], err[-1]
    elif omega > w[0]:
        j = 1
        while w[j] < omega:
            j += 1
        t = c_log(omega / w[j - 1]) / c_log(w[j] / w[j - 1])
        if math.isfinite(e[j - 1]) and math.isfinite(e[j]):
            at = (1.0 - t) * e[j - 1] + t * e[j]
        else:
            at = min(e[j - 1], e[j])
        at_error = (1.0 - t) * err[j - 1] + t * err[j]
    loss = s.best_efficiency - at
    best_error = 0.0
    for j in range(len(w)):
        if w[j] == s.best_omega:
            best_error = err[j]
    return Placement(ratio, outside, side, loss, c_hypot(best_error, at_error))


# ---------------------------------------------------------------------------------------------
# Rules: each maps a Case to ω [rad/s].


def rule_current(c):
    """recommendBaumgarte today: CVODE min(Ω, 0.3/h̄), ida_index1 1/h̄."""
    if c.integrator == "ida_index1":
        return 1.0 / c.mean_step
    return min(c.motion_rate, STIFFNESS_CAP[c.integrator] / c.mean_step)


def rule_omega(c):
    """ω = Ω for every integrator."""
    return c.motion_rate


def rule_inverse_step(c):
    """ω = 1/h̄ for every integrator."""
    return 1.0 / c.mean_step


def power_rule(c_by_integrator, b_by_integrator):
    """ω = c·Ω·(Ω h̄)^(−b) per integrator: b = 0 is c·Ω, b = 1 is c/h̄."""

    def rule(case):
        k, b = c_by_integrator[case.integrator], b_by_integrator[case.integrator]
        return k * case.motion_rate * (case.motion_rate * case.mean_step) ** (-b)

    return rule


def drift_rule(k_by_integrator, cap_by_integrator):
    """ω = max(Ω, (1/T)·√(k·max_phi0/τ)), capped at cap/h̄: the gain at which the drift
    2·max_phi0/(ωT)² that feedback ω leaves of the unstabilized run's max_phi0 falls to τ/k."""

    def rule(case):
        k, cap = k_by_integrator[case.integrator], cap_by_integrator[case.integrator]
        drift = math.sqrt(2.0 * k * case.max_phi0 / case.tolerance) / case.horizon
        return min(max(case.motion_rate, drift), cap / case.mean_step)

    return rule


def radians_rule(c_by_integrator, cap_by_integrator):
    """ω = min(c·Ω·T, cap) / h̄: the fraction of the step's knee 1/h̄ grows with the radians Ω·T the
    motion turns over the run (the drift without feedback grows like T², the tangential error like
    T: the drift's share grows like Ω·T). T/h̄ is the ω = 0 run's step count."""

    def rule(case):
        k, cap = c_by_integrator[case.integrator], cap_by_integrator[case.integrator]
        return min(k * case.motion_rate * case.horizon, cap) / case.mean_step

    return rule


# The rule chosen on the in-sample tolerances (docs/notes/baumgarte-adaptive-gains.md): CVODE keeps min(Ω, 0.3/h̄),
# ida_index1 takes ω·h̄ = 0.019·Ω·T, capped at adaptiveStiffnessCap (3).
IDA_RADIANS = 0.019


def rule_proposed(c):
    if c.integrator == "ida_index1":
        return radians_rule({"ida_index1": IDA_RADIANS}, {"ida_index1": STIFFNESS_CAP["ida_index1"]})(c)
    return rule_current(c)


RULES = {
    "current": rule_current,
    "proposed": rule_proposed,
    "omega": rule_omega,
    "inverse_step": rule_inverse_step,
}


def rule_named(name):
    """A rule by name: the fixed ones above, or a parameterized one as
    power:INTEGRATOR=c,b;... (e.g. power:cvode_bdf=1,0;cvode_adams=1,0;ida_index1=1,1),
    drift:INTEGRATOR=k,cap;... or radians:INTEGRATOR=c,cap;..."""
    if name in RULES:
        return RULES[name]
    kind, _, spec = name.partition(":")
    kinds = {"power": power_rule, "drift": drift_rule, "radians": radians_rule}
    if kind not in kinds or not spec:
        raise SystemExit("unknown rule %r (known: %s, power:..., drift:..., radians:...)" % (name, ", ".join(RULES)))
    first, second = {}, {}
    for part in spec.split(";"):
        integrator, _, values = part.partition("=")
        a, b = (float(x) for x in values.split(","))
        first[integrator], second[integrator] = a, b
    missing = [i for i in INTEGRATORS if i not in first]
    if missing:
        raise SystemExit("rule %r has no parameters for %s" % (name, ", ".join(missing)))
    return kinds[kind](first, second)


# ---------------------------------------------------------------------------------------------


class Evaluated:
    """A rule on a set of cases: per case its ω and placement."""

    def __init__(self, cases, smoothed, rule):
        self.items = []
        for c in cases:
            omega = rule(c)
            self.items.append((c, omega, place(smoothed[c.key()], omega)))

    def summary(self, integrator):
        mine = [(c, w, p) for c, w, p in self.items if c.integrator == integrator]
        losses = np.array([p.loss for _, _, p in mine])
        return {
            "cases": len(mine),
            "inside": sum(1 for _, _, p in mine if p.side == 0),
            "hits": sum(1 for _, _, p in mine if p.hit()),
            "mean_loss": float(losses.mean()) if len(mine) else math.nan,
            "worst_loss": float(losses.max()) if len(mine) else math.nan,
            "resolved_misses": sum(1 for _, _, p in mine if not p.hit() and p.loss > 2.0 * p.loss_error),
        }


def smooth_all(cases, args):
    return {c.key(): Smoothed(c, args.ensemble, args.smoothing, args.band) for c in cases}


def load_all(directories):
    cases = []
    for d in directories:
        cases.extend(load(d))
    return cases


def derived_columns(s, recommended_omega):
    """The columns of adaptive_best.csv that bestOf() and placeInBand() derive from the grid points:
    the smoothed best, the band, and the recommendation's placement."""
    p = place(s, recommended_omega)
    return {"smoothed_best_omega": s.best_omega, "band_low": s.band_low, "band_high": s.band_high,
            "ratio": p.ratio, "side": p.side, "outside_factor": p.outside_factor, "efficiency_loss": p.loss,
            "loss_error": p.loss_error}


def command_check(args):
    cases = load_all(args.dirs)
    bad = 0
    for c in cases:
        s = Smoothed(c, args.ensemble, args.smoothing, args.band)
        r = c.row
        expected = derived_columns(s, _number(r["recommended_omega"]))
        for column, value in expected.items():
            stored = _number(r[column])
            if not (stored == value or (math.isnan(stored) and math.isnan(value))):
                bad += 1
                print("MISMATCH %s %s: csv %r, recomputed %r" % (c.label(), column, stored, value))
    print("%d cases, %d columns compared, %d mismatches" % (len(cases), 8 * len(cases), bad))
    return 1 if bad else 0


def count_table(evaluations, integrators=INTEGRATORS):
    """evaluations: [(rule label, sample label, Evaluated)] → markdown rows."""
    lines = ["| integrator | rule | sample | inside the band | within ×2 of the band | mean loss | worst loss |"
             " resolved misses (loss > 2σ) |",
             "|---|---|---|---|---|---|---|---|"]
    for integrator in integrators:
        for rule_label, sample, ev in evaluations:
            s = ev.summary(integrator)
            if s["cases"] == 0:
                continue
            lines.append("| %s | %s | %s | %d of %d | %d of %d | %.2f | %.2f | %d |" % (
                integrator, rule_label, sample, s["inside"], s["cases"], s["hits"], s["cases"], s["mean_loss"],
                s["worst_loss"], s["resolved_misses"]))
    return lines


def sample_label(directory):
    return os.path.basename(os.path.normpath(directory))


def command_count(args):
    """Each directory is its own sample (in-sample, out-of-sample), each rule counted on each."""
    names = args.rule or list(RULES)
    evaluations = []
    for d in args.dirs:
        cases = load(d)
        smoothed = smooth_all(cases, args)
        for n in names:
            evaluations.append((n, sample_label(d), Evaluated(cases, smoothed, rule_named(n))))
    print("\n".join(count_table(evaluations)))
    return 0


def doc_table_places(path):
    """The "place" column of the measured-best table in docs/notes/baumgarte-adaptive-gains.md (the 3-member
    ensemble): {(model, integrator, tolerance): (place text, loss ± error text)}."""
    places = {}
    with open(path) as f:
        for line in f:
            cells = [x.strip() for x in line.strip().strip("|").split("|")]
            if len(cells) == 16 and cells[1] in INTEGRATORS:
                try:
                    tolerance = float(cells[2])
                except ValueError:
                    continue
                places[(cells[0], cells[1], tolerance)] = (cells[12], cells[13])
    return places


def command_compare(args):
    """The current rule on the new scan against the 3-member table of the doc, case by case."""
    previous = doc_table_places(args.doc)
    cases = load_all(args.dirs)
    smoothed = smooth_all(cases, args)
    lines = ["| case | 3-member place | loss ± error | 7-member place | loss ± error | σ |", "|---|---|---|---|---|---|"]
    changed = {"hit→hit": 0, "hit→miss": 0, "miss→hit": 0, "miss→miss": 0}
    for c in cases:
        p = place(smoothed[c.key()], rule_current(c))
        old = previous.get(c.key())
        if old is None:
            continue
        old_hit = old[0] == "in" or float(old[0].split("×")[1]) <= HIT_FACTOR
        changed["%s→%s" % ("hit" if old_hit else "miss", "hit" if p.hit() else "miss")] += 1
        where = "in" if p.side == 0 else ("%s ×%.2f" % ("below" if p.side < 0 else "above", p.outside_factor))
        lines.append("| %s | %s | %s | %s | %.2f ± %.2f | %.1f |" % (c.label(), old[0], old[1], where, p.loss,
                                                                  p.loss_error, p.loss / p.loss_error if p.loss_error else math.inf))
    print("\n".join(lines))
    print(", ".join("%s %d" % kv for kv in changed.items()))
    return 0


def fmt(x):
    return "%.3g" % x


def case_lines(ev, smoothed):
    lines = ["| case | Ω | h̄ | Ω·h̄ | band | ω | place | loss ± error | σ |", "|---|---|---|---|---|---|---|---|---|"]
    for c, omega, p in ev.items:
        band = smoothed[c.key()]
        s_place = "in" if p.side == 0 else ("%s ×%.2f" % ("below" if p.side < 0 else "above", p.outside_factor))
        sigma = p.loss / p.loss_error if p.loss_error > 0 else math.inf
        mark = "" if p.hit() else " **miss**"
        lines.append("| %s | %s | %s | %.3f | %s–%s | %s | %s%s | %.2f ± %.2f | %.1f |" % (
            c.label(), fmt(c.motion_rate), fmt(c.mean_step), c.motion_rate * c.mean_step,
            fmt(band.band_low), fmt(band.band_high), fmt(omega), s_place, mark, p.loss, p.loss_error,
            sigma))
    return lines


def command_cases(args):
    cases = load_all(args.dirs)
    smoothed = smooth_all(cases, args)
    for name in args.rule or ["current"]:
        print("rule %s" % name)
        print("\n".join(case_lines(Evaluated(cases, smoothed, rule_named(name)), smoothed)))
    return 0


# ---------------------------------------------------------------------------------------------
# Families, chosen on one sample and counted on another.


def hits(cases, smoothed, integrator, rule):
    n, total_loss = 0, 0.0
    for c in cases:
        if c.integrator != integrator:
            continue
        p = place(smoothed[c.key()], rule(c))
        n += p.hit()
        total_loss += p.loss
    return n, total_loss


def family_grid(integrator):
    """(label, rule) pairs of each family for one integrator."""
    out = []
    log_cs = np.round(np.arange(-2.0, 1.0001, 0.05), 2)
    # one parameter: c·Ω and c/h̄
    for lc in log_cs:
        k = 10.0 ** lc
        out.append(("c·Ω, c = %.3g" % k, power_rule({integrator: k}, {integrator: 0.0})))
        out.append(("c/h̄, c = %.3g" % k, power_rule({integrator: k}, {integrator: 1.0})))
    # two parameters: c·Ω·(Ω h̄)^(−b)
    for lc in log_cs:
        for b in np.round(np.arange(-1.0, 2.0001, 0.05), 2):
            out.append(("c·Ω·(Ωh̄)^(−b), c = %.3g, b = %.2f" % (10.0 ** lc, b),
                        power_rule({integrator: 10.0 ** lc}, {integrator: b})))
    # one parameter: ω·h̄ = c·Ω·T (capped at the integrator's stiffness cap)
    for lc in np.round(np.arange(-3.0, 0.0001, 0.01), 2):
        out.append(("c·ΩT/h̄, c = %.3g" % 10.0 ** lc,
                    radians_rule({integrator: 10.0 ** lc}, {integrator: STIFFNESS_CAP[integrator]})))
    # the drift rule: k and the cap
    for lk in np.arange(-4.0, 4.0001, 0.25):
        for cap in (0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 3.0):
            out.append(("drift, k = %.3g, cap = %.2g" % (10.0 ** lk, cap),
                        drift_rule({integrator: 10.0 ** lk}, {integrator: cap})))
    return out


def family_of(label):
    return label.split(",")[0]


def command_search(args):
    fit = load_all(args.fit)
    test = load_all(args.test) if args.test else []
    s_fit, s_test = smooth_all(fit, args), smooth_all(test, args)
    for integrator in INTEGRATORS:
        n_fit = sum(1 for c in fit if c.integrator == integrator)
        n_test = sum(1 for c in test if c.integrator == integrator)
        print("## %s (fit on %d cases, test on %d)" % (integrator, n_fit, n_test))
        base_fit = hits(fit, s_fit, integrator, rule_current)
        base_test = hits(test, s_test, integrator, rule_current) if test else (0, 0.0)
        print("current rule: fit %d (loss %.2f), test %d (loss %.2f)" % (base_fit[0], base_fit[1], base_test[0],
                                                                        base_test[1]))
        best = {}
        for label, rule in family_grid(integrator):
            n, loss = hits(fit, s_fit, integrator, rule)
            fam = family_of(label)
            # most hits on the fit sample; among equal hits, the least total loss
            if fam not in best or (n, -loss) > (best[fam][0], -best[fam][1]):
                best[fam] = (n, loss, label, rule)
        for fam, (n, loss, label, rule) in best.items():
            t = hits(test, s_test, integrator, rule) if test else (0, 0.0)
            print("best %-18s on fit: %-45s fit %d/%d (loss %.2f) -> test %d/%d (loss %.2f)" % (
                fam, label, n, n_fit, loss, t[0], n_test, t[1]))
    return 0


def where(p):
    return "in" if p.side == 0 else ("%s ×%.2f" % ("below" if p.side < 0 else "above", p.outside_factor))


def command_tables(args):
    """The per-case table of docs/notes/baumgarte-adaptive-gains.md: the first --rule (default current) and the
    second (default proposed) side by side, then the noise of the measurement."""
    cases = load_all(args.dirs)
    smoothed = smooth_all(cases, args)
    names = (args.rule or []) + ["current", "proposed"]
    first, second = rule_named(names[0]), rule_named(names[1] if len(names) > 1 and names[1] != names[0] else
                                                     names[2])
    lines = ["| model | integrator | tol | Ω | h̄ | Ω·T | scd, work at ω = 0 | smoothed best | band (within 0.1) | "
             "grid top | scd, work at best | today: ω | place | loss ± error | rule: ω | place | loss ± error | "
             "scatter | spread |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    scatter, spread = [], []
    for c in cases:
        s = smoothed[c.key()]
        w1, w2 = first(c), second(c)
        p1, p2 = place(s, w1), place(s, w2)
        scatter.append(_number(c.row["scatter"]))
        spread.append(_number(c.row["ensemble_spread"]))
        lines.append("| %s | %s | %g | %s | %s | %.1f | %.2f, %d | %s | %s–%s | %s | %.2f, %s | %s | %s | %.2f ± %.2f | "
                     "%s | %s | %.2f ± %.2f | %.2f | %.2f |" % (
                         c.model, c.integrator, c.tolerance, fmt(c.motion_rate), fmt(c.mean_step),
                         c.motion_rate * c.horizon, c.scd0, c.work0, fmt(s.best_omega), fmt(s.band_low),
                         fmt(s.band_high), fmt(s.omegas[-1]), _number(c.row["best_scd"]), c.row["best_work"], fmt(w1),
                         where(p1), p1.loss, p1.loss_error, fmt(w2), where(p2), p2.loss, p2.loss_error,
                         scatter[-1], spread[-1]))
    print("\n".join(lines))
    print()
    print("scatter about the smoothed curve near the top: %.2f–%.2f (median %.2f); one run's spread there: "
          "%.2f–%.2f (median %.2f); %d cases" % (min(scatter), max(scatter), float(np.median(scatter)), min(spread),
                                                 max(spread), float(np.median(spread)), len(cases)))
    return 0


def command_curve(args):
    """One scan's grid: ω, ω·h̄, efficiency ± spread, smoothed ± error, scd, work, max φ, failures."""
    for c in load_all(args.dirs):
        if args.case and not all(part in c.label().split() for part in args.case.split(",")):
            continue
        s = Smoothed(c, args.ensemble, args.smoothing, args.band)
        print("%s: Ω %.3g, h̄ %.3g, T %.3g, scd(0) %.2f, work(0) %d, max φ(0) %.2g; band %s–%s" % (
            c.label(), c.motion_rate, c.mean_step, c.horizon, c.scd0, c.work0, c.max_phi0, fmt(s.band_low),
            fmt(s.band_high)))
        print("%10s %7s %7s %5s %7s %5s %6s %6s %9s %5s" % ("omega", "w*h", "eff", "+-", "smooth", "+-", "scd", "work",
                                                          "max_phi", "etf"))
        for j, r in enumerate(c.runs):
            print("%10.4g %7.3f %7.3f %5.2f %7.3f %5.2f %6.2f %6s %9.2g %5s%s" % (
                c.omegas[j], c.omegas[j] * c.mean_step, c.efficiency[j], c.spread[j], s.efficiency[j], s.error[j],
                _number(r["scd"]), r["work"], _number(r["max_phi"]), r["error_test_failures"],
                " *" if s.band_low <= c.omegas[j] <= s.band_high else ""))
    return 0


def band_gap(a, b):
    """How far apart two bands are: 1 where they overlap, else the factor between the nearer ends."""
    if a.band_high >= b.band_low and b.band_high >= a.band_low:
        return 1.0
    return max(b.band_low / a.band_high, a.band_low / b.band_high)


def decade_of(model, integrator, tolerance):
    return (model, integrator, int(round(math.log10(tolerance))))


def decade_key(c):
    """Cases of two scans at tolerances a fraction of a decade apart are the same (model, integrator, decade)."""
    return decade_of(c.model, c.integrator, c.tolerance)


def by_decade(cases, directory):
    """{decade_key: case} of one scan; two cases of one decade cannot be told apart and are refused."""
    keyed = {}
    for c in cases:
        if decade_key(c) in keyed:
            raise SystemExit("%s: %s and %s are in the same decade" % (
                directory, keyed[decade_key(c)].label(), c.label()))
        keyed[decade_key(c)] = c
    return keyed


def command_retest(args):
    """Does the measurement reproduce itself? Two scans of the same cases at tolerances a fraction of
    a decade apart (no ensemble member shared): per case the two bands, the factor between them, and
    whether each scan's smoothed best lies within ×2 of the other's band; then, per integrator, how
    many cases reproduce and how the rules do on both."""
    if len(args.dirs) != 2:
        raise SystemExit("retest needs exactly two directories")
    first, second = (load(d) for d in args.dirs)
    s_first, s_second = smooth_all(first, args), smooth_all(second, args)
    partner = by_decade(second, args.dirs[1])
    names = args.rule or ["current"]
    rules = [rule_named(n) for n in names]
    lines = ["| case | band A | band B | gap | A's best in B (×2) | B's best in A (×2) | " +
             " | ".join("%s: A, B" % n for n in names) + " |",
             "|---|---|---|---|---|---|" + "---|" * len(names)]
    tally, unmatched = {}, []
    for a in first:
        b = partner.get(decade_key(a))
        if b is None:
            unmatched.append(a.label())
            continue
        sa, sb = s_first[a.key()], s_second[b.key()]
        a_in_b = place(sb, sa.best_omega).hit()
        b_in_a = place(sa, sb.best_omega).hit()
        cells = []
        # per rule: [hit on both scans, hit on both where the measurement reproduces]
        t = tally.setdefault(a.integrator, {"cases": 0, "reproduce": 0, "rules": [[0, 0] for _ in names]})
        t["cases"] += 1
        reproduces = a_in_b and b_in_a
        t["reproduce"] += reproduces
        for k, rule in enumerate(rules):
            ha, hb = place(sa, rule(a)).hit(), place(sb, rule(b)).hit()
            cells.append("%s, %s" % ("hit" if ha else "miss", "hit" if hb else "miss"))
            t["rules"][k][0] += ha and hb
            t["rules"][k][1] += reproduces and ha and hb
        lines.append("| %s | %s–%s | %s–%s | %.3g | %s | %s | %s |" % (
            a.label(), fmt(sa.band_low), fmt(sa.band_high), fmt(sb.band_low), fmt(sb.band_high), band_gap(sa, sb),
            "yes" if a_in_b else "no", "yes" if b_in_a else "no", " | ".join(cells)))
    print("\n".join(lines))
    print()
    print("| integrator | cases | measurement reproduces itself | " +
          " | ".join("%s: hit in both / of those that reproduce" % n for n in names) + " |")
    print("|---|---|---|" + "---|" * len(names))
    for integrator in INTEGRATORS:
        if integrator not in tally:
            continue
        t = tally[integrator]
        print("| %s | %d | %d | %s |" % (integrator, t["cases"], t["reproduce"], " | ".join(
            "%d / %d of %d" % (both, reproduced, t["reproduce"]) for both, reproduced in t["rules"])))
    if unmatched:
        print()
        print("no case at the same decade in %s for: %s" % (args.dirs[1], ", ".join(unmatched)))
    return 0


# ---------------------------------------------------------------------------------------------
# What no rule monotone in h̄ can do.


def hit_interval(s):
    """The gains that hit a case: its band widened by HIT_FACTOR each side (Placement.hit())."""
    return s.band_low / HIT_FACTOR, s.band_high * HIT_FACTOR


def monotone_hits(intervals, rising):
    """The largest set of `intervals` ([(low, high)], in order) that one sequence of gains can hit
    while never falling (rising = True) or never rising along that order: the indices, in order;
    ties go to the lexicographically first set. A dynamic programme over the gain reached so far:
    after hitting an interval the lowest gain the order allows is max(gain, low) (in the reversed
    order for a falling gain), so the gains worth tracking are the intervals' lows, and for each
    the most intervals (then the first set) that can end there."""
    order = list(range(len(intervals)))
    if not rising:
        order.reverse()
    states = {0.0: ()}  # gain reached -> best set (indices in the walk's order)
    for i in order:
        low, high = intervals[i]
        grown = dict(states)
        for gain, chosen in states.items():
            reached = max(gain, low)
            if reached > high:
                continue
            candidate = chosen + (i,)
            if reached not in grown or better_set(candidate, grown[reached]):
                grown[reached] = candidate
        states = grown
    best = ()
    for chosen in states.values():
        if better_set(chosen, best):
            best = chosen
    return tuple(sorted(best))


def better_set(a, b):
    """More intervals, then the lexicographically first set (in index order)."""
    if len(a) != len(b):
        return len(a) > len(b)
    return sorted(a) < sorted(b)


def least_worst_loss(smoothed_cases, scales, rising, per_decade=32):
    """The smallest worst loss (digits; place()'s loss, the curve interpolated in log ω) over the
    cases, in order, that one gain ω = scale·x can reach with x never falling (rising = True) or
    never rising along that order: a minimax over x = 10^(k/per_decade) spanning the scans' grids,
    by dynamic programming (for each x, the best worst loss of the cases so far with a gain that
    may precede x, carried to the next case)."""
    low = min(s.omegas[0] / k for s, k in zip(smoothed_cases, scales))
    high = max(s.omegas[-1] / k for s, k in zip(smoothed_cases, scales))
    grid = [10.0 ** (j / per_decade) for j in range(math.floor(math.log10(low) * per_decade),
                                                     math.ceil(math.log10(high) * per_decade) + 1)]
    carried = None
    for s, k in zip(smoothed_cases, scales):
        losses = [place(s, k * x).loss for x in grid]
        if carried is None:
            carried = losses
            continue
        order = range(len(grid)) if rising else range(len(grid) - 1, -1, -1)
        so_far, now = math.inf, [0.0] * len(grid)
        for j in order:
            so_far = min(so_far, carried[j])
            now[j] = max(losses[j], so_far)
        carried = now
    finite = [x for x in carried if not math.isnan(x)]
    return min(finite) if finite else math.nan


def command_monotone(args):
    """Every rule of §9 but the drift rule is ω = f(Ω, T, h̄(τ)) with f monotone in h̄, and Ω and T
    do not depend on τ (Ω to 0.3 %): for a given model and integrator such a rule is a gain
    monotone in h̄. Where the measured bands are not, no such rule can hit every tolerance,
    whatever its form and constants. Per (model, integrator), over the tolerances of all
    directories together, ordered by h̄ from the largest: the hit intervals, whether h̄ falls with
    τ (then the same holds for any gain monotone in τ), the most cases a gain rising as h̄ shrinks
    can hit and the most a falling one can, the smallest worst loss such a gain can reach, and
    (with --rule) what the named rules hit.

    --across-models: the rules made of Ω and h̄ alone are ω = Ω·f(Ω·h̄) (the only dimensionless
    combination), min(Ω, 0.3/h̄) among them. Per integrator, all cases together, ordered by Ω·h̄
    from the largest: the most cases any monotone f can hit (the intervals in units of Ω).
    Two cases at exactly the same Ω·h̄ (or h̄) would be taken as two points of f; none of §9's are.
    The least worst loss reads each curve as place() does (flat beyond the scan's ends) on a grid:
    an estimate of the bound, not the bound itself."""
    cases = load_all(args.dirs)
    smoothed = smooth_all(cases, args)
    names = args.rule or []
    rules = [rule_named(n) for n in names]
    groups = {}
    for c in cases:
        groups.setdefault(c.integrator if args.across_models else (c.model, c.integrator), []).append(c)
    what = "Ω·f(Ω·h̄), f monotone" if args.across_models else "a gain monotone in h̄"
    lines = ["| %s | premise | rising | falling | at most | least worst loss |" %
             ("integrator" if args.across_models else "model | integrator | τ: hit interval [rad/s]") +
             "".join(" %s: hits, worst loss |" % n for n in names),
             "|---|---|---|---|---|---|%s" % ("" if args.across_models else "---|---|") + "---|" * len(names)]
    totals, skipped = {}, []
    for key, group in groups.items():
        # The rule's own input, from the largest: Ω·h̄ across models, h̄ within one (loosest first
        # where h̄ falls with τ).
        group.sort(key=(lambda c: -c.motion_rate * c.mean_step) if args.across_models else (lambda c: -c.mean_step))
        usable = [c for c in group if math.isfinite(smoothed[c.key()].best_efficiency)]
        if not usable:
            skipped.append("%s (%d cases)" % (" ".join(key) if isinstance(key, tuple) else key, len(group)))
            continue
        scales = [c.motion_rate if args.across_models else 1.0 for c in usable]
        intervals = [tuple(x / k for x in hit_interval(smoothed[c.key()])) for c, k in zip(usable, scales)]
        if args.across_models:
            premise = "Ω·h̄ %.3g–%.3g" % (usable[-1].motion_rate * usable[-1].mean_step,
                                          usable[0].motion_rate * usable[0].mean_step)
        else:
            tolerances = [c.tolerance for c in usable]
            premise = ("h̄ falls with τ" if all(a > b for a, b in zip(tolerances, tolerances[1:]))
                       else "**h̄ not monotone in τ**")
        up, down = monotone_hits(intervals, True), monotone_hits(intervals, False)
        most = max(len(up), len(down))
        curves = [smoothed[c.key()] for c in usable]
        least = min(least_worst_loss(curves, scales, True), least_worst_loss(curves, scales, False))

        def described(chosen):
            missed = [usable[i] for i in range(len(usable)) if i not in chosen]
            def name(c):
                return "%s %g" % (c.model, c.tolerance) if args.across_models else "%g" % c.tolerance
            return "%d of %d%s" % (len(chosen), len(usable),
                                   "" if not missed else " (not %s)" % ", ".join(name(c) for c in missed))

        integrator = usable[0].integrator
        t = totals.setdefault(integrator, {"cases": 0, "most": 0, "rules": [0] * len(names)})
        t["cases"] += len(usable)
        t["most"] += most
        rule_cells = []
        for k, rule in enumerate(rules):
            placed = [place(smoothed[c.key()], rule(c)) for c in usable]
            n_hit = sum(p.hit() for p in placed)
            t["rules"][k] += n_hit
            rule_cells.append("%d of %d, %.2f" % (n_hit, len(usable), max(p.loss for p in placed)))
        if args.across_models:
            head = integrator
        else:
            cells = ["%g: %s–%s" % (c.tolerance, fmt(lo), fmt(hi)) for c, (lo, hi) in zip(usable, intervals)]
            if len(usable) < len(group):
                cells.append("%d without a best" % (len(group) - len(usable)))
            head = "%s | %s | %s" % (key[0], key[1], "; ".join(cells))
        lines.append("| %s | %s | %s | %s | %d of %d | %.2f |%s" % (
            head, premise, described(up), described(down), most, len(usable), least,
            "".join(" %s |" % x for x in rule_cells)))
    print("\n".join(lines))
    if skipped:
        print()
        print("no case with a finite best, left out: %s" % ", ".join(skipped))
    print()
    print("| integrator | cases | at most, for %s |" % what + "".join(" %s |" % n for n in names))
    print("|---|---|---|" + "---|" * len(names))
    for integrator in INTEGRATORS:
        if integrator in totals:
            t = totals[integrator]
            print("| %s | %d | %d |%s" % (integrator, t["cases"], t["most"], "".join(" %d |" % x for x in t["rules"])))
    return 0


# ---------------------------------------------------------------------------------------------
# What no recommendation can do: the ceiling several measurements of the same cases set.


def common_hit_interval(smoothed_cases):
    """The gains that hit every one of the cases' bands within ×HIT_FACTOR: (low, high), or None
    where no gain does."""
    low = max(hit_interval(s)[0] for s in smoothed_cases)
    high = min(hit_interval(s)[1] for s in smoothed_cases)
    return (low, high) if low <= high else None


def tuned_gains(directories):
    """{decade_key: ω} from kktdae-errdyn --adaptive-tuner-only's adaptive_tuned.csv: the tuner's
    gain, or the rule's where its scan gave none (tuned_used 0), as the user gets it."""
    gains = {}
    for d in directories:
        with open(os.path.join(d, "adaptive_tuned.csv"), newline="") as f:
            for r in csv.DictReader(f):
                key = decade_of(r["model"], r["integrator"], _number(r["tolerance"]))
                if key in gains:
                    raise SystemExit("%s: two tuned cases of %s %s in the decade 1e%d" % ((d,) + key))
                gains[key] = _number(r["tuned_omega"])
    return gains


def command_ceiling(args):
    """The target "within ×2 of the measured best" presumes the best is a property of the case. Given
    K measurements of the same cases (tolerances a fraction of a decade apart, matched by decade as
    retest does), a gain can hit a case on all of them only inside the intersection of their hit
    intervals; where that is empty, no recommendation — rule, tuner or oracle told the answer of one
    measurement — can be within ×2 of the best on every measurement. Per case: each band and the
    common interval (or the factor that separates the farthest bands); per integrator: the cases,
    those any gain can hit on all K (the ceiling), and what each rule (computed on each
    measurement's own case, as retest does) and each --tuned gain hits on all K."""
    if len(args.dirs) < 2:
        raise SystemExit("ceiling needs at least two directories")
    scans = [load(d) for d in args.dirs]
    smoothed = [smooth_all(cases, args) for cases in scans]
    partners = [by_decade(cases, d) for d, cases in zip(args.dirs, scans)]
    names = args.rule or []
    rules = [rule_named(n) for n in names]
    tuned = tuned_gains(args.tuned) if args.tuned else None
    columns = names + (["tuned"] if tuned is not None else [])
    lines = ["| case | " + " | ".join("band %s" % chr(ord("A") + k) for k in range(len(scans))) +
             " | any gain hits all within |" + "".join(" %s |" % n for n in columns),
             "|---|" + "---|" * (len(scans) + 1 + len(columns))]
    tally, unmatched, untuned = {}, [], []
    for first in scans[0]:
        group = [p.get(decade_key(first)) for p in partners]
        if any(c is None for c in group):
            unmatched.append(first.label())
            continue
        curves = [s[c.key()] for s, c in zip(smoothed, group)]
        if not all(math.isfinite(s.best_efficiency) for s in curves):
            unmatched.append(first.label() + " (no finite best)")
            continue
        common = common_hit_interval(curves)
        t = tally.setdefault(first.integrator, {"cases": 0, "ceiling": 0, "hits": [0] * len(columns)})
        t["cases"] += 1
        t["ceiling"] += common is not None
        cells = []
        for k, rule in enumerate(rules):
            on_all = all(place(s, rule(c)).hit() for s, c in zip(curves, group))
            t["hits"][k] += on_all
            cells.append("hit" if on_all else "miss")
        if tuned is not None:
            omega = tuned.get(decade_key(first))
            if omega is None:
                untuned.append(first.label())
                cells.append("–")
            else:
                on_all = all(place(s, omega).hit() for s in curves)
                t["hits"][-1] += on_all
                cells.append("%s (%s)" % ("hit" if on_all else "miss", fmt(omega)))
        if common is None:
            apart = max(a.band_low / b.band_high for a in curves for b in curves)
            where = "**none** (bands ×%.3g apart)" % apart
        else:
            where = "%s–%s" % (fmt(common[0]), fmt(common[1]))
        lines.append("| %s | %s | %s |%s" % (
            first.label(), " | ".join("%s–%s" % (fmt(s.band_low), fmt(s.band_high)) for s in curves), where,
            "".join(" %s |" % x for x in cells)))
    print("\n".join(lines))
    print()
    print("| integrator | cases | some gain hits all %d measurements |" % len(scans) +
          "".join(" %s hits all |" % n for n in columns))
    print("|---|---|---|" + "---|" * len(columns))
    for integrator in INTEGRATORS:
        if integrator in tally:
            t = tally[integrator]
            print("| %s | %d | %d |%s" % (integrator, t["cases"], t["ceiling"], "".join(" %d |" % h for h in t["hits"])))
    if unmatched:
        print()
        print("left out (not in every measurement, or without a best): %s" % ", ".join(unmatched))
    if untuned:
        print()
        print("no tuned gain for: %s" % ", ".join(untuned))
    return 0


# ---------------------------------------------------------------------------------------------
# Several measurements made one.

# The columns of adaptive_best.csv a pooled case keeps from the first scan (its measuring run and
# the rule's gain) and those it recomputes; every other column is stale for the pool and set to nan.
POOL_KEPT = ("model", "integrator", "tolerance", "unstabilized_scd", "unstabilized_work", "unstabilized_mean_step",
             "motion_rate", "recommended_omega")


def pooled_point(rows, ensemble):
    """One grid point from the same gain in several scans of `ensemble` members each: the mean of
    all members' efficiencies and their sample standard deviation (the scans' own spreads are
    sample standard deviations); −inf where any scan's point is."""
    efficiencies = [_number(r["efficiency"]) for r in rows]
    if not all(math.isfinite(e) for e in efficiencies):
        return -math.inf, 0.0
    n, k = ensemble, len(rows)
    mean = sum(efficiencies) / k
    within = sum((n - 1) * _number(r["efficiency_spread"]) ** 2 for r in rows)
    between = sum(n * (e - mean) ** 2 for e in efficiencies)
    return mean, math.sqrt((within + between) / (n * k - 1)) if n * k > 1 else 0.0


# A pooled grid point's own columns; its per-run ones (status, scd, work, counters) belong to no
# single run and are set to nan.
POOL_POINT = ("model", "integrator", "tolerance", "omega", "efficiency", "efficiency_spread")


def command_pool(args):
    """Writes to --out one scan from several of the same cases at tolerances a fraction of a decade
    apart (retest's pairs, matched by decade): each gain present in all of them gets the mean of
    all their members and the members' sample standard deviation (its other columns nan); the
    ω = 0 run is the first scan's (its counters feed the rules; its efficiency is its own 7
    members'); in adaptive_best.csv the first scan's measuring run and rule are kept, the best,
    band and placement columns recomputed from the pooled points (with --smoothing and --band as
    given here, so that `check OUT --ensemble N·K` holds with the same flags) and the rest nan
    (`tables` prints them so). Count it with --ensemble N·K (N the scans' ensemble, --ensemble
    here; K the number of scans). The pooled members are only as independent as the scans are."""
    if len(args.dirs) < 2 or not args.out:
        raise SystemExit("pool needs --out OUT and at least two directories")
    scans = [load(d) for d in args.dirs]
    partners = [by_decade(cases, d) for d, cases in zip(args.dirs[1:], scans[1:])]
    with open(os.path.join(args.dirs[0], "adaptive_gains.csv"), newline="") as f:
        gains_header = csv.DictReader(f).fieldnames
    with open(os.path.join(args.dirs[0], "adaptive_best.csv"), newline="") as f:
        best_header = csv.DictReader(f).fieldnames
    ensemble = args.ensemble * len(scans)
    gains_rows, best_rows, unmatched = [], [], []
    for first in scans[0]:
        group = [first] + [p.get(decade_key(first)) for p in partners]
        if any(c is None for c in group):
            unmatched.append(first.label())
            continue
        by_omega = [{o: r for o, r in zip(c.omegas, c.runs)} for c in group]
        runs = [dict(first.unstabilized)]
        for omega in first.omegas:
            if not all(omega in b for b in by_omega):
                continue  # a gain one scan's extension did not reach
            efficiency, spread = pooled_point([b[omega] for b in by_omega], args.ensemble)
            row = {name: by_omega[0][omega][name] if name in POOL_POINT else "nan" for name in gains_header}
            row["efficiency"], row["efficiency_spread"] = repr(efficiency), repr(spread)
            runs.append(row)
        best = {name: first.row[name] if name in POOL_KEPT else "nan" for name in best_header}
        smoothed = Smoothed(Case(best, runs), ensemble, args.smoothing, args.band)
        derived = derived_columns(smoothed, _number(best["recommended_omega"]))
        best.update({name: str(v) if name == "side" else repr(v) for name, v in derived.items()})
        gains_rows.extend(runs)
        best_rows.append(best)
    os.makedirs(args.out, exist_ok=True)
    write_whole(os.path.join(args.out, "adaptive_gains.csv"), gains_header, gains_rows)
    write_whole(os.path.join(args.out, "adaptive_best.csv"), best_header, best_rows)
    print("%d cases pooled from %d scans into %s: count it with --ensemble %d" % (
        len(best_rows), len(scans), args.out, ensemble))
    if unmatched:
        print("no case at the same decade in every scan for: %s" % ", ".join(unmatched))
    return 0


def write_whole(path, header, rows):
    """A temp file renamed over the target: the file is whole or absent."""
    temporary = path + ".tmp"
    with open(temporary, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header)
        w.writeheader()
        w.writerows(rows)
    os.replace(temporary, path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["check", "count", "cases", "search", "tables", "compare",
                                                        "curve", "retest", "monotone", "pool", "ceiling"])
    parser.add_argument("dirs", nargs="*", help="run directories (kktdae-errdyn --out DIR --adaptive)")
    parser.add_argument("--rule", action="append", help="a rule name (repeatable): %s, power:..., drift:..." %
                        ", ".join(RULES))
    parser.add_argument("--fit", nargs="+", default=[], help="search: the directories the rule is chosen on")
    parser.add_argument("--test", nargs="*", default=[], help="search: the directories it is counted on")
    parser.add_argument("--doc", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs",
                                                      "notes", "baumgarte-adaptive-gains.md"), help="compare: the page with the 3-member table")
    parser.add_argument("--case", help="curve: words of the case label, e.g. circle,cvode_bdf,1e-10")
    parser.add_argument("--ensemble", type=int, default=7, help="the scan's ensemble size (default 7)")
    parser.add_argument("--smoothing", type=int, default=2, help="smoothing_half_width (default 2)")
    parser.add_argument("--band", type=float, default=0.1, help="band_tolerance [digits] (default 0.1)")
    parser.add_argument("--out", help="pool: the directory the pooled scan is written to")
    parser.add_argument("--tuned", action="append", help="ceiling: a kktdae-errdyn --adaptive-tuner-only directory "
                        "(repeatable) whose gains are placed in every measurement")
    parser.add_argument("--across-models", action="store_true",
                        help="monotone: all models of an integrator together, as ω = Ω·f(Ω·h̄) with f monotone")
    args = parser.parse_args(argv)
    if args.command != "search" and not args.dirs:
        parser.error("%s needs at least one directory" % args.command)
    if args.command == "search" and not args.fit:
        parser.error("search needs --fit DIR")
    return {"check": command_check, "count": command_count, "cases": command_cases, "search": command_search,
            "tables": command_tables, "compare": command_compare, "curve": command_curve,
            "retest": command_retest, "monotone": command_monotone, "pool": command_pool,
            "ceiling": command_ceiling}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
