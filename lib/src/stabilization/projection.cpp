#include "kktdae/stabilization/projection.hpp"
#include "../core/inf_norm.hpp"

#include <algorithm>

#include "../kkt/null_space_mass.hpp"
#include "kktdae/core/checks.hpp"

namespace kktdae {
namespace {

/// How far above the tolerance a stalled Gauss–Newton is still accepted (round-off floor).
constexpr double kRoundoffAllowance = 1e3;

using detail::infNorm;

/// J at (ws.q, t), in the dense matrix or the sparse constraint space.
void evaluateJacobian(const ConstrainedSystem& system, double t, ProjectionWorkspace& ws) {
  if (ws.sparse) {
    ws.constraint_space->evaluateJacobian(system, ws.q, t);
  } else {
    system.constraintJacobian(ws.q, t, ws.J);
  }
}

/// ws.multiplier = J ws.v (+ nothing else).
void multiplyJacobianVelocity(ProjectionWorkspace& ws) {
  if (ws.sparse) {
    ws.multiplier.noalias() = ws.constraint_space->J * ws.v;
  } else {
    ws.multiplier.noalias() = ws.J * ws.v;
  }
}

/// ws.correction = M⁻¹ Jᵀ x.
void massWeightedCorrection(const Vector& x, ProjectionWorkspace& ws) {
  if (ws.sparse) {
    ws.correction.noalias() = ws.constraint_space->J.transpose() * x;
    ws.correction.array() *= ws.inverse_mass_diagonal.array();
  } else {
    ws.correction.noalias() = ws.inverse_mass_jt * x;
  }
}

/// x ← (J M⁻¹ Jᵀ)⁻¹ x (or its pseudo-inverse) with the last factorMetric().
void solveMetric(Vector& x, ProjectionWorkspace& ws) {
  if (ws.sparse) {
    ws.constraint_space->ldlt.solveInPlace(x);
  } else if (ws.use_pseudo_inverse) {
    ws.pseudo_inverse.applyInPlace(x);
  } else {
    ws.schur_llt.solveInPlace(x);
  }
}

constexpr const char* kMassNotPositiveDefinite = "mass matrix M is not positive definite";
constexpr const char* kMassNotPositiveOnNullSpace = "mass matrix M is not positive definite on null(J)";
constexpr const char* kSingularMetric = "J M^-1 J^T is singular (constraint rows are dependent)";
constexpr const char* kNonFiniteMetric = "the model returned non-finite J or M";

/// The sparse factorMetric(): A = J M⁻¹ Jᵀ assembled and factorized by the sparse LDLᵀ.
const char* factorMetricSparse(const ConstrainedSystem& system, ProjectionWorkspace& ws) {
  system.massDiagonal(ws.q, ws.mass_diagonal);
  if (!(ws.mass_diagonal.minCoeff() > 0.0)) return kMassNotPositiveDefinite;
  ws.inverse_mass_diagonal = ws.mass_diagonal.cwiseInverse();
  ws.constraint_space->assemble(ws.inverse_mass_diagonal, ws.schur_diagonal);
  return ws.constraint_space->ldlt.factorize(true) ? nullptr : kSingularMetric;
}

/// Under a rank-deficiency policy (the run's KktOptions): Cholesky when J M⁻¹ Jᵀ is healthy (its
/// pivots' ratio above the threshold), else the policy's answer, the pseudo-inverse by pivoted
/// Cholesky (MinimumNorm: the smallest M-weighted correction) or A + diag(ε) (Regularize).
/// Redundant but consistent constraints then project like their non-redundant set.
bool factorRankDeficient(ProjectionWorkspace& ws) {
  ws.schur_llt.compute(ws.schur);
  if (ws.schur_llt.info() == Eigen::Success) {
    const auto pivots = ws.schur_llt.matrixLLT().diagonal();
    const double ratio = pivots.minCoeff() / pivots.maxCoeff();
    if (ratio * ratio > ws.rank_threshold) return true;
  }
  if (ws.rank_deficiency == RankDeficiencyPolicy::Regularize) {
    // εᵢ relative to each row's own Aᵢᵢ (a vanished row's to the largest), as the KKT solve's.
    const double largest = ws.schur.diagonal().maxCoeff();
    for (Eigen::Index i = 0; i < ws.nc; ++i) {
      const double own = ws.schur(i, i);
      ws.schur(i, i) += ws.regularization * (own > ws.regularization * largest ? own : largest);
    }
    ws.schur_llt.compute(ws.schur);
    return ws.schur_llt.info() == Eigen::Success;
  }
  ws.pseudo_inverse.resize(ws.nc);  // a no-op after the first rank-deficient projection
  if (ws.pseudo_inverse.factorize(ws.schur, ws.rank_threshold) == 0) return false;
  ws.use_pseudo_inverse = true;
  return true;
}

/// M⁻¹ Jᵀ and the Cholesky factor of J M⁻¹ Jᵀ at (ws.q, t); nullptr on success, otherwise what
/// failed (M not SPD is told apart from a singular J M⁻¹ Jᵀ: the remedies differ).
const char* factorMetric(const ConstrainedSystem& system, double t, ProjectionWorkspace& ws) {
  evaluateJacobian(system, t, ws);
  if (ws.sparse) return factorMetricSparse(system, ws);
  if (system.massStructure() == MassStructure::General) {
    system.massMatrix(ws.q, ws.M);
    if (!ws.M.allFinite()) return kNonFiniteMetric;
    ws.mass_llt.compute(ws.M);
    if (ws.mass_llt.info() != Eigen::Success) {
      // An M positive definite only on null(J) (Euler parameters) has no M⁻¹, but any positive
      // definite metric projects onto the same manifold: M + JᵀJ is one for such an M (it adds
      // what M lacks exactly off null(J)), and the identity is the last resort. An M that is not
      // positive definite even on null(J) is no mechanism's: it is refused as before, not hidden
      // behind the identity. Zᵀ(M + JᵀJ)Z = ZᵀMZ, so the test may read the sum. (Allocates: only
      // on this fallback, for an M that is not positive semi-definite.)
      ws.M.noalias() += ws.J.transpose() * ws.J;
      ws.mass_llt.compute(ws.M);
      if (ws.mass_llt.info() != Eigen::Success) {
        if (!(detail::smallestNullSpaceMassEigenvalue(ws.M, ws.J) > 0.0)) return kMassNotPositiveOnNullSpace;
        ws.M.setIdentity();
        ws.mass_llt.compute(ws.M);
      }
    }
    ws.inverse_mass_jt = ws.J.transpose();
    ws.mass_llt.solveInPlace(ws.inverse_mass_jt);
  } else {
    system.massDiagonal(ws.q, ws.mass_diagonal);
    if (!(ws.mass_diagonal.minCoeff() > 0.0)) return kMassNotPositiveDefinite;
    ws.inverse_mass_jt.noalias() = ws.mass_diagonal.cwiseInverse().asDiagonal() * ws.J.transpose();
  }
  ws.schur.noalias() = ws.J * ws.inverse_mass_jt;
  if (!ws.inverse_mass_jt.allFinite() || !ws.schur.allFinite()) return kNonFiniteMetric;
  ws.use_pseudo_inverse = false;
  if (ws.rank_deficiency != RankDeficiencyPolicy::Fail && ws.nc > 0) {
    return factorRankDeficient(ws) ? nullptr : kSingularMetric;
  }
  ws.schur_llt.compute(ws.schur);
  return ws.schur_llt.info() == Eigen::Success ? nullptr : kSingularMetric;
}

/// ‖J q̇ + ∂φ/∂t‖∞ at (ws.q, ws.v); leaves ∂φ/∂t in ws.phi_t and J in ws.J.
double velocityResidual(const ConstrainedSystem& system, double t, ProjectionWorkspace& ws) {
  evaluateJacobian(system, t, ws);
  system.constraintTimeDerivative(ws.q, t, ws.phi_t);
  multiplyJacobianVelocity(ws);
  ws.multiplier += ws.phi_t;
  return infNorm(ws.multiplier);
}

}  // namespace

ProjectionWorkspace::ProjectionWorkspace(const ConstrainedSystem& system, const KktOptions& kkt)
    : sparse(usesSparsePath(system, kkt)),
      nc(system.nc()),
      rank_deficiency(kkt.rank_deficiency),
      rank_threshold(kkt.rank_tolerance),
      regularization(kkt.regularization),
      q(system.nq()),
      v(system.nq()),
      phi(system.nc()),
      phi_t(system.nc()),
      mass_diagonal(system.nq()),
      correction(system.nq()),
      multiplier(system.nc()),
      M(system.massStructure() == MassStructure::General ? system.nq() : 0,
        system.massStructure() == MassStructure::General ? system.nq() : 0),
      J(sparse ? 0 : system.nc(), sparse ? 0 : system.nq()),
      inverse_mass_jt(sparse ? 0 : system.nq(), sparse ? 0 : system.nc()),
      schur(sparse ? 0 : system.nc(), sparse ? 0 : system.nc()),
      mass_llt(sparse ? 0 : system.nq()),
      schur_llt(sparse ? 0 : system.nc()) {
  if (sparse) {
    constraint_space.emplace(system);
    inverse_mass_diagonal = Vector::Zero(system.nq());
    schur_diagonal = Vector::Zero(system.nc());
  }
}

void ProjectionOptions::validate() const {
  if (max_iterations < 1) throwInvalid("projection.max_iterations", "must be >= 1, got " + std::to_string(max_iterations));
  requirePositive("projection.tolerance", tolerance);
}

ProjectionReport projectToManifold(const ConstrainedSystem& system, State& state, const ProjectionOptions& options) {
  options.validate();
  checkStateSizes(system, state.q, state.v);
  ProjectionWorkspace ws(system);
  return projectToManifold(system, state, options, ws);
}

ProjectionReport projectToManifold(const ConstrainedSystem& system, State& state, const ProjectionOptions& options,
                                   ProjectionWorkspace& ws) {
  ProjectionReport report;
  ws.q = state.q;
  ws.v = state.v;
  system.constraint(ws.q, state.t, ws.phi);
  report.phi_before = infNorm(ws.phi);
  report.phi_dot_before = velocityResidual(system, state.t, ws);
  if (system.nc() == 0) {
    report.converged = true;
    return report;
  }

  // Gauss–Newton in the mass metric: the smallest M-weighted move that zeroes the linearized φ.
  double previous = infNorm(ws.phi);
  while (!(infNorm(ws.phi) <= options.tolerance)) {
    const double current = infNorm(ws.phi);
    if (report.iterations > 0 && current > 0.5 * previous && current <= kRoundoffAllowance * options.tolerance) {
      report.roundoff_limited = true;  // stalled at the arithmetic's floor: as good as it gets
      break;
    }
    previous = current;
    if (report.iterations == options.max_iterations) {
      report.phi_after = infNorm(ws.phi);
      report.message = "position projection did not converge in " + std::to_string(options.max_iterations) +
                       " iterations: |phi|_inf = " + formatDouble(report.phi_after) + " > tolerance " +
                       formatDouble(options.tolerance);
      return report;
    }
    const char* failure = ws.phi.allFinite() ? factorMetric(system, state.t, ws) : "phi is not finite";
    if (failure != nullptr) {
      report.message = "position projection failed at iteration " + std::to_string(report.iterations) + ": " + failure;
      return report;
    }
    ws.multiplier = ws.phi;
    solveMetric(ws.multiplier, ws);
    massWeightedCorrection(ws.multiplier, ws);
    ws.q -= ws.correction;
    ++report.iterations;
    system.constraint(ws.q, state.t, ws.phi);
  }
  report.phi_after = infNorm(ws.phi);

  // Velocity: one exact M-orthogonal projection onto J q̇ = −∂φ/∂t at the projected q.
  if (const char* failure = factorMetric(system, state.t, ws)) {
    report.message = std::string("velocity projection failed at the projected q: ") + failure;
    return report;
  }
  system.constraintTimeDerivative(ws.q, state.t, ws.phi_t);
  multiplyJacobianVelocity(ws);
  ws.multiplier += ws.phi_t;
  ws.phi = ws.multiplier;  // reuse as the velocity multiplier
  solveMetric(ws.phi, ws);
  massWeightedCorrection(ws.phi, ws);
  ws.v -= ws.correction;
  report.phi_dot_after = velocityResidual(system, state.t, ws);
  if (!ws.q.allFinite() || !ws.v.allFinite()) {
    report.message = "projection produced non-finite values";
    return report;
  }
  report.position_correction = (ws.q - state.q).lpNorm<Eigen::Infinity>();
  report.velocity_correction = (ws.v - state.v).lpNorm<Eigen::Infinity>();
  report.converged = true;
  state.q = ws.q;
  state.v = ws.v;
  return report;
}

}  // namespace kktdae
