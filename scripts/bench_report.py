#!/usr/bin/env python3
"""Writes docs/performance.md and docs/performance_steps.png from a full run of scripts/bench.sh.

Reads, from --results (outputs/bench by default):
  benchmarks.json        Google Benchmark's JSON (repetitions, aggregates only)
  accuracy_N*.json       kktdae-bench-accuracy's output, one file per chain size
  sanity.txt             the benchmark's once-printed MuJoCo model check (optional)
Every number in the page comes from these files; medians of the repetitions throughout.
Python 3 standard library only; the plot needs gnuplot (gnuplot-nox).
"""

import argparse
import datetime
import glob
import json
import math
import os
import re
import subprocess
import sys
import tempfile

STEP_SERIES = [  # (benchmark series, label in tables and plot)
    ("step/semi_implicit/schur/dense", "kktdae semi-implicit"),
    ("step/explicit_euler/schur/dense", "kktdae explicit Euler"),
    ("step/rk4/schur/dense", "kktdae RK4"),
    ("mujoco_step/joint", "MuJoCo joint coords"),
    ("mujoco_step/maximal", "MuJoCo maximal coords"),
]
HEADLINE_OURS = "step/semi_implicit/schur/dense"
HEADLINE_MUJOCO = "mujoco_step/joint"


def load_medians(path):
    """{series: {N: (median CPU µs, cv, repetitions)}}, the run's context and {benchmark: error}."""
    with open(path) as f:
        doc = json.load(f)
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
    medians, cvs, errors = {}, {}, {}
    for b in doc["benchmarks"]:
        if b.get("error_occurred"):
            errors[b.get("run_name", b["name"])] = b.get("error_message", "error")
            continue
        if b.get("run_type") != "aggregate":
            continue
        series, _, n = b["run_name"].rpartition("/N:")
        key = (series, int(n))
        if b["aggregate_name"] == "median":
            medians[key] = (b["cpu_time"] * scale[b["time_unit"]], b.get("repetitions", 0))
        elif b["aggregate_name"] == "cv":
            cvs[key] = b["cpu_time"]  # Google Benchmark stores the coefficient of variation as a fraction
    table = {}
    for (series, n), (value, reps) in medians.items():
        table.setdefault(series, {})[n] = (value, cvs.get((series, n)), reps)
    return table, doc.get("context", {}), errors


def slope(points):
    """Least-squares slope of log t against log N, or None with fewer than two points."""
    pts = [(math.log(n), math.log(t)) for n, t in points if t > 0]
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sxx if sxx > 0 else None


def fmt_time(us):
    if us is None:
        return "–"
    if us >= 1000:
        return f"{us / 1000:.3g} ms"
    return f"{us:.3g} µs"


def fmt_ratio(a, b):
    if a is None or b is None or b == 0:
        return "–"
    return f"{a / b:.3g}×"


def value(table, series, n):
    entry = table.get(series, {}).get(n)
    return entry[0] if entry else None


def machine_description(context):
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        nproc = subprocess.run(["nproc"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        nproc = str(os.cpu_count())
    caches = ", ".join(
        f"L{c['level']} {c['type'].lower()} {c['size'] // 1024} KiB" for c in context.get("caches", [])
    )
    load = context.get("load_avg")
    lines = [
        f"- CPU: {model}, `nproc` = {nproc} (Google Benchmark: {context.get('num_cpus', '?')} CPUs at "
        f"{context.get('mhz_per_cpu', '?')} MHz; caches {caches or 'unknown'})",
        f"- Run: {context.get('date', '?')}, load average at start "
        f"{', '.join(f'{x:.2f}' for x in load) if load else 'unknown'}",
        f"- kktdae built Release (-O3 -DNDEBUG, no -march=native); Google Benchmark library build type: "
        f"`{context.get('library_build_type', '?')}` (Debian's package; it times our code, it is not timed)",
    ]
    return lines


def series_table(table, sizes, columns, extra=None):
    """Markdown table: N, then one median column per (series, label), then extra (label, fn(N))."""
    head = ["N"] + [label for _, label in columns] + [label for label, _ in (extra or [])]
    rows = ["| " + " | ".join(head) + " |", "|" + "---:|" * len(head)]
    for n in sizes:
        cells = [str(n)] + [fmt_time(value(table, s, n)) for s, _ in columns]
        cells += [fn(n) for _, fn in (extra or [])]
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def slope_rows(table, names):
    rows = ["| series | slope, all N | slope, N ≥ 20 |", "|---|---:|---:|"]
    for series, label in names:
        pts = sorted((n, v[0]) for n, v in table.get(series, {}).items())
        s_all = slope(pts)
        s_tail = slope([(n, t) for n, t in pts if n >= 20])
        rows.append(
            f"| {label} (`{series}`) | {'–' if s_all is None else f'{s_all:.2f}'} | "
            f"{'–' if s_tail is None else f'{s_tail:.2f}'} |"
        )
    return rows


def plot(table, sizes, png_path):
    """Log–log time per step against N with gnuplot; returns False if gnuplot is missing."""
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "steps.dat")
        with open(data, "w") as f:
            for series, label in STEP_SERIES:
                f.write(f'# "{label}"\n')
                for n in sizes:
                    v = value(table, series, n)
                    if v is not None:
                        f.write(f"{n} {v}\n")
                f.write("\n\n")
        plots = ", ".join(
            f"'{data}' index {i} using 1:2 with linespoints lw 2 pt 7 title '{label}'"
            for i, (_, label) in enumerate(STEP_SERIES)
        )
        script = (
            "set terminal pngcairo size 1000,650 enhanced font 'DejaVu Sans,11'\n"
            f"set output '{png_path}.tmp'\n"
            "set logscale xy\nset grid\nset key top left\n"
            "set xlabel 'links N'\nset ylabel 'CPU time per step [µs] (median of 5)'\nset xrange [1.5:300]\n"
            "set title 'One step of an N-link pendulum chain (dt = 0.005 s)'\n"
            f"plot {plots}\n"
        )
        try:
            subprocess.run(["gnuplot"], input=script, text=True, check=True)
        except (OSError, subprocess.CalledProcessError) as error:
            print(f"bench_report: no plot ({error})", file=sys.stderr)
            return False
    os.replace(png_path + ".tmp", png_path)
    return True


def accuracy_section(results_dir):
    files = sorted(glob.glob(os.path.join(results_dir, "accuracy_N*.json")),
                   key=lambda p: int(re.search(r"N(\d+)", p).group(1)))
    if not files:
        return ["(no accuracy results)"]
    rows = [
        "| N | kktdae max rel. link error | status | MuJoCo max rel. link error (same steps) | "
        "MuJoCo, all steps | MuJoCo / kktdae |",
        "|---:|---:|---|---:|---:|---:|",
    ]
    for path in files:
        with open(path) as f:
            doc = json.load(f)
        ours, theirs = doc["kktdae"], doc["mujoco_maximal"]
        status = "all steps" if ours["status"] == "success" else f"stopped after step {ours['steps_completed']}"
        ratio = doc.get("ratio_mujoco_over_kktdae")
        rows.append(
            f"| {doc['links']} | {ours['max_rel_link_error']:.2e} | {status} | "
            f"{theirs['max_rel_link_error_over_kktdae_steps']:.2e} | {theirs['max_rel_link_error']:.2e} | "
            f"{'–' if ratio is None else f'{ratio:.2e}'} |"
        )
    notes = []
    for path in files:
        with open(path) as f:
            doc = json.load(f)
        if doc["kktdae"]["status"] != "success":
            notes.append(f"- N = {doc['links']}: our run {doc['kktdae']['status']} "
                         f"(largest projection move {doc['kktdae']['max_position_correction']:.3g} m).")
    return rows + ([""] + notes if notes else [])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", default="outputs/bench")
    parser.add_argument("--docs", default="docs")
    args = parser.parse_args()

    table, context, errors = load_medians(os.path.join(args.results, "benchmarks.json"))
    sizes = sorted({n for series in table.values() for n in series})
    reps = max((v[2] for series in table.values() for v in series.values()), default=0)

    ours2 = table.get(HEADLINE_OURS, {}).get(2)
    mj2 = table.get(HEADLINE_MUJOCO, {}).get(2)
    mj100 = value(table, HEADLINE_MUJOCO, 100)

    def cv(entry):
        return f"{100 * entry[1]:.1f} %" if entry and entry[1] is not None else "–"

    md = ["# Performance", ""]
    md += [
        "Generated by `scripts/bench_report.py` from one run of `scripts/bench.sh` (do not edit by hand; "
        "rerun the script). Every time is the **median of "
        f"{reps} repetitions** (Google Benchmark, repetitions randomly interleaved, ≥ 0.1 s each) of the "
        "CPU time of the one benchmark thread: on this shared machine wall time also counts the waits "
        "for a core. The chains are seed 000's: N unit links of 1 kg point masses, launched at "
        "rest along a line tilted by the seed-0 draw (0.0137 rad) below the horizontal; every step "
        "benchmark restarts from there every 200 steps (the first second of the swing).",
        "",
        "## Machine",
        "",
    ]
    md += machine_description(context)
    md += [
        "",
        "The machine is shared (2 cores, other builds may run): the coefficients of variation below say "
        "how steady each number was.",
        "",
        "## Headline: the double pendulum, one step",
        "",
        "| | median | cv |",
        "|---|---:|---:|",
        f"| kktdae, semi-implicit Euler, Schur form, N = 2 (`{HEADLINE_OURS}/N:2`) | "
        f"{fmt_time(ours2[0] if ours2 else None)} | {cv(ours2)} |",
        f"| MuJoCo {context.get('mujoco_version', '2.2.2')}, joint coordinates, Euler, N = 2 "
        f"(`{HEADLINE_MUJOCO}/N:2`) | {fmt_time(mj2[0] if mj2 else None)} | {cv(mj2)} |",
        f"| **ratio kktdae / MuJoCo** | **{fmt_ratio(ours2[0] if ours2 else None, mj2[0] if mj2 else None)}** | |",
        f"| MuJoCo joint coordinates, N = 100 | {fmt_time(mj100)} | "
        f"{cv(table.get(HEADLINE_MUJOCO, {}).get(100))} |",
        "",
        "Both measured side by side in the same run. They are not the same computation: MuJoCo's "
        "joint chain has N coordinates and no constraints (a serial chain's joint-space mass matrix is "
        "dense, N×N); ours has 3N coordinates and N constraints solved through "
        "J M⁻¹ Jᵀ each step, with a condition estimate on every solve (the library default). "
        "MuJoCo's maximal-coordinate chain (2N coordinates, N tendon equality constraints) is the "
        "like-for-like formulation.",
        "",
        "## One step of each integrator against N",
        "",
        "![time per step against N](performance_steps.png)",
        "",
    ]
    md += series_table(
        table, sizes, STEP_SERIES,
        extra=[
            ("semi-implicit / MuJoCo joint",
             lambda n: fmt_ratio(value(table, HEADLINE_OURS, n), value(table, "mujoco_step/joint", n))),
            ("semi-implicit / MuJoCo maximal",
             lambda n: fmt_ratio(value(table, HEADLINE_OURS, n), value(table, "mujoco_step/maximal", n))),
            ("MuJoCo maximal per link",
             lambda n: fmt_time(value(table, "mujoco_step/maximal", n) / n)
             if value(table, "mujoco_step/maximal", n) else "–"),
        ],
    )
    md += [
        "",
        "kktdae: the KKT solve at the current state plus the step (RK4: three more solves inside), Schur "
        "form, dense path, no stabilization. MuJoCo: `mj_step` with the Euler integrator (semi-implicit, "
        "like ours), dt = 0.005 s, default solver settings, no contacts.",
        "",
        "## The KKT solve alone",
        "",
    ]
    md += series_table(
        table, sizes, [("kkt_solve/schur/dense", "Schur"), ("kkt_solve/block/dense", "block")],
        extra=[("block / Schur",
                lambda n: fmt_ratio(value(table, "kkt_solve/block/dense", n), value(table, "kkt_solve/schur/dense", n)))],
    )
    md += [
        "",
        "`solveAccelerations` at the launch state, model evaluation included, dense path.",
        "",
        "## Hand-written vs data-built vs automatic derivatives",
        "",
        "Constraint terms alone (φ, J, γ):",
        "",
    ]
    models = [("pendulum_chain", "PendulumChain (by hand)"), ("particle_system", "ParticleSystem twin"),
              ("ad_chain", "AutoDiffConstraints chain")]
    md += series_table(
        table, sizes, [(f"model_terms/{m}", label) for m, label in models],
        extra=[("AD / hand", lambda n: fmt_ratio(value(table, "model_terms/ad_chain", n),
                                                 value(table, "model_terms/pendulum_chain", n)))],
    )
    md += ["", "A whole semi-implicit Schur step:", ""]
    md += series_table(
        table, sizes, [(f"model_step/{m}/semi_implicit/schur/dense", label) for m, label in models],
        extra=[("AD / hand", lambda n: fmt_ratio(value(table, "model_step/ad_chain/semi_implicit/schur/dense", n),
                                                 value(table, "model_step/pendulum_chain/semi_implicit/schur/dense", n)))],
    )
    md += ["", "## How time grows with N", "",
           "Least-squares slopes of log(time) against log(N) (1 = linear, 3 = cubic):", ""]
    md += slope_rows(table, STEP_SERIES + [
        ("kkt_solve/schur/dense", "KKT solve, Schur"), ("kkt_solve/block/dense", "KKT solve, block"),
        ("model_terms/pendulum_chain", "terms, by hand"), ("model_terms/ad_chain", "terms, AD"),
    ])
    if errors:
        md += ["", "Benchmarks that stopped with an error (their cells show –):", ""]
        md += [f"- `{name}`: {message}" for name, message in sorted(errors.items())]
    md += [
        "",
        "## Holding the links: kktdae (projection) vs MuJoCo (soft constraints)",
        "",
        "`kktdae-bench-accuracy`: our chain (semi-implicit Euler, Schur, projection onto φ = 0 after every "
        "step, tolerance 1e-12) against MuJoCo's maximal-coordinate chain (tendon equality constraints "
        "with the default solref (0.02, 1) and solimp (0.9, 0.95, 0.001, 0.5, 2), Euler), 1000 steps of "
        "0.005 s from the same launch state. Error: max over the run and the links of "
        "| |d_k| − L_k | / L_k. The ratio compares both over the steps our run completed.",
        "",
    ]
    md += accuracy_section(args.results)
    sanity = os.path.join(args.results, "sanity.txt")
    if os.path.exists(sanity):
        with open(sanity) as f:
            checks = [line.rstrip() for line in f if line.startswith("[sanity]")]
        if checks:
            md += ["", "## The MuJoCo models are our chains", "", "Printed once by `kktdae-bench` before timing:", "",
                   "```"] + checks + ["```"]
    md += [
        "",
        "## Reproduce",
        "",
        "```sh",
        "scripts/bench.sh           # full run: this page and the plot (about 3–5 minutes)",
        "scripts/bench.sh --smoke   # every benchmark once, briefly (CI)",
        "```",
        "",
        f"_Written {datetime.date.today().isoformat()} from `{args.results}/`._",
        "",
    ]

    os.makedirs(args.docs, exist_ok=True)
    plot(table, sizes, os.path.join(args.docs, "performance_steps.png"))
    with open(os.path.join(args.docs, "performance.md"), "w") as f:
        f.write("\n".join(md))
    print(f"bench_report: wrote {os.path.join(args.docs, 'performance.md')}")


if __name__ == "__main__":
    main()
