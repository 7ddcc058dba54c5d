#pragma once
/// @file
/// The linear complementarity problem of frictionless contact:
///
///     find λ ≥ 0 with  w = W λ + b ≥ 0,  λᵀ w = 0,
///
/// solved by Lemke's complementary pivoting (covering vector of ones, lexicographic ratio test,
/// so degenerate problems do not cycle). For a symmetric positive semidefinite W (a Delassus
/// matrix J_N P J_Nᵀ) w is the same for every solution; when several λ solve the problem
/// (redundant contacts: a box on four corners) the solver returns the minimum-norm one, found by
/// the pseudo-inverse on the set of rows with w = 0, and says so in LcpResult::minimum_norm.

#include <string>

#include "kktdae/core/types.hpp"

namespace kktdae::contact {

/// The settings of solveLcp(): the pivot budget, the tolerance and whether to return the
/// minimum-norm λ.
struct LcpOptions {
  /// Pivots allowed before giving up, per unknown (Lemke needs at most a few per unknown on
  /// the problems here; the bound only stops a runaway).
  int max_pivots_per_unknown = 50;
  /// Relative tolerance of the pivots and of "w_i = 0" (scaled by ‖W‖∞ and ‖b‖∞).
  double tolerance = 1e-12;
  /// Replace Lemke's λ by the minimum-norm solution when it solves the problem as well.
  bool minimum_norm = true;

  /// Throws std::invalid_argument naming the field.
  void validate() const;
};

/// How solveLcp() ended.
enum class LcpStatus {
  NotRun,       ///< no LCP was solved (the default; a contact solve on an empty set of gaps keeps it)
  Solved,       ///< λ ≥ 0 ⊥ w ≥ 0 within the residual reported
  RayTermination,  ///< Lemke found no solution (cannot happen for a positive semidefinite W with a feasible b)
  PivotLimit,   ///< max_pivots_per_unknown · n pivots without an answer
};

/// "solved", "ray_termination", "pivot_limit", "not_run".
std::string toString(LcpStatus status);

/// What solveLcp() returns: λ, w, the complementarity residual and how the solve went.
struct LcpResult {
  LcpStatus status = LcpStatus::NotRun;  ///< Solved, or why not
  Vector lambda;       ///< λ [n]
  Vector w;            ///< W λ + b [n]
  double residual = 0.0;  ///< ‖min(λ, W λ + b)‖∞, the complementarity residual
  int pivots = 0;      ///< Lemke pivots made (0 when b ≥ 0 and λ = 0 solves the problem at once)
  bool minimum_norm = false;  ///< λ is the minimum-norm solution (always true when it is unique)
  /// True when λ solves the problem (status Solved).
  bool ok() const { return status == LcpStatus::Solved; }
};

/// Solves the LCP (W, b). Sizes: W n×n, b n (n ≥ 0; n = 0 is solved with nothing). Throws
/// std::invalid_argument for a non-square W, mismatched sizes, non-finite entries or bad options.
LcpResult solveLcp(ConstMatrixRef W, ConstVectorRef b, const LcpOptions& options = {});

/// ‖min(λ, W λ + b)‖∞ (also counting negative λ and negative w). Sizes as solveLcp().
double complementarityResidual(ConstMatrixRef W, ConstVectorRef b, ConstVectorRef lambda);

}  // namespace kktdae::contact
