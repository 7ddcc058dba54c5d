#pragma once
/// @file
/// When a run counts as diverged: a finite state that no longer means anything.
///
/// A blown-up run stays finite for a long time (a 5-link chain under semi-implicit Euler reached
/// link errors of 1e57 m with every number finite), so the non-finite check alone lets it end as
/// a success. The rule compares the state with the scale of the start, in the state's own units:
///
///   Q = max(‖q₀‖∞, min_scale)                                   (the configuration's size)
///   d = maxᵢ |φᵢ(q, t)| / ‖∇φᵢ(q, t)‖₂                          (first-order distance from φ = 0)
///
/// and the run has diverged when d > manifold_factor·Q (it is further from the constraint manifold
/// than the whole configuration is large), when ‖q‖∞ > state_growth·Q, or when ‖φ‖∞ exceeds the
/// absolute max_phi_inf. d is in the units of q whatever units φ has (m² for the chains' and the
/// circle's ½(|d|² − L²)), which is what makes one default fit every model: seed 000's undamped
/// run drifts to d ≈ 0.33 m with Q = 2 m and stays a success.

#include <cmath>
#include <limits>
#include <string>

#include "kktdae/core/types.hpp"
#include "kktdae/kkt/kkt_workspace.hpp"

namespace kktdae {

struct DivergenceOptions {
  /// Off: only NaN/Inf ends a run (the behaviour before this rule existed).
  bool enabled = true;
  /// Diverged when the distance from the manifold exceeds this multiple of Q (> 0).
  double manifold_factor = 1.0;
  /// Diverged when ‖q‖∞ exceeds this multiple of Q (> 1). Large, because coordinates such as a
  /// crank angle grow without bound in a healthy run.
  double state_growth = 1e8;
  /// Floor of the configuration scale Q, in the units of q (> 0): a model that starts at q = 0
  /// still gets a scale. Set it to the model's size if that is far from 1.
  double min_scale = 1.0;
  /// Diverged when ‖φ‖∞ exceeds this, in φ's own units (> 0; ∞, the default, switches it off).
  double max_phi_inf = std::numeric_limits<double>::infinity();

  /// Throws std::invalid_argument naming the field and value.
  void validate() const;
};

/// Which rule of DivergenceRule::test() fired, in the order they are tested.
enum class DivergenceVerdict {
  Plausible,    ///< no rule fired
  StateGrowth,  ///< ‖q‖∞ > state_growth·Q
  PhiAboveMax,  ///< ‖φ‖∞ > max_phi_inf
  OffManifold,  ///< maxᵢ |φᵢ| / ‖∇φᵢ‖₂ > manifold_factor·Q
};

/// The divergence test of one run: Q fixed at the start, then one check per state.
class DivergenceRule {
 public:
  DivergenceRule(const DivergenceOptions& options, ConstVectorRef q0);

  /// The verdict on the state at (q, ws), without words: what a driver calls after every step.
  /// `ws` holds φ and J at q (a solved or evaluated KKT workspace). O(nnz(J)), allocates
  /// nothing, never throws. Decides exactly as check() does.
  DivergenceVerdict test(ConstVectorRef q, const KktWorkspace& ws) const;
  /// test() with ‖q‖∞ = q_inf already known (a driver has it from its finiteness pass over q).
  /// Inline for the usual case (every row of a dense J settled by its first entry, see
  /// divergence.cpp): at a two-link chain the call cost a third of the test.
  DivergenceVerdict test(double q_inf, const KktWorkspace& ws) const;

  /// The words for a verdict test() returned on the same (q, ws): which rule fired, with the
  /// numbers ("distance from the manifold 3.1 (row 2) > 1 × scale 2"); empty for Plausible.
  std::string describe(DivergenceVerdict verdict, ConstVectorRef q, const KktWorkspace& ws) const;

  /// describe(test(q, ws), q, ws) in one call (empty: plausible); drivers call test(), which builds no string.
  std::string check(ConstVectorRef q, const KktWorkspace& ws) const;

  double scale() const { return scale_; }

 private:
  /// test()'s constraint rules from row `first_row` on (the rows before it are within the
  /// manifold limit), with max_phi_inf's rule first when first_row is 0.
  DivergenceVerdict testConstraints(const KktWorkspace& ws, Eigen::Index first_row) const;

  DivergenceOptions options_;
  double scale_ = 1.0;
  // The thresholds test() compares with, multiplied out once (the same products check() always formed).
  double state_limit_ = 0.0;     // state_growth·Q
  double manifold_limit_ = 0.0;  // manifold_factor·Q
  double half_manifold_limit_ = 0.0;  // ½·manifold_factor·Q: the one-entry bound (divergence.cpp)
  bool inline_rows_ = false;  // enabled and no max_phi_inf rule: the inline path may settle rows
};

inline DivergenceVerdict DivergenceRule::test(double q_inf, const KktWorkspace& ws) const {
  if (!options_.enabled) return DivergenceVerdict::Plausible;
  if (q_inf > state_limit_) return DivergenceVerdict::StateGrowth;
  if (ws.nc == 0) return DivergenceVerdict::Plausible;
  if (!inline_rows_ || ws.sparse || ws.J.cols() == 0) return testConstraints(ws, 0);
  // Row i's first entry is J.data()[i] (column-major): |φᵢ| ≤ ½·limit·|Jᵢ₀| settles it.
  const double* const first = ws.J.data();
  for (Eigen::Index i = 0; i < ws.nc; ++i) {
    if (!(std::abs(ws.phi[i]) <= half_manifold_limit_ * std::abs(first[i]))) return testConstraints(ws, i);
  }
  return DivergenceVerdict::Plausible;
}

}  // namespace kktdae
