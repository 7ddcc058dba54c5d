#include "kktdae/simulate/divergence.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kktdae/core/checks.hpp"
#include "kktdae/kkt/kkt_workspace.hpp"
#include "short_vector_checks.hpp"

namespace kktdae {
namespace {

/// ‖∇φᵢ‖₂², summed from the row's first entry on, as Eigen's row(i).squaredNorm() does.
double rowSquaredNorm(const KktWorkspace& ws, Eigen::Index i) {
  if (ws.sparse) return ws.constraint_space->J.row(i).squaredNorm();
  const Eigen::Index columns = ws.J.cols();
  if (columns == 0) return 0.0;
  const Eigen::Index stride = ws.J.rows();  // column-major: a row's entries are nc apart
  const double* entry = ws.J.data() + i;
  double sum = entry[0] * entry[0];
  for (Eigen::Index j = 1; j < columns; ++j) {
    entry += stride;
    sum += *entry * *entry;
  }
  return sum;
}

/// True when one entry a of row i already shows row i within the limit: ‖Jᵢ‖₂ ≥ |a|, so
/// |φᵢ| ≤ ½·limit·|a| puts |φᵢ| / ‖Jᵢ‖₂ at most half the limit (the half leaves room for the
/// round-off of the exact quotient). A healthy state passes at its first non-zero entry, so the
/// row's norm is not needed; a NaN never passes and goes to the exact test.
bool rowWithinLimit(const KktWorkspace& ws, Eigen::Index i, double half_limit) {
  const double phi = std::abs(ws.phi[i]);
  if (ws.sparse) {
    for (SparseRowMatrix::InnerIterator entry(ws.constraint_space->J, i); entry; ++entry) {
      if (phi <= half_limit * std::abs(entry.value())) return true;
    }
    return false;
  }
  const Eigen::Index columns = ws.J.cols();
  const Eigen::Index stride = ws.J.rows();
  const double* entry = ws.J.data() + i;
  for (Eigen::Index j = 0; j < columns; ++j, entry += stride) {
    if (phi <= half_limit * std::abs(*entry)) return true;
  }
  return false;
}

/// |φᵢ| / ‖Jᵢ‖₂, or a negative value for a row with a zero (or non-finite) gradient: a kinematic
/// singularity is the KKT solve's to report, not a divergence.
double rowDistance(const KktWorkspace& ws, Eigen::Index i) {
  const double norm_squared = rowSquaredNorm(ws, i);
  if (!(norm_squared > 0.0)) return -1.0;
  return std::abs(ws.phi[i]) / std::sqrt(norm_squared);
}

}  // namespace

void DivergenceOptions::validate() const {
  requirePositive("divergence.manifold_factor", manifold_factor);
  if (!(state_growth > 1.0)) throwInvalid("divergence.state_growth", "must be > 1, got " + formatDouble(state_growth));
  requirePositive("divergence.min_scale", min_scale);
  if (!(max_phi_inf > 0.0)) throwInvalid("divergence.max_phi_inf", "must be > 0, got " + formatDouble(max_phi_inf));
}

DivergenceRule::DivergenceRule(const DivergenceOptions& options, ConstVectorRef q0)
    : options_(options), scale_(std::max(q0.size() > 0 ? q0.lpNorm<Eigen::Infinity>() : 0.0, options.min_scale)) {
  state_limit_ = options_.state_growth * scale_;
  manifold_limit_ = options_.manifold_factor * scale_;
  half_manifold_limit_ = 0.5 * manifold_limit_;
  inline_rows_ = options_.enabled && !(options_.max_phi_inf < std::numeric_limits<double>::infinity());
}

DivergenceVerdict DivergenceRule::test(ConstVectorRef q, const KktWorkspace& ws) const {
  if (!options_.enabled) return DivergenceVerdict::Plausible;
  return test(detail::maxAbs(q), ws);
}

// test(q_inf, ws) (inline in the header) has checked the state rule and settled the rows before
// first_row; the rest of the constraint rules are here.
DivergenceVerdict DivergenceRule::testConstraints(const KktWorkspace& ws, Eigen::Index first_row) const {
  // ‖φ‖∞ > ∞ never holds: the default skips the pass over φ.
  if (first_row == 0 && options_.max_phi_inf < std::numeric_limits<double>::infinity() &&
      detail::maxAbs(ws.phi) > options_.max_phi_inf) {
    return DivergenceVerdict::PhiAboveMax;
  }
  // Some row further than the limit is the same test as the farthest row further than it; the
  // bound settles most rows without their norm, the exact quotient decides the rest.
  const double half_limit = half_manifold_limit_;
  if (!ws.sparse) {
    // rowWithinLimit's dense loop inline, with the layout read once for all rows: at a two-link
    // chain the per-row call and its sparse branch cost more than the test itself.
    const Eigen::Index columns = ws.J.cols();
    const Eigen::Index stride = ws.J.rows();  // column-major: a row's entries are nc apart
    for (Eigen::Index i = first_row; i < ws.nc; ++i) {
      const double phi = std::abs(ws.phi[i]);
      const double* entry = ws.J.data() + i;
      if (columns > 0 && phi <= half_limit * std::abs(*entry)) continue;  // the usual case at once
      bool within = false;
      for (Eigen::Index j = 1; j < columns && !within; ++j) {
        entry += stride;
        within = phi <= half_limit * std::abs(*entry);
      }
      if (!within && rowDistance(ws, i) > manifold_limit_) return DivergenceVerdict::OffManifold;
    }
    return DivergenceVerdict::Plausible;
  }
  for (Eigen::Index i = first_row; i < ws.nc; ++i) {
    if (rowWithinLimit(ws, i, half_limit)) continue;
    if (rowDistance(ws, i) > manifold_limit_) return DivergenceVerdict::OffManifold;
  }
  return DivergenceVerdict::Plausible;
}

std::string DivergenceRule::describe(DivergenceVerdict verdict, ConstVectorRef q, const KktWorkspace& ws) const {
  switch (verdict) {
    case DivergenceVerdict::Plausible:
      return {};
    case DivergenceVerdict::StateGrowth:
      return "|q|_inf = " + formatDouble(detail::maxAbs(q)) + " > state_growth " + formatDouble(options_.state_growth) +
             " x the start's scale " + formatDouble(scale_);
    case DivergenceVerdict::PhiAboveMax:
      return "|phi|_inf = " + formatDouble(detail::maxAbs(ws.phi)) + " > max_phi_inf " +
             formatDouble(options_.max_phi_inf);
    case DivergenceVerdict::OffManifold: {
      int row = -1;
      double worst = 0.0;
      for (Eigen::Index i = 0; i < ws.nc; ++i) {
        const double distance = rowDistance(ws, i);
        if (distance > worst) {
          worst = distance;
          row = static_cast<int>(i);
        }
      }
      return "distance from the constraint manifold |phi_i|/|grad phi_i| = " + formatDouble(worst) + " (row " +
             std::to_string(row) + ") > manifold_factor " + formatDouble(options_.manifold_factor) +
             " x the start's scale " + formatDouble(scale_);
    }
  }
  return {};
}

std::string DivergenceRule::check(ConstVectorRef q, const KktWorkspace& ws) const {
  return describe(test(q, ws), q, ws);
}

}  // namespace kktdae
