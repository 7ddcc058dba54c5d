#include "condition_estimate.hpp"
#include "dependent_rows.hpp"
#include "kkt_steps.hpp"
#include "small_schur.hpp"

namespace kktdae::detail {
bool formConstraintSpaceSystem(const Stabilization& stabilization, KktWorkspace& ws) {
  if (ws.mass_structure != MassStructure::General) {
    ws.inverse_mass_jt.noalias() = ws.inverse_mass_diagonal.asDiagonal() * ws.J.transpose();
    ws.free_acceleration = ws.inverse_mass_diagonal.cwiseProduct(ws.force);
  } else {
    ws.mass_llt.compute(ws.M);
    if (ws.mass_llt.info() != Eigen::Success) return false;
    if (ws.nc > 0) {  // Eigen's triangular solve dereferences an empty right-hand side (UBSan)
      ws.inverse_mass_jt = ws.J.transpose();
      ws.mass_llt.solveInPlace(ws.inverse_mass_jt);
    }
    ws.free_acceleration = ws.force;
    ws.mass_llt.solveInPlace(ws.free_acceleration);
  }
  if (ws.nc == 0) return true;
  ws.schur.noalias() = ws.J * ws.inverse_mass_jt;
  if (stabilization.kind == Stabilization::Kind::Soft) {
    // (J M⁻¹ Jᵀ + R) λ = a_ref − a₀: the regularized system of MuJoCo's soft constraints.
    ws.constraint_diagonal = ws.schur.diagonal();
    softRegularization(stabilization, ws.phi, ws.constraint_diagonal, ws.regularization);
    ws.schur.diagonal() += ws.regularization;
  }
  // Right-hand side in seed 000's order of operations, −(J M⁻¹ f + γ) − (2α φ̇ + β² φ), so that
  // the chapter's runs are reproduced as closely as the arithmetic allows
  // (docs/seed-reproduction.md: identical for the pendulum, chaos-limited for longer chains).
  ws.schur_rhs.noalias() = ws.J * ws.free_acceleration;
  ws.schur_rhs += ws.gamma;
  ws.schur_rhs = -ws.schur_rhs;
  subtractStabilizationTerms(stabilization, ws.phi, ws.phi_dot, ws.schur_rhs);
  return true;
}

void accelerationsFromMultipliers(KktWorkspace& ws) {
  if (ws.mass_structure != MassStructure::General) {
    // q̈ = (f + Jᵀλ) / m, divided rather than multiplied by 1/m, as seed 000 does.
    ws.qdd.noalias() = ws.J.transpose() * ws.lambda;
    ws.qdd += ws.force;
    ws.qdd.array() /= ws.mass_diagonal.array();
  } else {
    ws.qdd = ws.free_acceleration;
    ws.qdd.noalias() += ws.inverse_mass_jt * ws.lambda;
  }
}

KktResult solveSchur(const Stabilization& stabilization, const KktOptions& options, KktWorkspace& ws) {
  if (KktResult small; solveSchurSmall(stabilization, options, ws, small)) return small;  // nc ≤ 4
  if (!formConstraintSpaceSystem(stabilization, ws)) {
    return failedSolve(KktStatus::Singular, 0.0,
                       "mass matrix M is not positive definite (Cholesky failed): the Schur form needs M⁻¹; "
                       "KktForm::Block solves an M that is positive definite only on null(J)");
  }
  if (ws.nc == 0) {  // unconstrained: q̈ = M⁻¹ f, nothing to factorize
    if (ws.mass_structure != MassStructure::General) {
      ws.qdd = ws.force.cwiseQuotient(ws.mass_diagonal);
    } else {
      ws.qdd = ws.free_acceleration;
    }
    return finishSolve(1.0, options, ws);
  }
  const bool has_policy = options.rank_deficiency != RankDeficiencyPolicy::Fail;

  ws.schur_llt.compute(ws.schur);
  if (ws.schur_llt.info() != Eigen::Success) {
    if (has_policy) return solveRankDeficientConstraintSpace(options, 0.0, ws);
    return failedSolve(KktStatus::Singular, 0.0, "J M⁻¹ Jᵀ is not positive definite: constraint rows are dependent",
                       dependentConstraintRows(ws.J));
  }
  double rcond = 1.0;
  if (options.estimate_condition) {
    auto solve = [&](Vector& v) { ws.schur_llt.solveInPlace(v); };  // symmetric: Aᵀ = A
    auto& work = ws.schur_condition;
    rcond = reciprocalCondition(oneNorm(ws.schur), inverseOneNormEstimate(solve, solve, work.x, work.y, work.z));
    if (has_policy && !(rcond >= options.min_rcond)) return solveRankDeficientConstraintSpace(options, rcond, ws);
  }
  ws.lambda = ws.schur_llt.solve(ws.schur_rhs);
  accelerationsFromMultipliers(ws);
  return finishSolve(rcond, options, ws);
}

}  // namespace kktdae::detail
