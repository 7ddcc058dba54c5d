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

/// Regularize's εᵢ = regularization · Aᵢᵢ from diag(A) into ws.rank_regularization (sized on the
/// way): each row regularized against its own stiffness, so that rows of light and heavy bodies
/// are perturbed alike (ε relative to the largest diagonal perturbed a heavy body's rows by orders
/// of magnitude more). A row with Aᵢᵢ ≤ regularization · maxⱼ Aⱼⱼ has (nearly) vanished and gets
/// regularization · maxⱼ Aⱼⱼ.
void regularizationOfRows(const KktOptions& options, ConstVectorRef a_diagonal, KktWorkspace& ws);
/// The same from a dense A's diagonal, without copying it.
void regularizationOfMatrixRows(const KktOptions& options, const Matrix& a, KktWorkspace& ws);

/// Corrections after a regularized solve. Without them the answer of (K + E) x = b leaves the
/// constraint rows a residual E λ (relative size `regularization`), an acceleration error that an
/// unstabilized run integrates into a drift of ½ E λ t² (1.9e-6 m over 5 s on a redundant
/// parallelogram, against minimum norm's 7e-11). Each correction solves with the same factors.
inline constexpr int kRegularizationRefinements = 2;

/// Iterative refinement of a regularized solve: x ← x + d₁ + d₂ with (K + E) d₁ = E x and
/// (K + E) dₖ₊₁ = E dₖ, the residual of the unregularized system after each step (b − K x = E dₖ).
/// On range(K) each step shrinks the error by εᵢ/(σ + εᵢ); on the null space of a redundant K the
/// corrections stay within the regularized λ's size, so the answer still lies near the shortest.
/// `epsilon` acts on the last epsilon.size() entries of `solution` (λ; q̈ comes first in block
/// form). `solve_into(rhs, step)` writes K_ε⁻¹ rhs into step. Allocates nothing.
template <class SolveInto>
void refineRegularized(SolveInto&& solve_into, ConstVectorRef epsilon, Eigen::Ref<Vector> solution, KktWorkspace& ws) {
  const Eigen::Index n = solution.size(), nc = epsilon.size(), offset = n - nc;
  auto rhs = ws.refinement_rhs.head(n);
  auto step = ws.refinement_step.head(n);
  step = solution;
  for (int k = 0; k < kRegularizationRefinements; ++k) {
    rhs.head(offset).setZero();
    rhs.tail(nc) = epsilon.cwiseProduct(step.tail(nc));
    solve_into(rhs, step);
    solution += step;
  }
}

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
