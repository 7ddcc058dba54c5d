#include "kktdae/integrators/fixed_steppers.hpp"

#include "euler_updates.hpp"
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

// The updates are plain loops over the coordinates (euler_updates.hpp for the two Euler methods):
// each entry gets the operations of the Eigen expressions they replace (x + c·y, the product
// first), so the bits are the same, without the dynamic-size expression setup that cost more than
// the arithmetic at small nq.

KktResult explicitEulerStep(AccelerationFunction&, State& state, double dt, ConstVectorRef qdd,
                            StepWorkspace&) {
  detail::explicitEulerUpdate(state.q.data(), state.v.data(), qdd.data(), state.q.size(), dt, detail::NoVisit{});
  state.t += dt;
  return {};
}

KktResult semiImplicitEulerStep(AccelerationFunction&, State& state, double dt, ConstVectorRef qdd,
                                StepWorkspace&) {
  detail::semiImplicitEulerUpdate(state.q.data(), state.v.data(), qdd.data(), state.q.size(), dt,
                                  detail::NoVisit{});
  state.t += dt;
  return {};
}

KktResult rk4Step(AccelerationFunction& f, State& state, double dt, ConstVectorRef qdd, StepWorkspace& ws) {
  // Stage derivatives: k_q = stage velocity, k_v = stage acceleration. The products are grouped
  // as seed 000 groups them ((0.5·dt)·k, (dt/6)·(k1 + 2k2 + 2k3 + k4)) to reproduce its bits.
  // The stage solves write into ws.stage_result, so that a step builds no KktResult per stage.
  const double half = 0.5 * dt;
  const double t = state.t;
  const Eigen::Index nq = state.q.size();
  double* q = state.q.data();
  double* v = state.v.data();
  const double* a1 = qdd.data();
  double* q_stage = ws.q_stage.data();
  double* v_stage = ws.v_stage.data();
  double* k2q = ws.q_next.data();  // the stage velocities, kept for the final combination
  double* k3q = ws.v_next.data();
  const double* a2 = ws.a2.data();
  const double* a3 = ws.a3.data();
  const double* a4 = ws.a4.data();
  KktResult& stage = ws.stage_result;
  // k1 = (v, qdd); stage 2 at (q + dt/2·v, v + dt/2·qdd).
  for (Eigen::Index i = 0; i < nq; ++i) {
    q_stage[i] = q[i] + half * v[i];
    v_stage[i] = v[i] + half * a1[i];
    k2q[i] = v_stage[i];
  }
  if (!f.evaluate(t + half, ws.q_stage, ws.v_stage, ws.a2, stage)) return withStageTime(stage, t + half);
  // Stage 3 at (q + dt/2·k2q, v + dt/2·k2v).
  for (Eigen::Index i = 0; i < nq; ++i) {
    q_stage[i] = q[i] + half * k2q[i];
    v_stage[i] = v[i] + half * a2[i];
    k3q[i] = v_stage[i];
  }
  if (!f.evaluate(t + half, ws.q_stage, ws.v_stage, ws.a3, stage)) return withStageTime(stage, t + half);
  // Stage 4 at (q + dt·k3q, v + dt·k3v).
  for (Eigen::Index i = 0; i < nq; ++i) {
    q_stage[i] = q[i] + dt * k3q[i];
    v_stage[i] = v[i] + dt * a3[i];  // k4q
  }
  if (!f.evaluate(t + dt, ws.q_stage, ws.v_stage, ws.a4, stage)) return withStageTime(stage, t + dt);

  const double sixth = dt / 6.0;
  for (Eigen::Index i = 0; i < nq; ++i) {
    const double q_rate = ((v[i] + 2.0 * k2q[i]) + 2.0 * k3q[i]) + v_stage[i];
    const double v_rate = ((a1[i] + 2.0 * a2[i]) + 2.0 * a3[i]) + a4[i];
    q[i] += sixth * q_rate;
    v[i] += sixth * v_rate;
  }
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
