#include "kktdae/simulate/divergence.hpp"

#include <cmath>

#include "kktdae/core/checks.hpp"
#include "kktdae/kkt/kkt_workspace.hpp"

namespace kktdae {
namespace {

/// maxᵢ |φᵢ| / ‖Jᵢ‖₂ and its row; rows with a zero gradient are skipped (a kinematic
/// singularity is the KKT solve's to report, not a divergence).
template <class RowSquaredNorm>
double manifoldDistance(const Vector& phi, RowSquaredNorm row_squared_norm, int& worst_row) {
  double worst = 0.0;
  for (Eigen::Index i = 0; i < phi.size(); ++i) {
    const double norm_squared = row_squared_norm(i);
    if (!(norm_squared > 0.0)) continue;
    const double distance = std::abs(phi[i]) / std::sqrt(norm_squared);
    if (distance > worst) {
      worst = distance;
      worst_row = static_cast<int>(i);
    }
  }
  return worst;
}

}  // namespace

void DivergenceOptions::validate() const {
  requirePositive("divergence.manifold_factor", manifold_factor);
  if (!(state_growth > 1.0)) throwInvalid("divergence.state_growth", "must be > 1, got " + formatDouble(state_growth));
  requirePositive("divergence.min_scale", min_scale);
  if (!(max_phi_inf > 0.0)) throwInvalid("divergence.max_phi_inf", "must be > 0, got " + formatDouble(max_phi_inf));
}

DivergenceRule::DivergenceRule(const DivergenceOptions& options, ConstVectorRef q0)
    : options_(options), scale_(std::max(q0.size() > 0 ? q0.lpNorm<Eigen::Infinity>() : 0.0, options.min_scale)) {}

std::string DivergenceRule::check(ConstVectorRef q, const KktWorkspace& ws) const {
  if (!options_.enabled) return {};
  const double q_inf = q.size() > 0 ? q.lpNorm<Eigen::Infinity>() : 0.0;
  if (q_inf > options_.state_growth * scale_) {
    return "|q|_inf = " + formatDouble(q_inf) + " > state_growth " + formatDouble(options_.state_growth) +
           " x the start's scale " + formatDouble(scale_);
  }
  if (ws.nc == 0) return {};
  const double phi_inf = ws.phi.lpNorm<Eigen::Infinity>();
  if (phi_inf > options_.max_phi_inf) {
    return "|phi|_inf = " + formatDouble(phi_inf) + " > max_phi_inf " + formatDouble(options_.max_phi_inf);
  }
  int row = -1;
  double distance = 0.0;
  if (ws.sparse) {
    const SparseRowMatrix& J = ws.constraint_space->J;
    distance = manifoldDistance(ws.phi, [&](Eigen::Index i) { return J.row(i).squaredNorm(); }, row);
  } else {
    distance = manifoldDistance(ws.phi, [&](Eigen::Index i) { return ws.J.row(i).squaredNorm(); }, row);
  }
  if (distance > options_.manifold_factor * scale_) {
    return "distance from the constraint manifold |phi_i|/|grad phi_i| = " + formatDouble(distance) + " (row " +
           std::to_string(row) + ") > manifold_factor " + formatDouble(options_.manifold_factor) +
           " x the start's scale " + formatDouble(scale_);
  }
  return {};
}

}  // namespace kktdae
