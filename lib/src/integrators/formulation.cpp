#include "kktdae/integrators/formulation.hpp"

namespace kktdae {

namespace {

std::string withStabilization(std::string base, const Stabilization& stabilization) {
  const std::string text = stabilization.describe();
  return text == "none" ? base : base + " + " + text;
}

}  // namespace

std::string describeFormulation(Integrator integrator, const Stabilization& stabilization) {
  switch (integrator) {
    case Integrator::ExplicitEuler:
    case Integrator::SemiImplicitEuler:
    case Integrator::Rk4:
    case Integrator::CvodeBdf:
    case Integrator::CvodeAdams:
      // The KKT solve turns the index-3 DAE into an ODE in (q, q̇) at every evaluation.
      return withStabilization("index-1 ODE (KKT q̈)", stabilization);
    case Integrator::IdaIndex1: {
      // IDA has no projection hook: a projection request is ignored (simulate says so in notes).
      Stabilization used = stabilization;
      used.project_after_step = false;
      return withStabilization("index-1 DAE (q, v, λ)", used);
    }
    case Integrator::IdaGgl:
      return "GGL index-2 DAE (q, v, λ, μ)";  // holds φ and φ̇ itself: no Baumgarte, no projection
    case Integrator::Rattle:
      return "RATTLE, index-3 (φ = 0 and J q̇ = 0 solved every step)";
    case Integrator::GeneralizedAlpha:
      return "generalized-α, index-3 (φ = 0 solved every step)";
    case Integrator::Hht:
      return "HHT-α, index-3 (φ = 0 solved every step)";
  }
  return std::string(toString(integrator));
}

}  // namespace kktdae
