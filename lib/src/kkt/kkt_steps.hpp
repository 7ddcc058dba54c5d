#pragma once
// The stages of solveAccelerations (internal header). Each works on the workspace in place.

#include "kktdae/kkt/kkt_options.hpp"
#include "kktdae/kkt/kkt_result.hpp"
#include "kktdae/kkt/kkt_workspace.hpp"
#include "kktdae/stabilization/stabilization.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae::detail {

/// Who checks the model's outputs (f, φ, J, γ, φ̇) for NaN/Inf.
enum class OutputCheck {
  Now,       ///< evaluateModelTerms(), one pass each (checkModelOutputs())
  Deferred,  ///< the solve that reads them all anyway (only solveSchurSmall(): smallSchurTakes()),
             ///< which then also forms constraint_target
};

/// Fills M (or its diagonal), h, S, f = Sᵀu − h, φ, ∂φ/∂t, J, γ and φ̇ at (t, q, v); then
/// constraint_target = −γ − 2αφ̇ − β²φ. Fails with NonFinite if the state, the input u or M is
/// not finite, and, with OutputCheck::Now, if anything else the model returned is not.
KktResult evaluateModelTerms(const ConstrainedSystem& system, double t, ConstVectorRef q,
                             ConstVectorRef v, ConstVectorRef u, const Stabilization& stabilization,
                             KktWorkspace& ws, OutputCheck check = OutputCheck::Now);

/// The NonFinite failure naming the first of f, φ, J, γ, φ̇ (in that order) in `ws` that holds NaN
/// or ±∞, with its rows (the sparse path's J in its compressed storage); Ok when all are finite.
/// Runs only after a cheaper test failed, to name the culprit.
KktResult checkModelOutputs(const KktWorkspace& ws);

/// Schur-complement solve on evaluated terms; writes ws.lambda and ws.qdd.
KktResult solveSchur(const Stabilization& stabilization, const KktOptions& options, KktWorkspace& ws);

/// Block (full KKT) solve on evaluated terms; writes ws.lambda and ws.qdd.
KktResult solveBlock(const Stabilization& stabilization, const KktOptions& options, KktWorkspace& ws);

/// Forms what the Schur form factorizes: M⁻¹Jᵀ, M⁻¹f, A = J M⁻¹ Jᵀ (+ R for soft constraints)
/// and b = −(J M⁻¹ f + γ) − stabilization, in ws.inverse_mass_jt, free_acceleration, schur and
/// schur_rhs. Returns false when M is not positive definite.
bool formConstraintSpaceSystem(const Stabilization& stabilization, KktWorkspace& ws);

/// q̈ = M⁻¹(f + Jᵀλ) from ws.lambda and the terms formConstraintSpaceSystem() left.
void accelerationsFromMultipliers(KktWorkspace& ws);

/// Solves A λ = b (formed by formConstraintSpaceSystem) by options.rank_deficiency (MinimumNorm
/// or Regularize) after the plain solve found A singular (trigger_rcond 0) or ill-conditioned;
/// the result is marked rank_deficient. Overwrites ws.schur when regularizing.
KktResult solveRankDeficientConstraintSpace(const KktOptions& options, double trigger_rcond, KktWorkspace& ws);

/// The sparse path's Schur and block solves (ws.sparse): same contract as the dense ones.
KktResult solveSchurSparse(const Stabilization& stabilization, const KktOptions& options, KktWorkspace& ws);
KktResult solveBlockSparse(const Stabilization& stabilization, const KktOptions& options, KktWorkspace& ws);

/// A failed solve: status, rcond, message and the constraint rows to blame.
KktResult failedSolve(KktStatus status, double rcond, std::string message, std::vector<int> rows = {});

/// The ending of a solve whose conditioning is already settled: NonFinite (naming the rows of λ)
/// if q̈ or λ is not finite, else Ok with rcond, and rank_deficient / rank as given (a policy's
/// answer).
KktResult acceptedSolve(double rcond, bool rank_deficient, int rank, const KktWorkspace& ws);

/// Shared ending: condition check, then acceptedSolve().
KktResult finishSolve(double rcond, const KktOptions& options, const KktWorkspace& ws);

}  // namespace kktdae::detail
