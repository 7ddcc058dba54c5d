#include "kktdae/integrators/integrator.hpp"

#include <string>

#include "kktdae/core/checks.hpp"

namespace kktdae {

std::string_view toString(Integrator integrator) {
  switch (integrator) {
    case Integrator::ExplicitEuler: return "euler";
    case Integrator::SemiImplicitEuler: return "semi_implicit";
    case Integrator::Rk4: return "rk4";
  }
  return "unknown";
}

const std::vector<Integrator>& allIntegrators() {
  static const std::vector<Integrator> all{Integrator::ExplicitEuler, Integrator::SemiImplicitEuler,
                                           Integrator::Rk4};
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

int convergenceOrder(Integrator integrator) { return integrator == Integrator::Rk4 ? 4 : 1; }

}  // namespace kktdae
