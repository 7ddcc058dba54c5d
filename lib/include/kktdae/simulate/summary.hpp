#pragma once
/// @file
/// What a run reports.

#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "kktdae/integrators/integrator.hpp"
#include "kktdae/kkt/kkt_options.hpp"
#include "kktdae/simulate/events.hpp"

namespace kktdae {

/// How a run ended (Summary::status): success, a stop on request, or the failure that ended it.
enum class RunStatus {
  NotRun,          ///< simulate() has not finished a run with this summary
  Success,         ///< reached the final time
  KktFailure,      ///< a KKT solve failed (singular, ill-conditioned, non-finite model output)
  NonFiniteState,  ///< a step produced NaN/Inf in q or q̇
  SolverFailure,   ///< a SUNDIALS integrator failed (convergence, error test, too much work, …), or a
                   ///< fixed-step implicit integrator's Newton did not converge (rattle)
  InitFailure,     ///< the initial state could not be made consistent (IDA GGL's projection)
  ProjectionFailure,  ///< the projection after a step did not converge
  Diverged,     ///< the state left any plausible scale (DivergenceOptions; the message names the rule)
  ModelError,   ///< the model, the controller or the observer threw; the message carries its text
  Interrupted,  ///< SimulationOptions::interrupt was set: stopped at the next step or right-hand side, on request
  /// An event with EventAction::Stop fired, or a Callback event answered Stop: the run ended at
  /// the located time (Summary::events' last entry), on request. Last in the enum so that the
  /// numbering of the others keeps its place.
  StoppedByEvent,
};

/// "success", "diverged", … (the names the apps write).
std::string_view toString(RunStatus status);

/// What a run counts as a warning: it goes on, but the user should know.
enum class WarningKind {
  ViolationAboveThreshold,  ///< ‖φ‖∞ passed SimulationOptions::warn_phi_inf at a step's state
  RankDeficientSolve,       ///< KktOptions::rank_deficiency answered a singular/ill-conditioned solve
  ProjectionStalled,        ///< a projection stopped at the round-off floor, not below its tolerance
  /// The run started off the constraint manifold (distance or rate of leaving it above 1e-6 of
  /// the start's scales, DivergenceRule) without project_initial_state: its violations are
  /// measured from there. Counted once, at step 0.
  OffManifoldStart,
};

/// "violation_above_threshold", "rank_deficient_solve", "projection_stalled", "off_manifold_start".
std::string_view toString(WarningKind kind);

/// One kind of warning of a run: how often, and where it first happened (MuJoCo's mjWarningStat).
struct RunWarning {
  WarningKind kind = WarningKind::ViolationAboveThreshold;  ///< which warning
  long count = 0;  ///< how many times the run counted it
  long first_step = -1;  ///< the step (fixed-step) or output interval (adaptive) of the first one
  double first_time = std::numeric_limits<double>::quiet_NaN();  ///< its time [s]
  std::string first_detail;  ///< what it was, in words ("|phi|_inf = 0.31 > 0.1")
};

/// What simulate() reports about a run: how it ended and why, which integrator and linear algebra
/// ran, the work it did (steps, solves, model calls), the constraint violation, warnings and events.
struct Summary {
  RunStatus status = RunStatus::NotRun;  ///< how the run ended
  std::string message;  ///< what happened, where and when, in words
  Integrator integrator = Integrator::SemiImplicitEuler;  ///< the integrator that ran
  KktForm form = KktForm::Schur;                           ///< the KKT form used for q̈ and λ
  bool sparse = false;  ///< the KKT solves took the sparse path (KktPath resolved)
  /// The Newton linear solver that ran ("dense", "sparse", "krylov"; empty for fixed-step and
  /// cvode_adams, which have none).
  std::string linear_solver;

  long steps = 0;       ///< steps completed: fixed steps, or the adaptive solver's internal steps
  long outputs = 0;     ///< states handed to the observer (the initial one included)
  /// Acceleration solves, all stages included; at CVODE's outputs only when an observer is handed
  /// that output (it reads λ there; the violation maxima come from the model's terms alone).
  long kkt_solves = 0;
  long rhs_evaluations = 0;       ///< f(t, y) (CVODE), F(t, y, ẏ) (IDA) or KKT-solve stages (fixed)
  long jacobian_evaluations = 0;  ///< Newton-matrix evaluations (analytic or difference quotients), adaptive only
  /// Model and controller calls spent on assembled Newton matrices (AdaptiveOptions::newton_matrix
  /// Analytic, and the sparse IDA matrix); a difference quotient's cost is in rhs_evaluations.
  long newton_model_evaluations = 0;
  long linear_solver_setups = 0;  ///< factorizations of the Newton matrix, adaptive only
  long error_test_failures = 0;   ///< steps rejected by the local error test, adaptive only
  long convergence_failures = 0;  ///< nonlinear-solver convergence failures
  /// Newton iterations of the fixed-step implicit integrators (rattle's position Newton), all
  /// steps added up; 0 for the explicit ones and the adaptive ones (see convergence_failures).
  long newton_iterations = 0;
  double last_step = 0.0;         ///< the last step size [s]
  long projections = 0;             ///< post-step projections (Stabilization::project_after_step)
  long projection_iterations = 0;   ///< their Gauss–Newton iterations, all added up
  double max_position_correction = 0.0;  ///< largest ‖Δq‖∞ a projection made
  double max_velocity_correction = 0.0;  ///< largest ‖Δq̇‖∞ a projection made
  /// Where the library used something other than what was asked ("ida_ggl ignores Baumgarte"),
  /// and how far an initial projection moved the state. Empty when nothing to say.
  std::string notes;
  double t_final = 0.0; ///< time of the last good (observed or reached) state (the run's end time is
                        ///< SimulationOptions::end_time or t0 + steps·dt; this is where it got)
  /// The step (fixed-step) or output interval (adaptive) that failed: 0 for the initial state,
  /// k ≥ 1 for the k-th; −1 if none failed.
  long failed_step = -1;
  double wall_seconds = 0.0;  ///< wall-clock time of the run [s]

  double max_phi_inf = 0.0;      ///< max of ‖φ‖∞ over every step's (or output's) state
  double max_phi_dot_inf = 0.0;  ///< the same for ‖φ̇‖∞ = ‖J q̇ + ∂φ/∂t‖∞
  double final_phi_inf = 0.0;    ///< ‖φ‖∞ at the last state reached
  double final_phi_dot_inf = 0.0;  ///< ‖φ̇‖∞ at the last state reached
  /// Worst KKT condition estimate seen over the run's solves (CVODE: its right-hand side's and
  /// the observed outputs'); ∞ when none estimated one (IDA's residual solves nothing).
  double min_rcond = std::numeric_limits<double>::infinity();
  /// KKT solves where J M⁻¹ Jᵀ was singular or had rcond < KktOptions::min_rcond and
  /// KktOptions::rank_deficiency (MinimumNorm or Regularize) gave the answer: counted warnings.
  /// `notes` then says when the first one was, its rank and its dependent rows.
  long rank_deficient_solves = 0;
  /// Lowest numerical rank of J M⁻¹ Jᵀ among those solves (MinimumNorm); −1 when none or unknown.
  int min_constraint_rank = -1;
  /// Counted warnings, one entry per kind that occurred, in the order they first occurred.
  std::vector<RunWarning> warnings;

  /// The events that fired (SimulationOptions::events), in time order; empty without events.
  std::vector<FiredEvent> events;
  /// KKT solves made for λ at the states the events looked at (step ends of the implicit
  /// fixed-step methods, interpolated states inside steps, CVODE's root-function calls), counted
  /// apart from kkt_solves: the run's own solves do not change when events are added.
  long event_kkt_solves = 0;
  /// KKT solves for the physical multiplier at observed states and step ends
  /// (ObservedMultiplier::Physical where the integrator's own multiplier is not it).
  long observation_kkt_solves = 0;
  /// Calls of the events' g functions (one per event per evaluated state).
  long event_evaluations = 0;

  /// True when the run reached its final time. A run StoppedByEvent is not ok() (it did not reach
  /// the end), though nothing failed: see stoppedByEvent().
  bool ok() const { return status == RunStatus::Success; }
  /// True when an event ended the run on request (the last of `events` is where).
  bool stoppedByEvent() const { return status == RunStatus::StoppedByEvent; }
  /// How many warnings of `kind` the run counted (0 when none).
  long warningCount(WarningKind kind) const;
  /// One line: status, steps, solves, time, violations, wall time (and the message on failure).
  std::string briefReport() const;
};

}  // namespace kktdae
