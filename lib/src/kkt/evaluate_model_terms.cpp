#include "all_finite.hpp"
#include "dependent_rows.hpp"
#include "kkt_steps.hpp"
#include "small_schur.hpp"

#include "kktdae/core/checks.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

namespace kktdae::detail {
namespace {

KktResult nonFinite(std::string what, std::vector<int> rows) {
  return failedSolve(KktStatus::NonFinite, std::numeric_limits<double>::quiet_NaN(), "non-finite " + what,
                     std::move(rows));
}

/// A model output that is not finite: the model computed NaN/Inf, or never wrote the entry (the
/// workspace starts every output as NaN, kkt_workspace.cpp).
KktResult nonFiniteOutput(std::string what, std::vector<int> rows) {
  return nonFinite(what + " (NaN/Inf from the model, or an entry it never writes)", std::move(rows));
}

std::vector<int> nonFiniteSparseRows(const SparseRowMatrix& J) {
  std::vector<int> rows;
  for (int i = 0; i < J.rows(); ++i) {
    for (int p = J.outerIndexPtr()[i]; p < J.outerIndexPtr()[i + 1]; ++p) {
      if (!std::isfinite(J.valuePtr()[p])) {
        rows.push_back(i);
        break;
      }
    }
  }
  return rows;
}

/// The sparse path's pass over the constraint rows after φ̇ = J q̇ + ∂φ/∂t
/// (SparseConstraintSpace::rowProducts()): the target −γ − 2αφ̇ − β²φ of Baumgarte's
/// stabilization (subtractStabilizationTerms()'s operations; other kinds get −γ here and their
/// terms afterwards) and the finiteness carries of φ, γ and φ̇. J's own finiteness needs no pass:
/// a NaN or ±∞ in row i makes φ̇_i non-finite (∞·0 is NaN).
std::uint64_t sparseConstraintTargets(const Stabilization& stabilization, KktWorkspace& ws) {
  const double* phi = ws.phi.data();
  const double* gamma = ws.gamma.data();
  const double* phi_dot = ws.phi_dot.data();
  double* target = ws.constraint_target.data();
  const bool baumgarte = stabilization.kind == Stabilization::Kind::Baumgarte;
  const double damping = baumgarte ? 2.0 * stabilization.alpha : 0.0;
  const double stiffness = baumgarte ? stabilization.beta * stabilization.beta : 0.0;
  std::uint64_t carries = 0;
  for (int i = 0; i < ws.nc; ++i) {
    target[i] = baumgarte ? -gamma[i] - (damping * phi_dot[i] + stiffness * phi[i]) : -gamma[i];
    carries |= finiteCarry(phi[i]) | finiteCarry(gamma[i]) | finiteCarry(phi_dot[i]);
  }
  return carries;
}

}  // namespace

KktResult evaluateModelTerms(const ConstrainedSystem& system, double t, ConstVectorRef q,
                             ConstVectorRef v, ConstVectorRef u, const Stabilization& stabilization,
                             KktWorkspace& ws, OutputCheck check) {
  if (!allFinite(q) || !allFinite(v)) return nonFinite("state (q, v)", {});
  if (ws.nu > 0 && !allFinite(u)) return nonFinite("input u", {});

  switch (ws.mass_structure) {
    case MassStructure::ConstantDiagonal:
      if (ws.constant_mass_ready) break;
      [[fallthrough]];
    case MassStructure::Diagonal:
      system.massDiagonal(q, ws.mass_diagonal);
      if (ws.nq > 0 && (!(ws.mass_diagonal.minCoeff() > 0.0) || !ws.mass_diagonal.allFinite())) {
        return failedSolve(KktStatus::Singular, 0.0,
                           "mass matrix M is not positive definite (a diagonal entry is <= 0, not finite, or never written)");
      }
      ws.inverse_mass_diagonal = ws.mass_diagonal.cwiseInverse();
      ws.constant_mass_ready = true;
      break;
    case MassStructure::General:
      system.massMatrix(q, ws.M);
      if (!allFinite(ws.M)) return nonFiniteOutput("mass matrix M", {});
      break;
  }

  // One model call for h, φ, J, γ and ∂φ/∂t (ConstrainedSystem::evaluateTerms). ∂φ/∂t is asked
  // for on every solve: a model that supplies it but forgets to declare itself time-dependent
  // must not silently get a wrong φ̇. The sparse path's J goes through its own storage (an empty
  // ws.J asks for no dense J).
  // The sparse path asks for J's values in the same call, written where the constraint space
  // wants them (J's storage itself when the model lists its pattern in storage order).
  Eigen::Map<Vector> jacobian_values =
      ws.sparse ? ws.constraint_space->jacobianValueTarget() : Eigen::Map<Vector>(nullptr, 0);
  ModelTermsOutput terms{ws.h, ws.phi, ws.J, jacobian_values, ws.gamma, ws.phi_t};
  system.evaluateTerms(q, v, t, terms);
  // The finiteness carries (all_finite.hpp) of f, φ, γ and φ̇, gathered where they are written
  // or read anyway; J's finiteness comes separately (a pass over the dense J, or the sparse
  // path's evaluateJacobian()). One test instead of checkModelOutputs()'s five passes, which
  // then runs only to name the culprit.
  std::uint64_t carries = 0;
  double* force = ws.force.data();
  if (ws.nu > 0) {
    system.inputMap(q, t, ws.S);
    ws.force.noalias() = ws.S.transpose() * u;
    ws.force -= ws.h;
    for (int k = 0; k < ws.nq; ++k) carries |= finiteCarry(force[k]);
  } else {
    const double* h = ws.h.data();
    for (int k = 0; k < ws.nq; ++k) {  // f = −h, as ws.force = -ws.h
      force[k] = -h[k];
      carries |= finiteCarry(force[k]);
    }
  }
  if (ws.sparse) {
    ws.constraint_space->storeJacobianValues();
    ws.constraint_space->rowProducts(v, ws.phi_t, ws.phi_dot);
    carries |= sparseConstraintTargets(stabilization, ws);
    if (!carriesFinite(carries)) return checkModelOutputs(ws);
    if (stabilization.kind != Stabilization::Kind::Baumgarte) {
      subtractStabilizationTerms(stabilization, ws.phi, ws.phi_dot, ws.constraint_target);
    }
    return {};
  }
  if (!constraintRateSmall(v, ws)) {  // nc ≤ 4: the same sums without the kernel's setup
    ws.phi_dot.noalias() = ws.J * v;
    ws.phi_dot += ws.phi_t;
  }

  if (check == OutputCheck::Deferred) return {};  // the small Schur solve checks and forms the target
  const double* phi = ws.phi.data();
  const double* gamma = ws.gamma.data();
  const double* phi_dot = ws.phi_dot.data();
  double* target = ws.constraint_target.data();
  for (int i = 0; i < ws.nc; ++i) {  // −γ, as ws.constraint_target = -ws.gamma
    target[i] = -gamma[i];
    carries |= finiteCarry(phi[i]) | finiteCarry(gamma[i]) | finiteCarry(phi_dot[i]);
  }
  if (!carriesFinite(carries) || !allFinite(ws.J)) return checkModelOutputs(ws);

  subtractStabilizationTerms(stabilization, ws.phi, ws.phi_dot, ws.constraint_target);
  return {};
}

KktResult checkModelOutputs(const KktWorkspace& ws) {
  if (!allFinite(ws.force)) {  // coordinates, not constraint rows: named in the message
    const std::vector<int> coordinates = nonFiniteRows(ws.force);
    return nonFiniteOutput("generalized force Sᵀu − h (first at coordinate " + std::to_string(coordinates.front()) + ")", {});
  }
  if (!allFinite(ws.phi)) return nonFiniteOutput("constraint phi", nonFiniteRows(ws.phi));
  if (ws.sparse) {
    std::vector<int> rows = nonFiniteSparseRows(ws.constraint_space->J);
    if (!rows.empty()) return nonFiniteOutput("constraint Jacobian J", std::move(rows));
  }
  if (!ws.sparse && !allFinite(ws.J)) return nonFiniteOutput("constraint Jacobian J", nonFiniteRows(ws.J));
  if (!allFinite(ws.gamma)) return nonFiniteOutput("constraint bias gamma", nonFiniteRows(ws.gamma));
  if (!allFinite(ws.phi_dot)) return nonFiniteOutput("constraint rate phi_dot = J v + phi_t", nonFiniteRows(ws.phi_dot));
  return {};
}

KktResult failedSolve(KktStatus status, double rcond, std::string message, std::vector<int> rows) {
  KktResult result;
  result.status = status;
  result.rcond = rcond;
  result.offending_rows = std::move(rows);
  result.message = std::move(message);
  return result;
}

KktResult acceptedSolve(double rcond, bool rank_deficient, int rank, const KktWorkspace& ws) {
  if (!allFinite(ws.qdd) || !allFinite(ws.lambda)) {
    return failedSolve(KktStatus::NonFinite, rcond, "non-finite solution (q̈ or λ)", nonFiniteRows(ws.lambda));
  }
  KktResult result;
  result.rcond = rcond;
  result.rank_deficient = rank_deficient;
  result.rank = rank;
  return result;
}

KktResult finishSolve(double rcond, const KktOptions& options, const KktWorkspace& ws) {
  if (!(rcond >= options.min_rcond)) {  // NaN fails too
    return failedSolve(KktStatus::IllConditioned, rcond,
                       "KKT matrix ill-conditioned (rcond " + formatDouble(rcond) + " < min_rcond " +
                           formatDouble(options.min_rcond) + ")",
                       dependentConstraintRows(ws.J));
  }
  return acceptedSolve(rcond, false, -1, ws);
}

}  // namespace kktdae::detail
