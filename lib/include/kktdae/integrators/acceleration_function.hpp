#pragma once
/// @file
/// q̈(t, q, q̇) of a constrained system: controller, model and KKT solve behind one call.

#include <functional>
#include <limits>
#include <vector>

#include "kktdae/kkt/solve_accelerations.hpp"

namespace kktdae {

/// Inputs u(t, q, q̇) [size nu]; an empty controller means u = 0.
using Controller = std::function<void(double t, ConstVectorRef q, ConstVectorRef v, VectorRef u)>;

/// The solves that KktOptions::rank_deficiency answered (singular or ill-conditioned J M⁻¹ Jᵀ).
struct RankDeficiencyLog {
  long solves = 0;     ///< how many (each one a counted warning)
  int min_rank = -1;   ///< the lowest numerical rank seen (MinimumNorm only; −1: not computed)
  double first_time = std::numeric_limits<double>::quiet_NaN();  ///< t of the first one
  double first_rcond = std::numeric_limits<double>::quiet_NaN(); ///< its reciprocal condition
  /// Rows a column-pivoted QR of Jᵀ (threshold √max(rank_tolerance, min_rcond)) found dependent at the first one;
  /// empty when J kept full rank there (ill-conditioned, not rank-deficient).
  std::vector<int> first_dependent_rows;
};

/// The right-hand side every integrator samples. Owns the KKT workspace (allocated once) and
/// counts solves. Not thread-safe: one per run; the system it refers to must outlive it.
class AccelerationFunction {
 public:
  /// Sizes the workspace for `system` (options.path resolved as KktWorkspace does) and picks the
  /// solve; `controller` gives the inputs u (empty: u = 0).
  AccelerationFunction(const ConstrainedSystem& system, Stabilization stabilization,
                       KktOptions options, Controller controller = {});

  /// Solves for q̈ at (t, q, v) into qdd (size nq); λ is then lambda(). The same solve as the
  /// overload below, its outcome returned by value.
  KktResult evaluate(double t, ConstVectorRef q, ConstVectorRef v, VectorRef qdd);

  /// Solves for q̈ at (t, q, v) into qdd (size nq), the outcome written into the caller's
  /// `result` (overwritten; reused from call to call, it costs no string or vector per solve,
  /// which the by-value overload constructs and destroys every time). Returns result.ok().
  /// For 1 ≤ nc ≤ 4 with a diagonal M and no inputs the whole solve runs in one function chosen
  /// at construction (docs/notes/performance-profile.md); the answer and the failures are the same as
  /// solveAccelerations()'s, to the bit. Throws std::invalid_argument for wrong sizes.
  bool evaluate(double t, ConstVectorRef q, ConstVectorRef v, VectorRef qdd, KktResult& result);

  /// Evaluates the controller and the model's terms (M, h, f, φ, J, γ, φ̇) at (t, q, v) into the
  /// workspace without solving: what a DAE residual needs. Counts no solve.
  KktResult evaluateTerms(double t, ConstVectorRef q, ConstVectorRef v);

  /// The constraint terms alone at (t, q, v): φ, J, ∂φ/∂t and φ̇ = J q̇ + ∂φ/∂t into the
  /// workspace, what a recorded state's ‖φ‖∞, ‖φ̇‖∞ and the divergence rule read (φ̇ to the bit
  /// as evaluateTerms() forms it). One model call; no controller, M, f or stabilization target,
  /// which an output that nobody solves at does not need (the adaptive drivers' outputs). The
  /// sparse path runs evaluateTerms(). Returns false, with `failure` saying what, when the
  /// state, φ or φ̇ is not finite (or, sparse, when evaluateTerms() fails). Counts no solve.
  bool evaluateConstraintTerms(double t, ConstVectorRef q, ConstVectorRef v, std::string& failure);

  const Vector& lambda() const { return workspace_.lambda; }  ///< λ of the last solve, nc
  /// The workspace: the last solve's q̈, λ and the model terms at its state.
  const KktWorkspace& workspace() const { return workspace_; }
  const ConstrainedSystem& system() const { return system_; }  ///< the model
  const Stabilization& stabilization() const { return stabilization_; }  ///< the run's stabilization
  long solves() const { return solves_; }  ///< KKT solves made so far
  /// The solves the rank-deficiency policy answered so far.
  const RankDeficiencyLog& rankDeficiency() const { return rank_deficiency_; }

 private:
  const ConstrainedSystem& system_;
  Stabilization stabilization_;
  KktOptions options_;
  Controller controller_;
  KktWorkspace workspace_;
  Vector u_;
  long solves_ = 0;
  RankDeficiencyLog rank_deficiency_;
  /// The small Schur path's whole solve for this run (lib/src/kkt/small_schur.hpp), or null.
  using WholeSolve = bool (*)(const ConstrainedSystem&, double, ConstVectorRef, ConstVectorRef, const Stabilization&,
                              const KktOptions&, KktWorkspace&, VectorRef, KktResult&);
  WholeSolve whole_solve_ = nullptr;

  void logRankDeficiency(double t, const KktResult& result);
};

}  // namespace kktdae
