#include "kktdae/integrators/integrator.hpp"

#include <string>

#include "kktdae/core/checks.hpp"

namespace kktdae {

std::string_view toString(Integrator integrator) {
  switch (integrator) {
    case Integrator::ExplicitEuler: return "euler";
    case Integrator::SemiImplicitEuler: return "semi_implicit";
    case Integrator::Rk4: return "rk4";
    case Integrator::CvodeBdf: return "cvode_bdf";
    case Integrator::CvodeAdams: return "cvode_adams";
    case Integrator::IdaIndex1: return "ida_index1";
    case Integrator::IdaGgl: return "ida_ggl";
    case Integrator::Rattle: return "rattle";
    case Integrator::GeneralizedAlpha: return "generalized_alpha";
    case Integrator::Hht: return "hht";
  }
  return "unknown";
}

const std::vector<Integrator>& allIntegrators() {
  static const std::vector<Integrator> all{Integrator::ExplicitEuler, Integrator::SemiImplicitEuler,
                                           Integrator::Rk4,           Integrator::CvodeBdf,
                                           Integrator::CvodeAdams,    Integrator::IdaIndex1,
                                           Integrator::IdaGgl,        Integrator::Rattle,
                                           Integrator::GeneralizedAlpha, Integrator::Hht};
  return all;
}

Integrator parseIntegrator(std::string_view name) {
  std::string choices;
  for (Integrator integrator : allIntegrators()) {
    if (toString(integrator) == name) return integrator;
    choices += (choices.empty() ? "" : ", ") + std::string(toString(integrator));
  }
  throwInvalid("integrator", "unknown integrator '" + std::string(name) + "' (choose " + choices + ")");
}

int convergenceOrder(Integrator integrator) {
  if (isAdaptive(integrator)) return 0;
  if (integrator == Integrator::Rk4) return 4;
  const bool second_order = integrator == Integrator::Rattle || integrator == Integrator::GeneralizedAlpha ||
                            integrator == Integrator::Hht;
  return second_order ? 2 : 1;
}

bool isAdaptive(Integrator integrator) {
  return integrator == Integrator::CvodeBdf || integrator == Integrator::CvodeAdams ||
         integrator == Integrator::IdaIndex1 || integrator == Integrator::IdaGgl;
}

}  // namespace kktdae
