#pragma once
/// @file
/// Baumgarte's discrete stability limit predicted from the trajectory itself: one step of a
/// fixed-step integrator linearized along the actual motion, restricted to perturbations normal
/// to the constraint manifold, and the growth of that normal part followed over the run
/// (docs/baumgarte.md §5 derives it).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kktdae/core/state.hpp"
#include "kktdae/integrators/integrator.hpp"
#include "kktdae/kkt/kkt_options.hpp"
#include "kktdae/stabilization/stabilization.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

/// Which step map is linearized. The reference trajectory is always the real model's; a variant
/// changes only the map whose normal block is measured, to attribute the departure from the
/// closed form to a term.
enum class NormalBlockVariant {
  Full,            ///< the real step: J turns with the motion inside the step, γ(q, q̇) in the loop
  FrozenJacobian,  ///< φ, J expanded to first order at the step's start (J constant in the step); γ kept
  NoGamma,         ///< real φ and J, γ set to 0 (its velocity-squared dependence leaves the loop)
  Linear,          ///< both: the linear constraint model, whose normal block is errorStepMatrix()
  Decoupled,       ///< Full with the blocks coupling different constraints zeroed
};

/// "full", "frozen_jacobian", "no_gamma", "linear", "decoupled".
std::string_view toString(NormalBlockVariant variant);

/// How normalErrorGrowth() runs and linearizes: the integrator, step, gain, run length and the step
/// map measured.
struct NormalGrowthOptions {
  Integrator integrator = Integrator::Rk4;  ///< fixed-step only
  double dt = 0.005;                        ///< step [s]
  /// Baumgarte (or None) for the reference run and the linearized step; Soft and projection are
  /// not steps of this form and are refused.
  Stabilization stabilization = Stabilization::critical(20.0);
  long steps = 4000;  ///< steps of the reference run (and normal blocks multiplied) ≥ 1
  /// Finite-difference step of the step-map linearization, relative to max(1, ‖(q, q̇)‖∞):
  /// central differences have truncation error O(h²) and rounding error O(ε/h); 1e-6 balances
  /// them near 1e-10 of the block's entries.
  double fd_step = 1e-6;
  NormalBlockVariant variant = NormalBlockVariant::Full;  ///< which step map is linearized
  /// Follow only the normal part (δe, δė) — the object — or, when false, every
  /// perturbation of (q, q̇): the full step Jacobian, whose extra exponents are the motion's own
  /// (docs/baumgarte.md §5 shows why RK4's limit lives there).
  bool normal_only = true;
  /// The reference run's Baumgarte gain; unset: options.stabilization itself (the motion at the
  /// linearized gain). A fixed, safe reference keeps the linearization defined above the limit,
  /// where the run at that gain would blow up.
  std::optional<Stabilization> reference_stabilization;
  KktOptions kkt;  ///< the KKT solve of the reference run and of the linearized steps
  /// Throws std::invalid_argument naming the field and value.
  void validate() const;
};

/// The growth of constraint-normal perturbations (δe, δė) along one run.
struct NormalGrowth {
  /// Largest Lyapunov exponent of the product of the normal blocks N_k [1/s]: the error's mean
  /// growth rate (< 0: perturbations off the manifold decay; > 0: they grow).
  double rate = 0.0;
  /// All 2·nc exponents [1/s], largest first (Benettin's QR method, re-orthonormalized every step).
  std::vector<double> exponents;
  /// Coupling between constraints: ‖off-diagonal 2×2 constraint blocks of N_k‖_F / ‖N_k − I‖_F,
  /// averaged over the run (mean_coupling), and its largest value (max_coupling); 0 for a single
  /// constraint.
  ///@{
  double mean_coupling = 0.0;
  double max_coupling = 0.0;
  ///@}
  /// The last step's normal block (2nc × 2nc, ordered (e_1…e_nc, ė_1…ė_nc)).
  Matrix last_block;
  long steps = 0;       ///< steps completed
  bool ok = false;      ///< false: a KKT solve failed or the state left the finite numbers
  std::string message;  ///< on failure: what, at which step and time
};

/// Runs `system` from `start` with options.stabilization and, at every step k, builds the normal
/// block N_k = C_{k+1} F_k L_k by central differences of the step map Φ along the lifted normal
/// directions (L_k: the kinetic-metric lift of (δe, δė) into (δq, δq̇); C_{k+1}: (φ, φ̇) after
/// the step), and multiplies them up with QR re-orthonormalization. Throws
/// std::invalid_argument for invalid options or a state of the wrong size.
NormalGrowth normalErrorGrowth(const ConstrainedSystem& system, const State& start, const NormalGrowthOptions& options);

/// How predictStabilityLimit() brackets and bisects dt·ω; the linearization settings are
/// NormalGrowthOptions'.
struct TrajectoryLimitOptions {
  Integrator integrator = Integrator::Rk4;  ///< fixed-step only
  double dt = 0.005;   ///< step [s]
  double zeta = 1.0;   ///< damping ratio ζ ≥ 0: α = ζω, β = ω
  double horizon = 20.0;  ///< reference run length [s] (rounded to whole steps)…
  long min_steps = 400;   ///< …but at least this many
  ///@{
  /// Bracket of dt·ω for the bisection; 0 picks 0.5× and 1.15× baumgarteStabilityLimit(ζ).
  double lower = 0.0, upper = 0.0;
  ///@}
  double tolerance = 1e-3;  ///< bisection stops when the bracket is narrower [dt·ω]
  double fd_step = 1e-6;    ///< see NormalGrowthOptions
  NormalBlockVariant variant = NormalBlockVariant::Full;  ///< see NormalGrowthOptions
  bool normal_only = true;  ///< see NormalGrowthOptions
  /// dt·ω of the reference run (critically damped at ζ); 0: each evaluation's own gain.
  double reference_dt_omega = 0.0;
  /// The bisection's target: the dt·ω where the rate crosses this [1/s]. 0 for the normal part;
  /// with normal_only = false, the motion's own largest exponent (measured at `lower`) plus a
  /// margin is the natural threshold.
  double rate_threshold = 0.0;
  KktOptions kkt;  ///< see NormalGrowthOptions
  /// Throws std::invalid_argument naming the field and value.
  void validate() const;
};

/// The stability limit predictStabilityLimit() found, with its final bracket and the closed form.
struct TrajectoryLimit {
  /// The dt·ω where the normal growth rate crosses zero (midpoint of the final bracket); NaN
  /// when not found.
  double limit = 0.0;
  bool found = false;  ///< the bisection bracketed a crossing and narrowed it
  /// When not found: why ("unstable at every gain down to dt*omega = 0.5", "stable up to …").
  std::string message;
  double closed_form = 0.0;       ///< baumgarteStabilityLimit(integrator, ζ), for comparison
  ///@{
  double lower = 0.0, upper = 0.0;  ///< the final bracket
  ///@}
  ///@{
  double rate_at_lower = 0.0, rate_at_upper = 0.0;  ///< growth rates at the initial bracket's ends [1/s]
  ///@}
  double coupling_at_limit = 0.0;   ///< mean_coupling of the run at the final bracket's lower end
  int evaluations = 0;              ///< reference runs made
};

/// Bisection on the sign of normalErrorGrowth().rate over dt·ω at fixed ζ (one reference run
/// per evaluation, from `start`, with that gain). Assumes one crossing in the bracket: the rate
/// at `lower` must be negative and at `upper` positive, otherwise the result says which end
/// failed. Throws std::invalid_argument for invalid options.
TrajectoryLimit predictStabilityLimit(const ConstrainedSystem& system, const State& start,
                                      const TrajectoryLimitOptions& options);

}  // namespace kktdae
