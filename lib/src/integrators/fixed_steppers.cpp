#include "kktdae/integrators/fixed_steppers.hpp"

#include "kktdae/core/checks.hpp"

namespace kktdae {
namespace {

/// A failed stage's result, its message saying at which stage time it failed.
KktResult withStageTime(KktResult result, double stage_time) {
  result.message = "at stage time " + formatDouble(stage_time) + " s: " + result.message;
  return result;
}

}  // namespace

StepWorkspace::StepWorkspace(int nq)
    : q_stage(Vector::Zero(nq)),
      v_stage(Vector::Zero(nq)),
      a2(Vector::Zero(nq)),
      a3(Vector::Zero(nq)),
      a4(Vector::Zero(nq)),
      q_next(Vector::Zero(nq)),
      v_next(Vector::Zero(nq)) {}

KktResult explicitEulerStep(AccelerationFunction&, State& state, double dt, ConstVectorRef qdd,
                            StepWorkspace&) {
  state.q += dt * state.v;
  state.v += dt * qdd;
  state.t += dt;
  return {};
}

KktResult semiImplicitEulerStep(AccelerationFunction&, State& state, double dt, ConstVectorRef qdd,
                                StepWorkspace&) {
  state.v += dt * qdd;
  state.q += dt * state.v;  // the new velocity: the symplectic-Euler ordering
  state.t += dt;
  return {};
}

KktResult rk4Step(AccelerationFunction& f, State& state, double dt, ConstVectorRef qdd, StepWorkspace& ws) {
  // Stage derivatives: k_q = stage velocity, k_v = stage acceleration. The products are grouped
  // as seed 000 groups them ((0.5·dt)·k, (dt/6)·(k1 + 2k2 + 2k3 + k4)) to reproduce its bits.
  const double half = 0.5 * dt;
  const double t = state.t;
  // k1 = (v, qdd); stage 2 at (q + dt/2·v, v + dt/2·qdd).
  ws.q_stage = state.q + half * state.v;
  ws.v_stage = state.v + half * qdd;
  Vector& k2q = ws.q_next;  // the stage velocities, kept for the final combination
  Vector& k3q = ws.v_next;
  k2q = ws.v_stage;
  if (auto r = f.evaluate(t + half, ws.q_stage, ws.v_stage, ws.a2); !r.ok()) return withStageTime(r, t + half);
  // Stage 3 at (q + dt/2·k2q, v + dt/2·k2v).
  ws.q_stage = state.q + half * k2q;
  ws.v_stage = state.v + half * ws.a2;
  k3q = ws.v_stage;
  if (auto r = f.evaluate(t + half, ws.q_stage, ws.v_stage, ws.a3); !r.ok()) return withStageTime(r, t + half);
  // Stage 4 at (q + dt·k3q, v + dt·k3v).
  ws.q_stage = state.q + dt * k3q;
  ws.v_stage = state.v + dt * ws.a3;  // k4q
  if (auto r = f.evaluate(t + dt, ws.q_stage, ws.v_stage, ws.a4); !r.ok()) return withStageTime(r, t + dt);

  const double sixth = dt / 6.0;
  state.q += sixth * (((state.v + 2.0 * k2q) + 2.0 * k3q) + ws.v_stage);
  state.v += sixth * (((qdd + 2.0 * ws.a2) + 2.0 * ws.a3) + ws.a4);
  state.t = t + dt;
  return {};
}

FixedStepFunction fixedStepFunction(Integrator integrator) {
  switch (integrator) {
    case Integrator::ExplicitEuler: return &explicitEulerStep;
    case Integrator::SemiImplicitEuler: return &semiImplicitEulerStep;
    case Integrator::Rk4: return &rk4Step;
    default: break;
  }
  throwInvalid("integrator", std::string(toString(integrator)) + " is not a fixed-step integrator");
}

}  // namespace kktdae
