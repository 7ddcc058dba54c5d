"""The recorded λ is the physical multiplier of each recorded state (the KKT solve there without
Baumgarte feedback), unless the run asks for the integrator's own."""
import numpy as np

import kktdae


def baumgarte_run(chain, state, choice):
    options = kktdae.SimulationOptions(dt=0.005, steps=40, stabilization=kktdae.Stabilization.critical(40.0),
                                       observed_multiplier=choice)
    return kktdae.simulate(chain, state, options)


def test_recorded_lambda_is_the_feedback_free_kkt_solve_at_each_state(chain, state):
    result = baumgarte_run(chain, state, kktdae.ObservedMultiplier.PHYSICAL)
    assert result.summary.ok
    rec = result.recording
    worst_physical = worst_own = 0.0
    own = baumgarte_run(chain, state, kktdae.ObservedMultiplier.METHOD).recording
    for k in range(len(rec)):
        solved = kktdae.solve_kkt(chain, rec.q[k], rec.v[k], t=rec.t[k])
        worst_physical = max(worst_physical, np.max(np.abs(rec.lam[k] - solved.lam)))
        worst_own = max(worst_own, np.max(np.abs(own.lam[k] - solved.lam)))
    assert worst_physical <= 1e-12 * (1.0 + np.max(np.abs(rec.lam)))
    # The feedback's share 2αφ̇ + β²φ is in the method's own λ: visibly not the physical one.
    assert worst_own > 1e3 * worst_physical + 1e-12
    assert result.summary.observation_kkt_solves > 0
