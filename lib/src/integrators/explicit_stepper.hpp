#pragma once
// The explicit methods (explicit Euler, semi-implicit Euler, RK4) on the stepper contract
// (internal header). Besides the virtual contract the class offers the same steps as inline,
// non-virtual calls that write into one reused KktResult: the fixed-step driver runs its loop over
// those when makeFixedStepper() made this class, so that a step of a small model pays for no
// virtual call, no StepReport and no KktResult built and destroyed (docs/notes/performance-profile.md).
// Either way the KKT solve at every settled state serves both the observer's λ and the next
// step's first stage (the order of operations, and so every bit, of the former driver loop).

#include "euler_updates.hpp"
#include "kktdae/integrators/fixed_stepper.hpp"
#include "kktdae/integrators/fixed_steppers.hpp"

namespace kktdae::detail {

class ExplicitStepper final : public FixedStepper {
 public:
  ExplicitStepper(const ConstrainedSystem& system, const FixedStepperSetup& setup)
      : f_(system, setup.stabilization, setup.kkt, setup.controller),
        step_ws_(system.nq()),
        qdd_(Vector::Zero(system.nq())),
        integrator_(setup.integrator),
        step_(fixedStepFunction(setup.integrator)) {}

  // The reports are built around the KktResult in place (no move of its string and vector).
  StepReport reset(const State& state) override {
    return StepReport{f_.evaluate(state.t, state.q, state.v, qdd_), false, 0, 0.0, {}};
  }
  StepReport step(State& state, double dt) override {
    return StepReport{step_(f_, state, dt, qdd_, step_ws_), false, 0, 0.0, {}};
  }
  StepReport settle(const State& state) override { return reset(state); }

  const Vector& lambda() const override { return f_.lambda(); }
  bool lambdaIsKktSolve() const override { return true; }  // f_ solved at the settled state
  const KktWorkspace& terms() const override { return f_.workspace(); }
  const AccelerationFunction& accelerationFunction() const override { return f_; }
  long solves() const override { return f_.solves(); }
  long modelEvaluations() const override { return f_.solves(); }

  // ---- the driver's non-virtual path ----

  /// The KKT solve at `state` (reset or settle) into result(); false when it failed.
  bool solveAt(const State& state) { return f_.evaluate(state.t, state.q, state.v, qdd_, result_); }
  /// step(state, dt) without a report: false when an inner stage failed (result() says how).
  /// q_inf receives ‖q⁺‖∞ when (q⁺, q̇⁺) is finite and NaN otherwise, from the update's own pass
  /// for the two Euler methods (their entries are in registers there).
  bool advance(State& state, double dt, double& q_inf) {
    const Eigen::Index nq = state.q.size();
    if (integrator_ == Integrator::SemiImplicitEuler || integrator_ == Integrator::ExplicitEuler) {
      FiniteMaxVisit visit;
      if (integrator_ == Integrator::SemiImplicitEuler) {
        semiImplicitEulerUpdate(state.q.data(), state.v.data(), qdd_.data(), nq, dt, visit);
      } else {
        explicitEulerUpdate(state.q.data(), state.v.data(), qdd_.data(), nq, dt, visit);
      }
      state.t += dt;
      q_inf = state.v.size() == nq && visit.provedFinite() ? visit.largest : finiteMaxAbs(state.q, state.v);
      return true;
    }
    KktResult stepped = step_(f_, state, dt, qdd_, step_ws_);
    if (!stepped.ok()) {
      result_ = std::move(stepped);
      return false;
    }
    q_inf = finiteMaxAbs(state.q, state.v);
    return true;
  }
  /// The outcome of the last solveAt(), or of the inner stage that made advance() fail.
  const KktResult& result() const { return result_; }

 private:
  AccelerationFunction f_;
  StepWorkspace step_ws_;
  Vector qdd_;  // q̈ at the last settled state: the first stage of the next step
  Integrator integrator_;
  FixedStepFunction step_;
  KktResult result_;
};

}  // namespace kktdae::detail
