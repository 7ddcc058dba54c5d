#include "kktdae/simulate/observed_multiplier.hpp"

namespace kktdae {
namespace {

/// The methods whose right-hand side is the stabilized KKT solve itself, so that the observed
/// λ is that solve at the observed state (the others hold φ = 0 themselves and ignore gains).
bool solvesStabilizedRow(Integrator integrator) {
  switch (integrator) {
    case Integrator::ExplicitEuler:
    case Integrator::SemiImplicitEuler:
    case Integrator::Rk4:
    case Integrator::CvodeBdf:
    case Integrator::CvodeAdams:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string_view toString(ObservedMultiplier choice) {
  switch (choice) {
    case ObservedMultiplier::Physical: return "physical";
    case ObservedMultiplier::Method: return "method";
  }
  return "physical";
}

Stabilization physicalMultiplierLaw(const Stabilization& stabilization, Integrator integrator) {
  if (stabilization.kind == Stabilization::Kind::Soft && solvesStabilizedRow(integrator)) {
    Stabilization soft = stabilization;
    soft.project_after_step = false;
    return soft;
  }
  return Stabilization::none();
}

bool ownMultiplierIsPhysical(const Stabilization& stabilization, Integrator integrator) {
  return solvesStabilizedRow(integrator) &&
         !(stabilization.kind == Stabilization::Kind::Baumgarte && (stabilization.alpha != 0.0 || stabilization.beta != 0.0));
}

}  // namespace kktdae
