#include "kktdae/simulate/divergence.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kktdae/core/checks.hpp"
#include "kktdae/kkt/kkt_workspace.hpp"
#include "kktdae/system/constrained_system.hpp"
#include "short_vector_checks.hpp"

namespace kktdae {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

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

/// maxᵢ of |values_i| / ‖Jᵢ‖₂ over the rows with a non-zero gradient, and the row (−1: none).
std::pair<double, int> worstRow(const KktWorkspace& ws, const Vector& values) {
  int row = -1;
  double worst = 0.0;
  for (Eigen::Index i = 0; i < ws.nc; ++i) {
    const double norm_squared = rowSquaredNorm(ws, i);
    if (!(norm_squared > 0.0)) continue;
    const double quotient = std::abs(values[i]) / std::sqrt(norm_squared);
    if (quotient > worst || std::isnan(quotient)) {
      worst = quotient;
      row = static_cast<int>(i);
      if (std::isnan(quotient)) break;
    }
  }
  return {worst, row};
}

/// The smallest positive diagonal entry of M(q), or 0 when there is none.
double lightestMass(const ConstrainedSystem& system, ConstVectorRef q) {
  Vector diagonal(system.nq());
  if (system.massStructure() == MassStructure::General) {
    Matrix M(system.nq(), system.nq());
    system.massMatrix(q, M);
    diagonal = M.diagonal();
  } else {
    system.massDiagonal(q, diagonal);
  }
  double lightest = kInfinity;
  for (Eigen::Index i = 0; i < diagonal.size(); ++i) {
    if (diagonal[i] > 0.0) lightest = std::min(lightest, diagonal[i]);
  }
  return lightest < kInfinity ? lightest : 0.0;
}

}  // namespace

void DivergenceOptions::validate() const {
  requirePositive("divergence.manifold_factor", manifold_factor);
  if (!(state_growth > 1.0)) throwInvalid("divergence.state_growth", "must be > 1, got " + formatDouble(state_growth));
  requirePositive("divergence.min_scale", min_scale);
  if (!(max_phi_inf > 0.0)) throwInvalid("divergence.max_phi_inf", "must be > 0, got " + formatDouble(max_phi_inf));
  if (!(velocity_factor > 0.0)) {
    throwInvalid("divergence.velocity_factor", "must be > 0 (inf: off), got " + formatDouble(velocity_factor));
  }
  requirePositive("divergence.min_velocity_scale", min_velocity_scale);
  if (!(energy_factor > 0.0)) {
    throwInvalid("divergence.energy_factor", "must be > 0 (inf: off), got " + formatDouble(energy_factor));
  }
  if (runaway_check_every < 1) {
    throwInvalid("divergence.runaway_check_every", "must be >= 1, got " + std::to_string(runaway_check_every));
  }
}

DivergenceRule::DivergenceRule(const DivergenceOptions& options, ConstVectorRef q0)
    : options_(options), scale_(std::max(q0.size() > 0 ? q0.lpNorm<Eigen::Infinity>() : 0.0, options.min_scale)) {
  setLimits();
}

DivergenceRule::DivergenceRule(const DivergenceOptions& options, const ConstrainedSystem& system,
                               const State& initial, bool energy_rule)
    : DivergenceRule(options, initial.q) {
  if (!options_.enabled) return;
  const double kinetic = system.kineticEnergy(initial.q, initial.v);
  const double potential = system.potentialEnergy(initial.q, initial.t);
  const double declared = system.energyScale();
  const double start = std::abs(kinetic) + std::abs(potential);
  energy_scale_ = std::max(std::isfinite(declared) && declared > 0.0 ? declared : 0.0,
                           std::isfinite(start) ? start : 0.0);
  const double lightest = lightestMass(system, initial.q);
  const double energy_speed = lightest > 0.0 ? std::sqrt(2.0 * energy_scale_ / lightest) : 0.0;
  const double start_speed = initial.v.size() > 0 ? initial.v.norm() : 0.0;
  velocity_scale_ = std::max({std::isfinite(start_speed) ? start_speed : 0.0,
                              std::isfinite(energy_speed) ? energy_speed : 0.0, options_.min_velocity_scale});
  const bool energy_rule_on = energy_rule && system.isConservative() && energy_scale_ > 0.0 &&
                              std::isfinite(kinetic + potential);
  if (energy_rule_on) initial_energy_ = kinetic + potential;
  setLimits();
  if (!energy_rule_on) energy_limit_ = kInfinity;
}

void DivergenceRule::setLimits() {
  state_limit_ = options_.state_growth * scale_;
  manifold_limit_ = options_.manifold_factor * scale_;
  half_manifold_limit_ = 0.5 * manifold_limit_;
  rate_limit_ = options_.velocity_factor * velocity_scale_;
  energy_limit_ = options_.enabled ? options_.energy_factor * energy_scale_ : kInfinity;
  if (!(energy_limit_ > 0.0)) energy_limit_ = kInfinity;
  inline_rows_ = options_.enabled && !(options_.max_phi_inf < kInfinity);
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

DivergenceVerdict DivergenceRule::testRunaway(const ConstrainedSystem& system, double t, ConstVectorRef q,
                                              ConstVectorRef v, const KktWorkspace& ws) const {
  if (!options_.enabled) return DivergenceVerdict::Plausible;
  if (rate_limit_ < kInfinity) {
    // As the manifold rule: one entry with |φ̇ᵢ| ≤ ½·limit·|a| settles a row without its norm.
    const double half_limit = 0.5 * rate_limit_;
    for (Eigen::Index i = 0; i < ws.nc; ++i) {
      bool within = false;
      const double rate = std::abs(ws.phi_dot[i]);
      if (ws.sparse) {
        for (SparseRowMatrix::InnerIterator entry(ws.constraint_space->J, i); entry && !within; ++entry) {
          within = rate <= half_limit * std::abs(entry.value());
        }
      } else {
        for (Eigen::Index j = 0; j < ws.J.cols() && !within; ++j) within = rate <= half_limit * std::abs(ws.J(i, j));
      }
      if (within) continue;
      const double norm_squared = rowSquaredNorm(ws, i);
      if (norm_squared > 0.0 && rate / std::sqrt(norm_squared) > rate_limit_) return DivergenceVerdict::LeavingManifold;
    }
  }
  if (!testsEnergy()) return DivergenceVerdict::Plausible;
  const double energy = system.kineticEnergy(q, v) + system.potentialEnergy(q, t);
  return std::abs(energy - initial_energy_) <= energy_limit_ ? DivergenceVerdict::Plausible
                                                             : DivergenceVerdict::EnergyDrift;
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
      const auto [worst, row] = worstRow(ws, ws.phi);
      return "distance from the constraint manifold |phi_i|/|grad phi_i| = " + formatDouble(worst) + " (row " +
             std::to_string(row) + ") > manifold_factor " + formatDouble(options_.manifold_factor) +
             " x the start's scale " + formatDouble(scale_);
    }
    case DivergenceVerdict::LeavingManifold: {
      const auto [worst, row] = worstRow(ws, ws.phi_dot);
      return "rate of leaving the constraint manifold |phidot_i|/|grad phi_i| = " + formatDouble(worst) + " (row " +
             std::to_string(row) + ") > velocity_factor " + formatDouble(options_.velocity_factor) +
             " x the velocity scale " + formatDouble(velocity_scale_);
    }
    case DivergenceVerdict::EnergyDrift:
      return "the total energy drifted beyond energy_factor " + formatDouble(options_.energy_factor) +
             " x the energy scale " + formatDouble(energy_scale_);
  }
  return {};
}

std::string DivergenceRule::describeEnergy(const ConstrainedSystem& system, double t, ConstVectorRef q,
                                           ConstVectorRef v) const {
  const double energy = system.kineticEnergy(q, v) + system.potentialEnergy(q, t);
  return "total energy E = " + formatDouble(energy) + " J moved by |E - E0| = " +
         formatDouble(std::abs(energy - initial_energy_)) + " J from E0 = " + formatDouble(initial_energy_) +
         " J, > energy_factor " + formatDouble(options_.energy_factor) + " x the energy scale " +
         formatDouble(energy_scale_) + " J (a conservative model: E is a first integral)";
}

std::pair<double, int> DivergenceRule::manifoldDistance(const KktWorkspace& ws) { return worstRow(ws, ws.phi); }

std::pair<double, int> DivergenceRule::manifoldRate(const KktWorkspace& ws) { return worstRow(ws, ws.phi_dot); }

std::string DivergenceRule::check(ConstVectorRef q, const KktWorkspace& ws) const {
  return describe(test(q, ws), q, ws);
}

}  // namespace kktdae
