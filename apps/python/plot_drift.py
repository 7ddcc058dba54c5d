#!/usr/bin/env python3
"""The chapter's rerun panels with matplotlib: constraint violation and energy of the double
pendulum without and with Baumgarte stabilization, from kktdae's in-C++ recording.

    python3 apps/python/plot_drift.py --out outputs/python-plots [--steps 4000] [--every 4]

Writes violation.png and energy.png (needs python3-matplotlib).
"""
import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import kktdae  # noqa: E402

COLORS = {"none": "#d94c40", "baumgarte": "#4caf50"}  # the chapter's red drifts, green holds


def run(chain, state, stabilization, steps, every):
    options = kktdae.SimulationOptions(dt=0.005, steps=steps, observe_every=every, stabilization=stabilization)
    return kktdae.simulate(chain, state, options).raise_on_failure().recording


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("outputs/python-plots"))
    parser.add_argument("--steps", type=int, default=4000)
    parser.add_argument("--every", type=int, default=4, help="record every k-th step")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    chain = kktdae.PendulumChain(2)
    state = chain.initial_state(np.random.default_rng(args.seed).uniform(-0.05, 0.05))
    runs = {"none": run(chain, state, kktdae.Stabilization.none(), args.steps, args.every),
            "baumgarte": run(chain, state, kktdae.Stabilization.critical(20.0), args.steps, args.every)}

    figure, axes = plt.subplots(figsize=(7, 4))
    for name, rec in runs.items():
        axes.semilogy(rec.t, np.maximum(rec.violation, 1e-16), color=COLORS[name], label=name)
    axes.set(xlabel="t [s]", ylabel="‖φ‖∞ = max ½| |d|² − L² |  [m²]", title="constraint violation")
    axes.legend()
    figure.tight_layout()
    figure.savefig(args.out / "violation.png", dpi=120)

    figure, axes = plt.subplots(figsize=(7, 4))
    scale = chain.energy_scale()
    for name, rec in runs.items():
        axes.plot(rec.t, (rec.energy - rec.energy[0]) / scale, color=COLORS[name], label=name)
    axes.set(xlabel="t [s]", ylabel="(E − E₀) / (Σm g ΣL)", title="energy drift")
    axes.legend()
    figure.tight_layout()
    figure.savefig(args.out / "energy.png", dpi=120)
    for name, rec in runs.items():
        print(f"{name:<10} max ‖φ‖∞ {np.max(rec.violation):.3e} m²   max |ΔE|/scale "
              f"{np.max(np.abs(rec.energy - rec.energy[0])) / scale:.3e}   ({len(rec)} states)")
    print(f"plots: {args.out / 'violation.png'}, {args.out / 'energy.png'}")


if __name__ == "__main__":
    main()
