#include "kktdae/stabilization/stabilization.hpp"

#include "kktdae/core/checks.hpp"

#include <algorithm>
#include <cmath>

namespace kktdae {

double SoftConstraint::impedance(double violation) const {
  const double x = std::abs(violation) / width;
  double y = 1.0;
  if (x < 1.0) {
    if (power == 1.0) {
      y = x;
    } else if (x <= midpoint) {
      y = std::pow(x, power) / std::pow(midpoint, power - 1.0);
    } else {
      y = 1.0 - std::pow(1.0 - x, power) / std::pow(1.0 - midpoint, power - 1.0);
    }
  }
  return std::clamp(dmin + y * (dmax - dmin), 1e-4, 0.9999);
}

void SoftConstraint::validate() const {
  requirePositive("soft.timeconst", timeconst);
  requirePositive("soft.dampratio", dampratio);
  auto inOpenUnit = [](const char* name, double value) {
    if (!(value > 0.0 && value < 1.0)) throwInvalid(name, "must be in (0, 1), got " + formatDouble(value));
  };
  inOpenUnit("soft.dmin", dmin);
  inOpenUnit("soft.dmax", dmax);
  inOpenUnit("soft.midpoint", midpoint);
  requirePositive("soft.width", width);
  if (!(power >= 1.0) || !std::isfinite(power)) throwInvalid("soft.power", "must be finite and >= 1, got " + formatDouble(power));
}

Stabilization Stabilization::none() { return {}; }

Stabilization Stabilization::projection() {
  Stabilization s;
  s.project_after_step = true;
  return s;
}

Stabilization Stabilization::softConstraint(SoftConstraint parameters) {
  Stabilization s;
  s.kind = Kind::Soft;
  s.soft = parameters;
  s.validate();
  return s;
}

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
  if (kind != Kind::None && kind != Kind::Baumgarte && kind != Kind::Soft) {
    throwInvalid("stabilization.kind", "is not a Stabilization::Kind value (" + std::to_string(static_cast<int>(kind)) + ")");
  }
  requireNonNegative("stabilization.alpha", alpha);
  requireNonNegative("stabilization.beta", beta);
  if (kind == Kind::Soft) soft.validate();
  if (kind != Kind::Baumgarte && (alpha != 0.0 || beta != 0.0)) {
    throwInvalid("stabilization.kind", "gains alpha/beta are for Baumgarte only (alpha=" + formatDouble(alpha) +
                                           ", beta=" + formatDouble(beta) + ")");
  }
}

std::string Stabilization::describe() const {
  std::string text;
  switch (kind) {
    case Kind::None: text = project_after_step ? "" : "none"; break;
    case Kind::Baumgarte: text = "baumgarte(alpha=" + formatDouble(alpha) + ", beta=" + formatDouble(beta) + ")"; break;
    case Kind::Soft:
      text = "soft(timeconst=" + formatDouble(soft.timeconst) + ", dampratio=" + formatDouble(soft.dampratio) +
             ", dmin=" + formatDouble(soft.dmin) + ", dmax=" + formatDouble(soft.dmax) + ")";
      break;
  }
  if (project_after_step) text += text.empty() ? "projection" : "+projection";
  return text;
}

void subtractStabilizationTerms(const Stabilization& stabilization, ConstVectorRef phi,
                                ConstVectorRef phi_dot, VectorRef target) {
  if (stabilization.kind == Stabilization::Kind::Soft) {
    const SoftConstraint& soft = stabilization.soft;
    // MuJoCo's reference acceleration a_ref = −B φ̇ − K d φ (mj_referenceConstraint).
    const double damping = 2.0 / (soft.dmax * soft.timeconst);
    const double stiffness = 1.0 / (soft.dmax * soft.dmax * soft.timeconst * soft.timeconst * soft.dampratio * soft.dampratio);
    for (Eigen::Index k = 0; k < target.size(); ++k) {
      target[k] -= damping * phi_dot[k] + stiffness * soft.impedance(phi[k]) * phi[k];
    }
    return;
  }
  if (stabilization.kind != Stabilization::Kind::Baumgarte) return;
  // Grouped as (2α)·φ̇ + (β·β)·φ: the same operations, in the same order, as seed 000's
  // `2.0 * omega * gdot + omega ** 2 * g`, so the seed's runs are reproduced as closely as possible.
  const double damping = 2.0 * stabilization.alpha;
  const double stiffness = stabilization.beta * stabilization.beta;
  // A plain loop: the same operations per entry as the array expression (so the same bits), without
  // its setup, which for a few rows costs more than the arithmetic.
  const double* rate = phi_dot.data();
  const double* error = phi.data();
  double* out = target.data();
  for (Eigen::Index k = 0; k < target.size(); ++k) out[k] -= damping * rate[k] + stiffness * error[k];
}

}  // namespace kktdae

namespace kktdae {

void softRegularization(const Stabilization& stabilization, ConstVectorRef phi, ConstVectorRef a_diagonal,
                        VectorRef regularization) {
  if (stabilization.kind != Stabilization::Kind::Soft) {
    regularization.setZero();
    return;
  }
  for (Eigen::Index k = 0; k < regularization.size(); ++k) {
    const double d = stabilization.soft.impedance(phi[k]);
    regularization[k] = (1.0 - d) / d * a_diagonal[k];
  }
}

}  // namespace kktdae
