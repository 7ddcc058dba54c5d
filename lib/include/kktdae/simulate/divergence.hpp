#pragma once
/// @file
/// When a run counts as diverged: a finite state that no longer means anything.
///
/// A blown-up run stays finite for a long time (a 5-link chain under semi-implicit Euler reached
/// link errors of 1e57 m with every number finite), so the non-finite check alone lets it end as
/// a success. And a method that puts every state back on φ = 0 (projection, RATTLE, the index-3
/// generalized-α) can blow up on the manifold: its velocities and energy run away while φ stays
/// at round-off. The rule compares the state with the scales of the start, in the state's own units:
///
///   Q = max(‖q₀‖∞, min_scale)                                   (the configuration's size)
///   E_s = max(energyScale(), |T₀| + |V₀|)                       (the energy's size)
///   V = max(‖q̇₀‖₂, √(2 E_s / m_min), min_velocity_scale)       (the speed's size)
///   d = maxᵢ |φᵢ(q, t)| / ‖∇φᵢ(q, t)‖₂                          (first-order distance from φ = 0)
///   ḋ = maxᵢ |φ̇ᵢ| / ‖∇φᵢ(q, t)‖₂,  φ̇ = J q̇ + ∂φ/∂t             (the rate of leaving φ = 0)
///
/// (m_min is the smallest positive diagonal entry of M(q₀): the speed the energy scale can give
/// the lightest coordinate). The run has diverged when d > manifold_factor·Q (it is further from
/// the constraint manifold than the whole configuration is large), when ḋ > velocity_factor·V
/// (it leaves the manifold faster than anything in the model moves), when ‖q‖∞ > state_growth·Q,
/// when ‖φ‖∞ exceeds the absolute max_phi_inf, or, for a model that declares its energy a first
/// integral (ConstrainedSystem::isConservative(), no controller), when |E − E₀| > energy_factor·E_s.
/// d and ḋ are in the units of q and q̇ whatever units φ has (m² for the chains' and the circle's
/// ½(|d|² − L²)), which is what makes one default fit every model: seed 000's undamped run drifts
/// to d ≈ 0.33 m with Q = 2 m and its energy by 0.43 E_s, and stays a success.

#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "kktdae/core/state.hpp"
#include "kktdae/core/types.hpp"
#include "kktdae/kkt/kkt_workspace.hpp"

namespace kktdae {

class ConstrainedSystem;

/// The factors of the divergence rule (this file's description) and whether it is on.
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
  /// Diverged when the rate of leaving the manifold ḋ exceeds this multiple of the velocity scale
  /// V (> 0; ∞ switches the rule off). Ten, because V bounds a healthy run's speeds loosely.
  double velocity_factor = 10.0;
  /// Floor of the velocity scale V, in the units of q̇ (> 0): a model that starts at rest with no
  /// energy scale still gets one.
  double min_velocity_scale = 1.0;
  /// For models whose isConservative() is true, run without a controller: diverged when the total
  /// energy moved by more than this multiple of E_s (> 0; ∞ switches the rule off). A runaway
  /// grows without bound and passes any factor soon after the first; an inaccurate run that is not
  /// one can settle far from E₀ (seed 000's modes move by up to 0.43 E_s over 20 s, its Baumgarte
  /// mode settles at 10.4 E_s after 100 s, its soft mode reaches 20 E_s in 500 s), hence the margin.
  double energy_factor = 100.0;
  /// Fixed-step runs test the two runaway rules (velocity and energy) every this many steps and
  /// at the last one (≥ 1): a runaway grows over many steps, and the rules' pass over φ̇ and the
  /// model's two energy calls are then a small part of a step (at a two-link chain, testing them
  /// every step cost 5 % of the step). Adaptive runs test them at every output.
  long runaway_check_every = 16;

  /// Throws std::invalid_argument naming the field and value.
  void validate() const;
};

/// Which rule of DivergenceRule fired, in the order they are tested.
enum class DivergenceVerdict {
  Plausible,    ///< no rule fired
  StateGrowth,  ///< ‖q‖∞ > state_growth·Q
  PhiAboveMax,  ///< ‖φ‖∞ > max_phi_inf
  OffManifold,  ///< maxᵢ |φᵢ| / ‖∇φᵢ‖₂ > manifold_factor·Q
  LeavingManifold,  ///< maxᵢ |φ̇ᵢ| / ‖∇φᵢ‖₂ > velocity_factor·V (testRunaway())
  EnergyDrift,      ///< |E − E₀| > energy_factor·E_s (testRunaway())
};

/// The divergence test of one run: the scales fixed at the start, then the position rules after
/// every step (test()) and the runaway rules every few (testRunaway()).
class DivergenceRule {
 public:
  /// The position rules only (Q from q0; no velocity or energy rule): what a caller without the
  /// model and the initial velocity gets.
  DivergenceRule(const DivergenceOptions& options, ConstVectorRef q0);
  /// Every rule, with the scales of `system` at `initial`. `energy_rule` false leaves the energy
  /// rule out whatever the model says (a controller feeds energy in). Evaluates M, T and V once.
  DivergenceRule(const DivergenceOptions& options, const ConstrainedSystem& system, const State& initial,
                 bool energy_rule = true);

  /// The position rules' verdict on the state at (q, ws), without words: what a driver calls
  /// after every step. `ws` holds φ and J at q (a solved or evaluated KKT workspace). O(nnz(J)),
  /// allocates nothing, never throws. Decides exactly as check() does.
  DivergenceVerdict test(ConstVectorRef q, const KktWorkspace& ws) const;
  /// test() with ‖q‖∞ = q_inf already known (a driver has it from its finiteness pass over q).
  /// Inline for the usual case (every row of a dense J settled by its first entry, see
  /// divergence.cpp): at a two-link chain the call cost a third of the test.
  DivergenceVerdict test(double q_inf, const KktWorkspace& ws) const;

  /// The runaway rules at (t, q, q̇), `ws` holding φ̇ and J there: LeavingManifold when
  /// ḋ > velocity_factor·V, else EnergyDrift when the energy rule is on and |E − E₀| >
  /// energy_factor·E_s (a NaN energy included), else Plausible. O(nnz(J)) and two model calls;
  /// allocates nothing; may throw what the model's energy methods throw.
  DivergenceVerdict testRunaway(const ConstrainedSystem& system, double t, ConstVectorRef q, ConstVectorRef v,
                                const KktWorkspace& ws) const;
  /// True when the energy rule is on (enabled, a conservative model, no controller, E_s > 0).
  bool testsEnergy() const { return energy_limit_ < std::numeric_limits<double>::infinity(); }

  /// The words for a verdict test() or testRunaway() returned on the same (q, ws): which rule
  /// fired, with the numbers ("distance from the manifold 3.1 (row 2) > 1 × scale 2"); empty for
  /// Plausible. EnergyDrift needs describeEnergy().
  std::string describe(DivergenceVerdict verdict, ConstVectorRef q, const KktWorkspace& ws) const;
  /// The words for EnergyDrift at (t, q, q̇): E, E₀, the drift and the limit.
  std::string describeEnergy(const ConstrainedSystem& system, double t, ConstVectorRef q, ConstVectorRef v) const;

  /// describe(test(q, ws), q, ws) in one call (empty: plausible); drivers call test(), which builds no string.
  std::string check(ConstVectorRef q, const KktWorkspace& ws) const;

  /// d = maxᵢ |φᵢ| / ‖∇φᵢ‖₂ over the rows with a non-zero gradient, and its row (−1: none).
  static std::pair<double, int> manifoldDistance(const KktWorkspace& ws);
  /// ḋ = maxᵢ |φ̇ᵢ| / ‖∇φᵢ‖₂ over the rows with a non-zero gradient, and its row (−1: none).
  static std::pair<double, int> manifoldRate(const KktWorkspace& ws);

  double scale() const { return scale_; }  ///< Q, the configuration's scale
  /// V, the velocity scale (∞ with the position-only constructor).
  double velocityScale() const { return velocity_scale_; }
  /// E_s, the energy scale of V and of the energy rule (0 with the position-only constructor).
  double energyScale() const { return energy_scale_; }
  /// E₀, the total energy at the start (0 where the energy rule is off).
  double initialEnergy() const { return initial_energy_; }

 private:
  /// test()'s constraint rules from row `first_row` on (the rows before it are within the
  /// manifold limit), with max_phi_inf's rule first when first_row is 0.
  DivergenceVerdict testConstraints(const KktWorkspace& ws, Eigen::Index first_row) const;
  void setLimits();

  DivergenceOptions options_;
  double scale_ = 1.0;
  double velocity_scale_ = std::numeric_limits<double>::infinity();
  double energy_scale_ = 0.0;
  double initial_energy_ = 0.0;
  // The thresholds the tests compare with, multiplied out once (the same products check() always formed).
  double state_limit_ = 0.0;     // state_growth·Q
  double manifold_limit_ = 0.0;  // manifold_factor·Q
  double half_manifold_limit_ = 0.0;  // ½·manifold_factor·Q: the one-entry bound (divergence.cpp)
  double rate_limit_ = std::numeric_limits<double>::infinity();    // velocity_factor·V
  double energy_limit_ = std::numeric_limits<double>::infinity();  // energy_factor·E_s
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
