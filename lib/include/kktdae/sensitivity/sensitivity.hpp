#pragma once
/// @file
/// Forward sensitivities of a constrained motion with respect to a model's parameters,
///
///     s(t) = ∂y(t)/∂p,   y = (q, v, λ)            (n_y = 2nq + nc rows, np columns)
///     G = ∫_{t0}^{t1} g(t, q, v, λ, p) dt,   dG/dp
///
/// by IDAS on the DAE differentiated along p (ida_ggl, ida_index1: the sensitivity residual
/// F_y s + F_ẏ ṡ + F_p from the model's exact tangent and its hand-written ∂/∂p,
/// ParametricSystem), by CVODES on the stabilized index-1 ODE y = (q, q̇), ẏ = (q̇, q̈)
/// (cvode_bdf, cvode_adams: ṡ = (s_q̇, δq̈), δq̈ from the KKT system differentiated along the
/// column, exact as well), or by central differences of 2·np plain runs (the check, and the
/// baseline). docs/sensitivities.md says what each costs.
///
/// The λ rows of y and s are the multiplier a run reports, as simulate() chooses it
/// (SimulationOptions::observed_multiplier): by default the physical λ at the state (the KKT
/// solve at (t, q, q̇) without stabilization feedback) and its total derivative
/// dλ/dp = ∂λ/∂q s_q + ∂λ/∂q̇ s_q̇ + ∂λ/∂p from the same KKT system differentiated; with
/// ObservedMultiplier::Method, IDAS's algebraic λ and its s_λ, or the stabilized solve's λ (its
/// feedback 2αφ̇ + β²φ included) on CVODES. The integrand g receives that same λ.
///
/// The sensitivities (and dG/dp) always join the local error test, with the state's tolerances
/// divided by each |pᵢ| (1 for pᵢ = 0). Leaving them out is not offered: with IDAS's staggered
/// corrector their Newton iteration is then left unconverged (slider-crank, rtol 1e-10: dG/dk
/// off by 15 % on ida_index1 and by a factor 5e3 on ida_ggl), and the simultaneous one failed
/// to converge on ida_index1. CVODES's correctors are staggered too.

#include <functional>
#include <string>
#include <vector>

#include "kktdae/core/state.hpp"
#include "kktdae/core/types.hpp"
#include "kktdae/sensitivity/parametric_system.hpp"
#include "kktdae/simulate/simulate.hpp"

namespace kktdae {

/// How the sensitivities are computed.
enum class SensitivityMethod {
  Forward,             ///< "forward": IDAS forward sensitivities, one run with np sensitivity systems
  CentralDifferences,  ///< "fd": (y(p + δeᵢ) − y(p − δeᵢ)) / 2δ from 2·np plain runs
};
/// "forward" or "fd": the names the app's --method takes and metrics.json writes.
std::string_view toString(SensitivityMethod method);
/// "forward" or "fd"; throws std::invalid_argument naming the text and the choices.
SensitivityMethod parseSensitivityMethod(const std::string& text);

/// The integrand g(t, q, v, λ, p) of G = ∫ g dt and its gradient. Both functions are required.
/// λ is the multiplier the result's λ rows hold (SensitivityResult::observed_multiplier); when
/// g_λ ≠ 0, dG/dp uses that λ's exact sensitivity.
struct Integrand {
  /// g at (t, q, v, λ, p). Sizes: q, v nq; lambda nc; p np.
  std::function<double(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda, ConstVectorRef p)>
      value;
  /// ∂g/∂q, ∂g/∂v, ∂g/∂λ, ∂g/∂p at the same point into g_q, g_v (nq), g_lambda (nc), g_p (np).
  std::function<void(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda, ConstVectorRef p,
                     VectorRef g_q, VectorRef g_v, VectorRef g_lambda, VectorRef g_p)>
      gradient;
};

/// g = ½ q̇ᵀ M q̇ for a model with constant M that does not depend on p (MassStructure::
/// ConstantDiagonal): the kinetic energy, G its time integral. Throws std::invalid_argument for a
/// model whose M may vary.
Integrand kineticEnergyIntegrand(const ConstrainedSystem& system);

/// g = ½ q̇ᵀ M(q, p) q̇ for a parametric model, with M at the parameters p the integrand is
/// called with (so that dG/dp counts ½ q̇ᵀ (∂M/∂p) q̇ for masses and inertias among the
/// parameters): g_v = M q̇, g_p = ½ q̇ᵀ (D(q, q̇, q̇) − D(q, q̇, 0)) from dynamicsParameterJacobian()
/// (D is affine in its acceleration argument), and g_q = ½ q̇ᵀ δM(eₖ) q̇ from nq tangents when
/// M is not constant. The integrand holds its own copy of the model (one more, made by
/// withParameterValues(), while a central-difference run's p differs). Overload resolution picks
/// this one for every ParametricSystem.
Integrand kineticEnergyIntegrand(const ParametricSystem& system);

/// A direction (δq₀, δq̇₀) of the initial state to differentiate along. The column of s it gives
/// starts at its projection onto the tangent spaces of both constraint manifolds at the start,
/// in the mass metric as projectToManifold() projects,
///     δq₀ ← δq₀ − M⁻¹Jᵀ(J M⁻¹Jᵀ)⁻¹ J δq₀,   δq̇₀ ← δq̇₀ − M⁻¹Jᵀ(J M⁻¹Jᵀ)⁻¹ (J δq̇₀ + δJ q̇₀ + δ(∂φ/∂t)),
/// so that the perturbed start stays consistent to first order (a perturbation off the manifold
/// has no consistent motion to differentiate).
struct InitialStateDirection {
  std::string name;  ///< the column's name, e.g. "crank_angle0"; non-empty, distinct from every other
  Vector dq;         ///< δq₀, nq
  Vector dv;         ///< δq̇₀, nq
};

/// What to compute besides SimulationOptions' run (integrator ida_ggl, ida_index1, cvode_bdf or
/// cvode_adams; rtol, atol, max_steps from its AdaptiveOptions; outputs on its dt grid up to its
/// end; its stabilization: none or Baumgarte, which cvode_* and ida_index1 integrate).
struct SensitivityOptions {
  SensitivityMethod method = SensitivityMethod::Forward;  ///< forward sensitivities or central differences
  /// The parameters to differentiate with respect to, by name, in the columns' order (empty, the
  /// default: every parameter the model declares). Each column costs a linear solve per
  /// sensitivity residual (two runs by central differences): ask for what you need. The run is
  /// that of a ParameterSelection (parameter_selection.hpp); the integrand is still called with
  /// the model's whole p and its g_p is read at the chosen entries. A name the model does not
  /// declare, or a repeated one, throws std::invalid_argument listing the declared names.
  std::vector<std::string> parameters;
  /// G = ∫ g dt over the run, with dG/dp. Empty functions: no quadrature.
  Integrand integrand;
  /// IDAS runs: the absolute tolerance [their units] of λ (and GGL's μ) in the Newton convergence test of
  /// every run here (they stay out of the error test). 0, the default, uses max(adaptive.atol,
  /// 1e-11). Plain ida_ggl runs weigh them with adaptive.ggl_multiplier_atol (1 by default)
  /// instead; that costs s digits and steps, since s_q̇ depends on s_λ directly (slider-crank,
  /// rtol = atol = 1e-10: dG/dk 1.0e-7 off in 1823 steps with weight 1, 2.7e-9 in 933 with
  /// 1e-10). The floor: GGL's multipliers are conditioned like 1/h² in the first small steps,
  /// and rounding keeps them from a tighter test (rtol = atol = 1e-12 with weight 1e-12:
  /// IDA_CONV_FAIL at t = 4e-6 s; 1e-11 converges at rtol 1e-12 and 1e-13).
  double multiplier_atol = 0.0;
  /// Central differences only: the step δᵢ = difference_step · max(|pᵢ|, 1). 0 (the default)
  /// chooses ∛rtol, which balances the O(δ²) truncation against the runs' O(rtol/δ) noise.
  double difference_step = 0.0;
  /// Directions of the initial state to differentiate along, besides the parameters: their
  /// columns follow the np parameters' in s and dG/dp (SensitivityResult::column_names).
  std::vector<InitialStateDirection> initial_state;
  /// How the given start moves with the parameters, ∂(q₀; q̇₀)/∂p, 2nq × np (np: the chosen
  /// parameters when `parameters` names some, in its order; empty, the default:
  /// it does not). Give it when the start is built from p — a pendulum released at an angle sits
  /// at L (sin θ₀, −cos θ₀), so ∂q₀/∂L = (sin θ₀, −cos θ₀). Column i is made consistent to first
  /// order as an initial-state direction is, but onto the manifolds of the model at p + δ eᵢ:
  ///     s_q = d_q − M⁻¹Jᵀ(J M⁻¹Jᵀ)⁻¹ (J d_q + ∂φ/∂pᵢ),
  ///     s_q̇ = d_q̇ − M⁻¹Jᵀ(J M⁻¹Jᵀ)⁻¹ (J d_q̇ + δJ q̇₀ + δ(∂φ/∂t) + ∂J/∂pᵢ q̇₀ + ∂(∂φ/∂t)/∂pᵢ),
  /// δ· along (s_q, 0); central differences start each shifted run at the start moved by ±δ d
  /// and projected onto its own model's manifolds. Without it a model whose φ depends on p
  /// starts from the projection of the given start (d = 0 above), which moves the state the
  /// least in kinetic energy — not what a start built from angles does for a chain.
  Matrix initial_state_parameter_jacobian;
  /// Records y and s at every output of the grid (off: the final state only).
  bool record_trajectory = false;
  /// Throws std::invalid_argument naming the field unless difference_step is finite and in [0, 0.1],
  /// multiplier_atol is finite and ≥ 0 and initial_state_parameter_jacobian is finite (the
  /// initial-state directions and the Jacobian's size are checked against the model by
  /// computeSensitivities()).
  void validate() const;
};

/// Counters and outcome of a sensitivity computation (all runs together for central differences).
struct SensitivitySummary {
  RunStatus status = RunStatus::NotRun;  ///< Success, or how the (first failing) run ended
  std::string message;  ///< what failed, where and at what time; empty on success
  SensitivityMethod method = SensitivityMethod::Forward;  ///< the method these counters are of
  Integrator integrator = Integrator::IdaGgl;             ///< ida_ggl, ida_index1, cvode_bdf or cvode_adams
  long runs = 0;                     ///< integrations made (1 forward, 1 + 2·np central differences)
  long steps = 0;                    ///< IDAS or CVODES steps, all runs
  /// F(t, y, ẏ) (IDAS's own and ours), or CVODES's right-hand side f(t, y): all runs
  long residual_evaluations = 0;
  /// the sensitivity residual, or CVODES's sensitivity right-hand side, all columns at once (forward only)
  long sensitivity_residual_evaluations = 0;
  long jacobian_evaluations = 0;     ///< Newton matrices
  long quadrature_evaluations = 0;   ///< g evaluations (IDAS's quadrature right-hand side)
  long error_test_failures = 0;      ///< steps rejected by the local error test, all runs
  long convergence_failures = 0;     ///< nonlinear-solver convergence failures (the state's), all runs
  double wall_seconds = 0.0;         ///< wall-clock time of the whole computation [s]
  /// max ‖φ(q)‖∞ over the recorded outputs of the run at p: the drift off the position
  /// constraint, which a CVODES run without Baumgarte gains lets grow (and s with it).
  double max_constraint_residual = 0.0;
  /// max ‖J q̇ + ∂φ/∂t‖∞ over the same outputs: the drift off the velocity constraint.
  double max_velocity_constraint_residual = 0.0;
  /// True when every run reached its end.
  bool ok() const { return status == RunStatus::Success; }
  /// One line: "forward ida_ggl: Success, 1 run, 823 steps, 1950 residuals, ... 0.012 s".
  std::string briefReport() const;
};

/// The sensitivities at the outputs, and G with dG/dp.
struct SensitivityResult {
  SensitivitySummary summary;  ///< how the computation went, and what it cost
  std::vector<std::string> parameter_names;  ///< the np parameters' names
  /// The columns of s and dG/dp: the parameters' names, then the initial-state directions'.
  std::vector<std::string> column_names;
  Vector parameters;                 ///< p, np
  /// The initial-state directions as projected (SensitivityOptions::initial_state): (δq₀; δq̇₀),
  /// 2nq × (number of directions).
  Matrix initial_directions;
  ///@{
  /// The sizes that split y = (q, v, λ): q = y[0, nq), v = y[nq, 2nq), λ = y[2nq, 2nq + nc).
  int nq = 0, nc = 0;
  ///@}
  std::vector<double> times;         ///< the recorded outputs (the last is the end of the run)
  /// y at each recorded time, n_y each; its λ rows hold the multiplier `observed_multiplier` names
  std::vector<Vector> states;
  std::vector<Matrix> sensitivities; ///< s at each recorded time, n_y × column_names.size() each
  /// Which λ the λ rows of `states` and `sensitivities` hold (and g received): the physical one
  /// at each state, or the method's own (SimulationOptions::observed_multiplier).
  ObservedMultiplier observed_multiplier = ObservedMultiplier::Physical;
  double cost = 0.0;                 ///< G (when an integrand was given)
  Vector cost_gradient;              ///< dG/dp (and along each initial direction), one per column
  /// dG/dp by column name (a parameter or an initial-state direction); throws
  /// std::invalid_argument listing the names for an unknown one.
  double costDerivative(const std::string& parameter) const;
};

/// Runs `system` from `initial` as `options` say and computes the sensitivities `sensitivity`
/// asks for: with respect to p, and along the initial-state directions it lists. The initial
/// state is projected first when options.project_initial_state (always for ida_ggl, for a model
/// whose φ depends on p, and when the start depends on p). It depends on p as
/// SensitivityOptions::initial_state_parameter_jacobian says (not at all by default) and, when φ
/// depends on p, through that projection: s(0) is the derivative of both (the formulas there),
/// and central differences project each shifted run's start onto its own model's manifolds.
/// cvode_* integrate the ODE with options.stabilization's Baumgarte gains: with none
/// the state drifts off φ = 0 and s with it (docs/sensitivities.md measures what that costs
/// dG/dp). An initial-state direction with a wrong size, a non-finite entry or a name that
/// repeats another column's, and an initial_state_parameter_jacobian that is not 2nq × np,
/// throw std::invalid_argument naming them.
///
/// Throws std::invalid_argument before any run for what it does not support, naming it: an
/// integrator other than ida_ggl, ida_index1, cvode_bdf and cvode_adams; cvode_bdf with a Krylov or
/// sparse linear solver (it uses the dense one); events (a stop event needs jump conditions for
/// s, which are not implemented); a controller; soft constraints or projection after steps; a
/// model that declares φ dependent on p without overriding constraintParameterJacobian() and
/// constraintParameterTangent() (forward: central differences need only withParameterValues());
/// an integrand with a missing function; invalid options. Numerical
/// failure during a run is a failed summary with a message (what, where, when), never a throw.
SensitivityResult computeSensitivities(const ParametricSystem& system, const State& initial,
                                       const SimulationOptions& options, const SensitivityOptions& sensitivity);

}  // namespace kktdae
