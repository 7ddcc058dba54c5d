#pragma once
/// @file
/// The fixed-step integrators over (q, q̇), exactly as seed 000 defines them. Each is a small
/// stateless function with one signature: it receives q̈ already evaluated at the current state
/// (the driver needs λ there anyway), advances `state` by dt, and reports the first failed
/// KKT solve of an inner stage, if any, leaving `state` untouched in that case.

#include "kktdae/core/state.hpp"
#include "kktdae/integrators/acceleration_function.hpp"
#include "kktdae/integrators/integrator.hpp"

namespace kktdae {

/// Buffers for the stages of a step, sized once for nq.
struct StepWorkspace {
  /// Sizes every buffer to nq.
  explicit StepWorkspace(int nq);
  ///@{
  /// The steppers' buffers, each of size nq: a stage's q and q̇, RK4's stage accelerations 2–4,
  /// and the next q and q̇ (RK4 keeps two stage velocities in q_next and v_next instead).
  Vector q_stage, v_stage, a2, a3, a4, q_next, v_next;
  ///@}
  /// The outcome of the last inner stage's KKT solve (RK4), reused from stage to stage.
  KktResult stage_result;
};

/// Explicit Euler: q⁺ = q + dt q̇, q̇⁺ = q̇ + dt q̈(q, q̇). One KKT solve per step (the given one).
KktResult explicitEulerStep(AccelerationFunction& f, State& state, double dt, ConstVectorRef qdd,
                            StepWorkspace& ws);

/// Semi-implicit (symplectic) Euler: q̇⁺ = q̇ + dt q̈(q, q̇), then q⁺ = q + dt q̇⁺.
KktResult semiImplicitEulerStep(AccelerationFunction& f, State& state, double dt, ConstVectorRef qdd,
                                StepWorkspace& ws);

/// Classical RK4 on (q, q̇)' = (q̇, q̈): four KKT solves per step, one per stage, stage times
/// t, t + dt/2, t + dt/2, t + dt.
KktResult rk4Step(AccelerationFunction& f, State& state, double dt, ConstVectorRef qdd,
                  StepWorkspace& ws);

/// The common signature of the three steppers above.
using FixedStepFunction = KktResult (*)(AccelerationFunction& f, State& state, double dt, ConstVectorRef qdd,
                                        StepWorkspace& ws);

/// The stepper of a fixed-step `integrator`. Throws std::invalid_argument for an adaptive one.
FixedStepFunction fixedStepFunction(Integrator integrator);

}  // namespace kktdae
