#include "kktdae/stabilization/stabilization.hpp"

#include "kktdae/core/checks.hpp"

namespace kktdae {

Stabilization Stabilization::none() { return {}; }

Stabilization Stabilization::baumgarte(double alpha, double beta) {
  Stabilization s;
  s.kind = Kind::Baumgarte;
  s.alpha = alpha;
  s.beta = beta;
  s.validate();
  return s;
}

Stabilization Stabilization::fromDampingRatio(double zeta, double omega_n) {
  requireNonNegative("zeta", zeta);
  requireNonNegative("omega_n", omega_n);
  return baumgarte(zeta * omega_n, omega_n);
}

Stabilization Stabilization::critical(double omega) {
  requireNonNegative("omega", omega);
  return baumgarte(omega, omega);
}

void Stabilization::validate() const {
  requireNonNegative("stabilization.alpha", alpha);
  requireNonNegative("stabilization.beta", beta);
  if (kind == Kind::None && (alpha != 0.0 || beta != 0.0)) {
    throwInvalid("stabilization.kind", "None with non-zero gains (alpha=" + formatDouble(alpha) +
                                           ", beta=" + formatDouble(beta) + ")");
  }
}

std::string Stabilization::describe() const {
  if (kind == Kind::None) return "none";
  return "baumgarte(alpha=" + formatDouble(alpha) + ", beta=" + formatDouble(beta) + ")";
}

void subtractStabilizationTerms(const Stabilization& stabilization, ConstVectorRef phi,
                                ConstVectorRef phi_dot, VectorRef target) {
  if (stabilization.kind != Stabilization::Kind::Baumgarte) return;
  // Grouped as (2α)·φ̇ + (β·β)·φ: the same operations, in the same order, as seed 000's
  // `2.0 * omega * gdot + omega ** 2 * g`, so the seed's runs are reproduced as closely as possible.
  const double damping = 2.0 * stabilization.alpha;
  const double stiffness = stabilization.beta * stabilization.beta;
  target.array() -= damping * phi_dot.array() + stiffness * phi.array();
}

}  // namespace kktdae
