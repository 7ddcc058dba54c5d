// The explicit methods on the stepper contract: each wraps its stateless step function, and the
// KKT solve at every settled state serves both the observer's λ and the next step's first stage
// (the order of operations, and so every bit, of the former driver loop).
#include "kktdae/integrators/fixed_stepper.hpp"

#include "kktdae/core/checks.hpp"
#include "kktdae/integrators/fixed_steppers.hpp"
#include "kktdae/integrators/generalized_alpha.hpp"
#include "kktdae/integrators/rattle.hpp"

namespace kktdae {
namespace {

using StepFunction = KktResult (*)(AccelerationFunction&, State&, double, ConstVectorRef, StepWorkspace&);

class ExplicitStepper final : public FixedStepper {
 public:
  ExplicitStepper(const ConstrainedSystem& system, const FixedStepperSetup& setup, StepFunction step_function)
      : f_(system, setup.stabilization, setup.kkt, setup.controller),
        step_ws_(system.nq()),
        qdd_(Vector::Zero(system.nq())),
        step_(step_function) {}

  StepReport reset(const State& state) override { return evaluate(state); }
  // The reports are built around the KktResult in place (no move of its string and vector).
  StepReport step(State& state, double dt) override {
    return StepReport{step_(f_, state, dt, qdd_, step_ws_), false, 0, 0.0, {}};
  }
  StepReport settle(const State& state) override { return evaluate(state); }

  const Vector& lambda() const override { return f_.lambda(); }
  bool lambdaIsKktSolve() const override { return true; }  // f_ solved at the settled state
  const KktWorkspace& terms() const override { return f_.workspace(); }
  const AccelerationFunction& accelerationFunction() const override { return f_; }
  long solves() const override { return f_.solves(); }
  long modelEvaluations() const override { return f_.solves(); }

 private:
  AccelerationFunction f_;
  StepWorkspace step_ws_;
  Vector qdd_;  // q̈ at the last settled state: the first stage of the next step
  StepFunction step_;

  StepReport evaluate(const State& state) {
    return StepReport{f_.evaluate(state.t, state.q, state.v, qdd_), false, 0, 0.0, {}};
  }
};

}  // namespace

std::unique_ptr<FixedStepper> makeFixedStepper(const ConstrainedSystem& system, FixedStepperSetup setup) {
  if (setup.integrator == Integrator::Rattle) return makeRattleStepper(system, setup);
  if (setup.integrator == Integrator::GeneralizedAlpha || setup.integrator == Integrator::Hht) {
    return makeGeneralizedAlphaStepper(system, setup);
  }
  // The explicit methods are their step functions behind the stepper contract
  // (fixedStepFunction() throws for anything that is not fixed-step).
  const FixedStepFunction step = fixedStepFunction(setup.integrator);
  return std::make_unique<ExplicitStepper>(system, setup, step);
}

}  // namespace kktdae
