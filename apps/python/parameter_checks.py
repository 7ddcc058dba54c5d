"""The parameters the shipped models declare, checked (docs/sensitivities.md, "Models that declare
parameters"): checkParameterDerivatives at three steps (the errors fall as step² when the
derivatives are right), then forward sensitivities against central differences over a 1 s run
(2 s for the slider-crank), ida_ggl, rtol = atol = 1e-9, G the kinetic energy.
Run: PYTHONPATH=build/release/python /usr/bin/python3 apps/python/parameter_checks.py
"""
import numpy as np

import kktdae

rng = np.random.default_rng(45)
def check(name, model, q0, t=0.0):
    n = model.nq()
    for step in (1e-3, 1e-4, 1e-5):
        q = q0 + 0.05 * rng.standard_normal(n)
        v, a, dq, dv = (rng.standard_normal(n) for _ in range(4))
        c = model.check_parameter_derivatives(q, v, a, t, dq, dv, step)
        print(f"{name:22s} step {step:.0e}: D {c.dynamics_parameter_error:.1e}  tangent {c.tangent_error:.1e}")
ssc = kktdae.SpringSliderCrank(); check("spring_slider_crank", ssc, ssc.initial_state().q)
chain = kktdae.PendulumChain(kktdae.PendulumChainParams(masses=[1.0, 1.5, 0.7], lengths=[0.6, 0.5, 0.4]))
check("pendulum_chain(3)", chain, chain.initial_state(0.4).q)
sc = kktdae.SpringChain(kktdae.SpringChainParams(chain=kktdae.PendulumChainParams(masses=[1.0, 1.5, 0.7], lengths=[0.6, 0.5, 0.4]), joint_stiffness=8.0, joint_damping=0.3))
check("spring_chain(3)", sc, sc.initial_state(0.4).q)
b = kktdae.MechanismBuilder("planar_pendulum")
b.set_gravity([0.0, -9.81, 0.0])
up = b.add_planar_body("upper", 1.2, 0.08, 0.25, 0.0, 0.0)
lo = b.add_planar_body("lower", 0.8, 0.05, 0.7, 0.0, 0.0)
b.add_joint("shoulder", "revolute", kktdae.GROUND, kktdae.Frame.planar(0.0, 0.0), up, kktdae.Frame.planar(-0.25, 0.0))
el = b.add_joint("elbow", "revolute", up, kktdae.Frame.planar(0.25, 0.0), lo, kktdae.Frame.planar(-0.2, 0.0))
b.add_spring("strut", kktdae.GROUND, [0.5, 0.4, 0.0], lo, [0.1, 0.0, 0.0], 15.0, 0.4, 0.5)
b.add_rotational_spring("elbow_spring", el, 3.0, 0.2, 0.1, 0.5)
mech = b.build()
pm = kktdae.ParametricMechanism(mech)
check("planar mechanism (13 p)", pm, mech.built_configuration(), 0.3)

def compare(name, model, start, end=1.0, rtol=1e-9, step=0.0):
    o = kktdae.SimulationOptions(integrator="ida_ggl", dt=end, end_time=end)
    o.adaptive.rtol = o.adaptive.atol = rtol
    f = kktdae.compute_sensitivities(model, start, o, kktdae.SensitivityOptions(integrand="kinetic_energy"))
    d = kktdae.compute_sensitivities(model, start, o, kktdae.SensitivityOptions(method="fd", integrand="kinetic_energy", difference_step=step))
    nq = model.nq()
    sf, sd = f.sensitivities[-1, :2*nq], d.sensitivities[-1, :2*nq]
    print(f"{name:22s} np {model.np()}: |s| max {np.abs(sf).max():.2g}, |s_fwd - s_fd| max {np.abs(sf-sd).max():.1e}, |dG fwd - fd| max {np.abs(f.cost_gradient-d.cost_gradient).max():.1e}; forward {f.summary.wall_seconds*1e3:.1f} ms ({f.summary.steps} steps), fd {d.summary.wall_seconds*1e3:.1f} ms ({d.summary.runs} runs)")
compare("spring_slider_crank", ssc, ssc.initial_state(), 2.0)
compare("pendulum_chain(3)", chain, chain.initial_state(0.4))
compare("spring_chain(3)", sc, sc.initial_state(0.4))
sel = kktdae.ParametricMechanism(mech, ["upper.mass", "lower.inertia", "gravity.y", "strut.stiffness", "strut.damping", "elbow_spring.torque"])
compare("planar mechanism (6 p)", sel, kktdae.State(mech.built_configuration()), 1.0, 1e-9, 1e-4)
compare("planar mechanism, default fd step", sel, kktdae.State(mech.built_configuration()), 1.0, 1e-9, 0.0)
