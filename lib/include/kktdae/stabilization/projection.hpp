#pragma once
/// @file
/// Moving a state onto the constraint manifold: φ(q, t) = 0 and J q̇ + ∂φ/∂t = 0.

#include <Eigen/Cholesky>
#include <optional>
#include <string>

#include "kktdae/core/state.hpp"
#include "kktdae/kkt/kkt_options.hpp"
#include "kktdae/kkt/sparse_constraint_space.hpp"
#include "kktdae/linalg/semidefinite_pseudo_inverse.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

/// How projectToManifold() iterates: the Gauss–Newton budget and the tolerance on ‖φ‖∞.
struct ProjectionOptions {
  /// Gauss–Newton iterations allowed for the position projection (≥ 1).
  int max_iterations = 20;
  /// Converged when ‖φ‖∞ ≤ tolerance (> 0) [units of φ]. Also accepted: ‖φ‖∞ ≤ 1000·tolerance
  /// when a Gauss–Newton iteration no longer halves it, i.e. φ has reached the round-off floor
  /// of the model's arithmetic (an N-link chain's positions carry ~eps·N·L of round-off, so its
  /// φ = ½(|d|² − L²) cannot go below ~eps·N·L²: 2e-12 m² at 10,000 links). Gauss–Newton
  /// converges quadratically, so stalling above the floor does not happen on a consistent model.
  double tolerance = 1e-12;
  /// Throws std::invalid_argument naming the field: max_iterations ≥ 1, tolerance finite and > 0.
  void validate() const;
};

/// What projectToManifold() did.
struct ProjectionReport {
  bool converged = false;  ///< φ and the velocity constraint were met; `state` holds the projected state
  /// Converged at the round-off floor (see ProjectionOptions::tolerance), not below tolerance.
  bool roundoff_limited = false;
  int iterations = 0;                  ///< Gauss–Newton iterations taken
  double position_correction = 0.0;   ///< ‖q_after − q_before‖∞
  double velocity_correction = 0.0;   ///< ‖v_after − v_before‖∞
  ///@{
  double phi_before = 0.0, phi_after = 0.0;          ///< ‖φ‖∞ before and after
  ///@}
  ///@{
  double phi_dot_before = 0.0, phi_dot_after = 0.0;  ///< ‖J q̇ + ∂φ/∂t‖∞ before and after
  ///@}
  std::string message;  ///< why it failed; empty on success
};

/// Buffers for projectToManifold(), sized once for a system: a projection after every step then
/// allocates nothing.
struct ProjectionWorkspace {
  /// `kkt` chooses dense or sparse linear algebra as for the KKT solve (usesSparsePath(); throws
  /// std::invalid_argument where that does).
  explicit ProjectionWorkspace(const ConstrainedSystem& system, const KktOptions& kkt = {});
  bool sparse = false;  ///< the resolved path
  int nc = 0;  ///< constraint rows, the system's nc
  /// The run's KktOptions::rank_deficiency (dense path): under MinimumNorm or Regularize a
  /// numerically singular J M⁻¹ Jᵀ (Cholesky pivot ratio² ≤ rank_tolerance, not min_rcond) is
  /// handled by the policy instead of failing, so redundant constraints project. Merely
  /// ill-conditioned ones (near a kinematic singularity) keep the full Cholesky correction: a
  /// pseudo-inverse there would leave the constraint uncorrected along the vanishing direction
  /// (measured on the joint-coordinate four-bar: its branch error doubled).
  RankDeficiencyPolicy rank_deficiency = RankDeficiencyPolicy::Fail;
  ///@{
  /// The rank policy's thresholds: KktOptions::rank_tolerance and KktOptions::regularization.
  double rank_threshold = 1e-10, regularization = 1e-8;
  ///@}
  bool use_pseudo_inverse = false;  ///< the last factorization fell back on the pseudo-inverse
  SemidefinitePseudoInverse pseudo_inverse;  ///< (J M⁻¹ Jᵀ)⁺ (sized at first use)
  ///@{
  /// Scratch vectors: the iterate q, v, φ, ∂φ/∂t, diag(M) (diagonal models), the correction and the
  /// multiplier of the projection's linear solve.
  Vector q, v, phi, phi_t, mass_diagonal, correction, multiplier;
  ///@}
  ///@{
  Matrix M, J, inverse_mass_jt, schur;  ///< M, J, M⁻¹Jᵀ, J M⁻¹ Jᵀ: dense path only (empty on the sparse path)
  ///@}
  ///@{
  /// Cholesky factors of M (general models) and of J M⁻¹ Jᵀ, dense path.
  Eigen::LLT<Matrix> mass_llt, schur_llt;
  ///@}
  std::optional<SparseConstraintSpace> constraint_space;  ///< sparse path only
  ///@{
  Vector inverse_mass_diagonal, schur_diagonal;           ///< 1 / diag(M), diag(J M⁻¹ Jᵀ): sparse path only
  ///@}
};

/// Projects q onto φ(q, t) = 0 by Gauss–Newton in the mass metric,
/// q ← q − M⁻¹Jᵀ (J M⁻¹ Jᵀ)⁻¹ φ (the smallest kinetic-energy-weighted move), then q̇ onto
/// J q̇ = −∂φ/∂t by the same M-orthogonal projection (one linear step: exact). A general M that
/// fails its Cholesky factorization (positive definite only on null(J), as with Euler parameters)
/// is replaced by the metric M + JᵀJ, or by the identity where that fails too but M is positive
/// definite on null(J); an M that is not is refused ("not positive definite on null(J)"). On failure (no
/// convergence, singular J M⁻¹ Jᵀ, non-finite values) `state` is left unchanged and the report
/// says why. This overload allocates its buffers: for initial states.
ProjectionReport projectToManifold(const ConstrainedSystem& system, State& state,
                                   const ProjectionOptions& options = {});

/// The same with caller-owned buffers (no allocation): for projection after every step. The
/// report's message is filled only on failure.
ProjectionReport projectToManifold(const ConstrainedSystem& system, State& state, const ProjectionOptions& options,
                                   ProjectionWorkspace& ws);

}  // namespace kktdae
