#pragma once
/// @file
/// Preallocated buffers and factorizations for the acceleration solve of one system.

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <Eigen/QR>
#include <optional>

#include "kktdae/core/types.hpp"
#include "kktdae/kkt/kkt_options.hpp"
#include "kktdae/kkt/sparse_block_system.hpp"
#include "kktdae/linalg/semidefinite_pseudo_inverse.hpp"
#include "kktdae/kkt/sparse_constraint_space.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

/// Everything solveAccelerations() writes, sized for (nq, nc, nu): the buffers of the form in use
/// are sized at its first solve (warm-up), after which no solve allocates. After a solve, `qdd` and `lambda` hold the answer, and `phi`, `phi_dot`,
/// `J`, `gamma` the constraint quantities at the solved state (callers reuse them for metrics).
/// One workspace per thread; it belongs to one system's sizes.
///
/// On the sparse path (usesSparsePath()) the dense matrices (J, M, M⁻¹Jᵀ, J M⁻¹ Jᵀ, the block
/// matrix) stay empty: J lives in `constraint_space->J`, and memory is O(nnz), not O(nc·nq).
struct KktWorkspace {
  /// Sizes the buffers for `system` and resolves options.path (usesSparsePath(), which throws
  /// std::invalid_argument for a sparse path the model cannot take). The solve must then use
  /// options with the same path.
  explicit KktWorkspace(const ConstrainedSystem& system, const KktOptions& options = {});

  ///@{
  /// The system's sizes: coordinates, constraint rows, inputs.
  int nq = 0, nc = 0, nu = 0;
  ///@}
  MassStructure mass_structure = MassStructure::General;  ///< the system's massStructure()
  bool sparse = false;  ///< the resolved KktPath

  /// What `sparse` was resolved from: the system and the three options usesSparsePath() reads.
  /// solveAccelerations() resolves the path again (a model's virtual calls) only for a call whose
  /// system or options differ from these, instead of on every solve.
  struct ResolvedPath {
    const ConstrainedSystem* system = nullptr;  ///< the system (compared by address)
    KktPath path = KktPath::Auto;  ///< KktOptions::path
    RankDeficiencyPolicy rank_deficiency = RankDeficiencyPolicy::Fail;  ///< KktOptions::rank_deficiency
    int sparse_min_coordinates = 0;  ///< KktOptions::sparse_min_coordinates
    /// True when `system` and `options` are the ones `sparse` was resolved from.
    bool matches(const ConstrainedSystem& other, const KktOptions& options) const {
      return system == &other && path == options.path && rank_deficiency == options.rank_deficiency &&
             sparse_min_coordinates == options.sparse_min_coordinates;
    }
  };
  ResolvedPath resolved_from;  ///< the system and options of the last path resolution

  // --- results --------------------------------------------------------------------------
  Vector qdd;     ///< q̈, nq
  Vector lambda;  ///< λ, nc

  // --- model quantities at the solved state ---------------------------------------------
  Vector mass_diagonal;          ///< diag(M) for diagonal models, nq
  Vector inverse_mass_diagonal;  ///< 1 / diag(M), nq
  bool constant_mass_ready = false;  ///< ConstantDiagonal models: M cached after first solve
  Matrix M;          ///< nq×nq, general models only (diagonal ones use mass_diagonal)
  Vector h;          ///< nq
  Matrix S;          ///< nu×nq
  Vector force;      ///< f = Sᵀu − h, nq
  Vector phi;        ///< nc
  Vector phi_t;      ///< ∂φ/∂t, nc
  Vector phi_dot;    ///< J q̇ + ∂φ/∂t, nc
  Vector gamma;      ///< nc
  Matrix J;          ///< nc×nq, dense path only: empty on the sparse path (see jacobian())
  Vector constraint_target;  ///< −γ − 2αφ̇ − β²φ: the value J q̈ must take, nc
  Vector constraint_diagonal;  ///< diag(J M⁻¹ Jᵀ), soft constraints only, nc
  Vector regularization;       ///< soft constraints' R (diagonal), zeros otherwise, nc

  // --- Schur form ---------------------------------------------------------------------
  Eigen::LLT<Matrix> mass_llt;  ///< general M
  Matrix inverse_mass_jt;       ///< M⁻¹ Jᵀ, nq×nc
  Vector free_acceleration;     ///< M⁻¹ f, nq (dense path; the sparse Schur solve sums J M⁻¹ f without it)
  Matrix schur;                 ///< J M⁻¹ Jᵀ, nc×nc
  Vector schur_rhs;             ///< nc
  Eigen::LLT<Matrix> schur_llt;  ///< Cholesky factor of J M⁻¹ Jᵀ

  /// Three vectors for the allocation-free condition estimate of one factorization.
  struct ConditionWork {
    ///@{
    Vector x, y, z;  ///< the estimator's iterates, sized to the factorization
    ///@}
    /// Sizes x, y and z to n (allocates only when n changes).
    void ensureSize(Eigen::Index n);
  };
  ConditionWork schur_condition;  ///< for the condition estimate of J M⁻¹ Jᵀ's factor

  // --- block form (sized at the first block solve) -------------------------------------
  Matrix block;      ///< [M −Jᵀ; J 0], (nq+nc)²
  Vector block_rhs;  ///< [f; target]
  Vector block_solution;  ///< [q̈; λ]
  Eigen::PartialPivLU<Matrix> block_lu;  ///< LU factor of the block matrix
  bool block_constant_part_ready = false;  ///< `block` holds M and the zero corner (kept between solves for ConstantDiagonal models)
  ConditionWork block_condition;  ///< for the condition estimate of the block LU

  /// Sizes the block-form buffers (a no-op after the first call).
  void ensureBlockStorage();

  // --- block form with a general M that is singular (sized at the first such solve) ---------
  /// True after a block solve whose M failed its Cholesky factorization but is positive definite
  /// on null(J): the solve went on without M⁻¹ (what needs M⁻¹ refuses by name).
  bool mass_singular = false;
  Eigen::HouseholderQR<Matrix> jacobian_qr;  ///< QR of Jᵀ, nq×nc
  Matrix null_space;                         ///< its Q, nq×nq: the last nq − nc columns span null(J)
  Matrix null_space_mass;                    ///< M Z, nq×(nq − nc)
  Matrix reduced_mass;                       ///< Zᵀ M Z, (nq − nc)²
  Eigen::LLT<Matrix> reduced_llt;            ///< its Cholesky factor: M ≻ 0 on null(J)
  Vector householder_work;                   ///< nq

  /// Sizes the buffers above (a no-op after the first call).
  void ensureNullSpaceStorage();

  /// J at the solved state as a dense nc×nq matrix on either path (a copy of `J`, or the sparse
  /// path's compressed J expanded). Allocates: for tests, diagnostics and small models.
  Matrix jacobian() const;

  // --- rank-deficient solves (KktOptions::rank_deficiency; sized at the first such solve) ---
  SemidefinitePseudoInverse pseudo_inverse;  ///< MinimumNorm's (J M⁻¹ Jᵀ)⁺, nc×nc
  Vector rank_regularization;  ///< Regularize's εᵢ, one per row (regularizationOfRows()), nc
  Vector refinement_rhs;       ///< Regularize's refinement: E times the last correction, nq + nc
  Vector refinement_step;      ///< Regularize's refinement: the last correction, nq + nc

  /// Sizes the rank-deficient buffers (a no-op after the first call).
  void ensureRankDeficientStorage();

  // --- sparse path ------------------------------------------------------------------------
  std::optional<SparseConstraintSpace> constraint_space;  ///< J, A = J M⁻¹ Jᵀ, its LDLᵀ
  std::optional<SparseBlockSystem> sparse_block;          ///< built at the first block solve
};

}  // namespace kktdae
