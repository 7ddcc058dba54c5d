#pragma once
/// @file
/// Options of the acceleration (KKT) solve.

#include <string>
#include <string_view>

namespace kktdae {

/// Which linear system is factorized for (q̈, λ).
enum class KktForm {
  /// (J M⁻¹ Jᵀ) λ = −(J M⁻¹ f + γ + stabilization), q̈ = M⁻¹(f + Jᵀλ), f = Sᵀu − h.
  /// Cholesky of an nc×nc SPD matrix; wins when M⁻¹ is cheap (diagonal M) and nc ≪ nq.
  Schur,
  /// [M −Jᵀ; J 0][q̈; λ] = [f; −γ − stabilization], LU with partial pivoting of the
  /// (nq+nc)-square matrix. Needs no M⁻¹ and never squares J's scaling (better conditioned when
  /// J M⁻¹ Jᵀ is nearly singular); by flop count it costs more than Schur even for a dense M.
  Block,
};

/// "schur" / "block".
std::string_view toString(KktForm form);
/// Parses "schur" or "block"; throws std::invalid_argument listing the choices otherwise.
KktForm parseKktForm(std::string_view text);

/// Dense or sparse linear algebra for the solve.
enum class KktPath {
  /// Sparse when the model offers a sparse J (ConstrainedSystem::jacobianNonZeros() > 0) and a
  /// diagonal M, the policy is not MinimumNorm, and nq ≥ KktOptions::sparse_min_coordinates (12);
  /// dense otherwise.
  Auto,
  /// Dense matrices and factorizations: O(nc³ + nc² nq) per solve, fastest for small systems.
  Dense,
  /// Compressed J, A = J M⁻¹ Jᵀ assembled into a fixed pattern and factorized by a sparse LDLᵀ
  /// (Schur), or [M −Jᵀ; J R] factorized by KLU's sparse LU, refactorized with fixed pivots (Block):
  /// O(N) per solve for a chain. Needs a sparse J and a diagonal M; refuses MinimumNorm (it
  /// needs the dense eigen-decomposition). Its conditioning check is the factorization's pivot
  /// ratio min |d| / max |d| (Schur) or KLU's min |u_kk| / max |u_kk| (Block), compared with
  /// min_rcond: cheaper and cruder than the dense path's 1-norm estimate, and estimate_condition
  /// does not apply.
  Sparse,
};

/// "auto" / "dense" / "sparse".
std::string_view toString(KktPath path);
/// Parses the names above; throws std::invalid_argument listing the choices otherwise.
KktPath parseKktPath(std::string_view text);

/// What a solve does when J M⁻¹ Jᵀ is singular or too ill-conditioned (redundant constraints, a
/// mechanism at a kinematic singularity). docs/defining-models.md § "Redundant constraints and
/// singular configurations" shows what each choice gives.
enum class RankDeficiencyPolicy {
  /// Stop: the solve fails with KktStatus::Singular or IllConditioned and names the dependent
  /// rows (the run ends with RunStatus::KktFailure). The default: a rank-deficient J is usually
  /// a modelling error, and silently choosing a λ hides it.
  Fail,
  /// λ = A⁺ b, the minimum-norm solution of A λ = b, A = J M⁻¹ Jᵀ, from A's Cholesky with
  /// diagonal pivoting stopped where the remaining pivots are ≤ max(rank_tolerance, min_rcond) ·
  /// max diag(A) (SemidefinitePseudoInverse; about 1.2× a non-redundant solve's cost). For redundant but
  /// consistent constraints the motion and the total constraint force Jᵀλ are exactly those of
  /// the non-redundant model (λ itself is not unique; this is its shortest choice). Near a
  /// singular configuration it drops the force along the vanishing direction, so the constraint
  /// may drift there: pair it with Baumgarte or projection.
  MinimumNorm,
  /// λ from (A + diag(ε)) λ = b with εᵢ = regularization · Aᵢᵢ, each row against its own
  /// stiffness (a row whose Aᵢᵢ fell below regularization · max diag(A) has vanished and gets
  /// regularization · max diag(A); Block form: the matrix [M −Jᵀ; J diag(ε)]), as MuJoCo's
  /// constraint regularization R = (1 − d)/d · diag(A).
  /// λ → A⁺ b as ε → 0; the motion differs from the exact one by O(εᵢ Aᵢᵢ / smallest non-zero
  /// eigenvalue of A), which the row scaling keeps small where bodies differ in mass by orders of
  /// magnitude (a single ε relative to the largest Aᵢᵢ did not).
  Regularize,
};

/// "fail" / "minimum_norm" / "regularize".
std::string_view toString(RankDeficiencyPolicy policy);
/// Parses the names above; throws std::invalid_argument listing the choices otherwise.
RankDeficiencyPolicy parseRankDeficiencyPolicy(std::string_view text);

/// How the acceleration solve runs: its form and path, its conditioning threshold, and what it
/// does with redundant or ill-conditioned constraints.
struct KktOptions {
  KktForm form = KktForm::Schur;  ///< Schur complement or the block system
  /// A solve whose reciprocal condition estimate (1-norm, of the factorized matrix: J M⁻¹ Jᵀ for
  /// Schur, the block matrix for Block) falls below this fails with KktStatus::IllConditioned
  /// instead of returning digits that mean nothing. At 1e-13 about three significant digits of λ
  /// survive in double precision. A 1×1 Schur matrix always has rcond 1: a single constraint
  /// whose gradient vanishes is caught only when it vanishes exactly (Cholesky breakdown).
  /// On the sparse path the value compared is the pivot ratio instead (KktPath::Sparse).
  double min_rcond = 1e-13;
  /// Estimate rcond (LAPACK-style 1-norm estimator) on every solve. Off skips the estimate and
  /// keeps only breakdown and non-finite detection: for the tightest loops, once a model's
  /// conditioning is known.
  bool estimate_condition = true;

  /// What to do when the solve would fail as Singular or IllConditioned (see the enum). Only
  /// those two failures switch to the policy; NonFinite always fails.
  RankDeficiencyPolicy rank_deficiency = RankDeficiencyPolicy::Fail;
  /// MinimumNorm's numerical rank threshold on the pivots of J M⁻¹ Jᵀ's pivoted Cholesky, relative
  /// to its largest diagonal entry, in (0, 1); min_rcond when that is larger (what is too
  /// ill-conditioned to solve is not solved). 1e-10 keeps directions whose constraint-space
  /// stiffness is at least 1e-10 of the stiffest: on an exactly redundant model the spurious pivots are ~1e-16 relative,
  /// far below it. The dependent rows named in the report come from a column-pivoted QR of Jᵀ
  /// with the matching threshold √max(rank_tolerance, min_rcond) on J's singular values.
  double rank_tolerance = 1e-10;
  /// Regularize's εᵢ relative to its row's diagonal entry of J M⁻¹ Jᵀ, in (0, 1). Must exceed
  /// min_rcond, or the regularized system is as ill-conditioned as the one it replaces.
  double regularization = 1e-8;

  /// Dense or sparse solve (KktPath); Auto decides by the model and sparse_min_coordinates.
  KktPath path = KktPath::Auto;
  /// Auto's crossover: the smallest nq solved sparsely (≥ 1). Measured on chains
  /// (docs/performance.md, semi-implicit step): the dense path wins at 2 links (its small path,
  /// 0.25 vs 0.28 µs), the sparse one from 5 links on (0.53 vs 1.5 µs; the dense small path stops
  /// at 4 links). 12 (four 3D links) sits in that gap and keeps the seed chapter's 1–3-link runs
  /// on the dense arithmetic they were validated with.
  int sparse_min_coordinates = 12;

  /// Throws std::invalid_argument naming the bad field.
  void validate() const;
};

class ConstrainedSystem;
/// Whether `options` make the solve of `system` sparse (KktPath resolved). Throws
/// std::invalid_argument when KktPath::Sparse is forced on a model it cannot serve (no sparse J,
/// a general M) or together with RankDeficiencyPolicy::MinimumNorm.
bool usesSparsePath(const ConstrainedSystem& system, const KktOptions& options);

}  // namespace kktdae
