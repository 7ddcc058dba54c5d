// makeFixedStepper(): the explicit methods are their step functions behind the contract
// (explicit_stepper.hpp), the others their own classes.
#include "kktdae/integrators/fixed_stepper.hpp"

#include "explicit_stepper.hpp"
#include "kktdae/integrators/generalized_alpha.hpp"
#include "kktdae/integrators/rattle.hpp"

namespace kktdae {

std::unique_ptr<FixedStepper> makeFixedStepper(const ConstrainedSystem& system, FixedStepperSetup setup) {
  if (setup.integrator == Integrator::Rattle) return makeRattleStepper(system, setup);
  if (setup.integrator == Integrator::GeneralizedAlpha || setup.integrator == Integrator::Hht) {
    return makeGeneralizedAlphaStepper(system, setup);
  }
  // The explicit methods are their step functions behind the stepper contract
  // (fixedStepFunction() throws for anything that is not fixed-step).
  return std::make_unique<detail::ExplicitStepper>(system, setup);
}

}  // namespace kktdae
