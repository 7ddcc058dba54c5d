#pragma once
/// @file
/// A run taken one step at a time: the integrator's state kept between calls (MuJoCo's mj_step,
/// Drake's Simulator::AdvanceTo), for control loops, rollouts and interactive use.

#include <memory>
#include <string>
#include <vector>

#include "kktdae/core/state.hpp"
#include "kktdae/metrics/trajectory_recording.hpp"
#include "kktdae/simulate/simulate.hpp"
#include "kktdae/simulate/summary.hpp"

namespace kktdae {

/// Owns an integrator and the state it is at, for every integrator simulate() runs.
///
/// Fixed-step integrators (euler, semi_implicit, rk4, rattle, generalized_alpha, hht): step()
/// takes one dt; advanceTo(t) steps to t on the grid t0 + k·dt of the last reset (not
/// accumulated), with one shortened step when t is off it, so that advancing over the grid
/// simulate() observes reproduces its states bit for bit.
///
/// Adaptive integrators (cvode_bdf, cvode_adams, ida_index1, ida_ggl): the SUNDIALS solver
/// memory lives as long as the Simulator. step() is one internal step of the solver
/// (CV_ONE_STEP / IDA_ONE_STEP); advanceTo(t) returns the state at t exactly, the solver's
/// normal mode with t as its output time, as simulate() calls it for each output: interpolated
/// between internal steps, or, with options.adaptive.stop_at_outputs, with t as the stop time
/// (no step goes beyond it; step() then also stops at each grid time t0 + k·dt). Advancing over
/// simulate()'s output grid reproduces its observed states and λ bit for bit.
///
/// Uses from SimulationOptions what simulate() uses (integrator, dt, adaptive, stabilization,
/// kkt, controller, rattle, generalized_alpha, projection, project_initial_state at every
/// reset, observed_multiplier, interrupt, events, event_observer, divergence and warn_phi_inf);
/// steps, end_time and observe_every are simulate()'s and ignored. Not thread-safe; the system
/// must outlive the Simulator.
///
/// The divergence rules (options.divergence, divergence.hpp) hold as in simulate(), their scales
/// taken at every reset (a copy() takes them, and starts its runaway schedule, at the state it
/// is made at): fixed-step, the position rules after every step and the runaway rules every
/// runaway_check_every steps since the reset and at the step simulate()'s run from the reset
/// would end on (options.steps or end_time);
/// adaptive, every rule at the state each step() or advanceTo() reaches (simulate() tests its
/// outputs). A rule that fires fails the Simulator as RunStatus::Diverged with simulate()'s
/// message (which rule, the numbers, the step or call and its time), the state kept at the last
/// good one. Advancing over simulate()'s grid, a run simulate() ends as Diverged ends here at the
/// same step with the same message.
///
/// Events (options.events) are located as simulate() locates them: on each fixed step's Hermite
/// interpolant, by SUNDIALS' root finding for the adaptive integrators. Each one fired is in
/// events(); a stop event (or a callback returning Stop) moves the state to the event's located
/// state and stops the Simulator with RunStatus::StoppedByEvent until reset().
///
/// Numerical trouble (a failed KKT solve or Newton, a non-finite state, a failed projection, a
/// SUNDIALS failure such as too many steps, a divergence rule, an event's g that throws) leaves the state at the last
/// good one and the Simulator failed: status() and message() say what, where and when, and
/// step() does nothing until reset(). In a fixed step an exception from the model or the
/// controller propagates, the state restored to before the step; inside SUNDIALS' callbacks it
/// cannot, and ends as RunStatus::ModelError with its text.
class Simulator {
 public:
  /// Validates `options` and `initial` as simulate() does and resets to `initial`; with
  /// `record`, recording() keeps the reset state and the state each step() and advanceTo() ends
  /// at. Throws std::invalid_argument naming the field for invalid options, wrong sizes or a
  /// non-finite state; std::runtime_error when the initial projection, the first KKT solve or
  /// the SUNDIALS setup fails.
  Simulator(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options,
            bool record = false);
  /// Frees the integrator and its workspaces.
  ~Simulator();
  /// Moves the integrator, the state and the grid; `other` is left unusable.
  Simulator(Simulator&& other) noexcept;
  /// Moves the integrator, the state and the grid; `other` is left unusable.
  Simulator& operator=(Simulator&& other) noexcept;
  /// Not copyable implicitly (the integrator owns workspaces and solver memory): copy() makes a twin.
  Simulator(const Simulator&) = delete;
  /// Not copyable implicitly: copy() makes a twin.
  Simulator& operator=(const Simulator&) = delete;

  /// One step: dt to the next grid time (fixed-step), or one internal step of the solver
  /// (adaptive; never beyond the next grid time with adaptive.stop_at_outputs). Returns
  /// RunStatus::Success, StoppedByEvent when a stop event fired in it, or the failure (sticky
  /// until reset()), or RunStatus::Interrupted when options.interrupt reads true (before the
  /// step, or inside a SUNDIALS callback: the state not moved, not failed; the next call tries
  /// again).
  RunStatus step();
  /// Goes to time `t` ≥ t(). Fixed-step: whole steps of dt along the grid, and one shortened step
  /// when t is not on it (within 1e-9 of a step, as simulate()'s end_time; the grid then starts
  /// again at t). Adaptive: to t exactly, as the class comment says (a root of an event within
  /// SUNDIALS' round-off of t ends the call at the root, as in simulate()). Returns as step()
  /// does, stopping at the first step that does not succeed. Throws std::invalid_argument (field
  /// "t") for a non-finite t or one before t().
  RunStatus advanceTo(double t);
  /// Makes `state` the current state and the origin of the grid, and restarts the integrator there
  /// (projecting it first under options.project_initial_state; ida_ggl always projects, as its
  /// runs start): clears a failure, the events and the recording (which starts again with this
  /// state) and the counters. For the explicit methods (euler, semi_implicit, rk4) the steps that
  /// follow are those a run from `state` takes; rattle, generalized_alpha and hht restart their own
  /// history (a start-up acceleration, a Newton guess) as a new run would; the adaptive ones are
  /// re-initialized (CVodeReInit / IDAReInit, IDA with λ and q̈ from the KKT solve at `state` as
  /// consistent initial values) and choose their first step again. Throws as the constructor does
  /// for `state`; std::runtime_error when its projection or KKT solve fails (the Simulator is then
  /// failed).
  void reset(const State& state);
  /// A Simulator of the same system and options at this one's state and grid, made as the
  /// constructor makes one there (without the initial projection; ida_ggl's start still projects
  /// onto φ = 0, φ̇ = 0), its events, counters and recording empty. For euler, semi_implicit and
  /// rk4 it continues bit for bit as this one would. The others restart their integrator there:
  /// rattle, generalized_alpha and hht their history; the adaptive ones their SUNDIALS memory,
  /// which cannot be cloned: the copy's steps, step sizes and order start afresh (as a run of
  /// simulate() from this state would), so it agrees with continuing this one to the solver's
  /// tolerances, not bit for bit.
  Simulator copy() const;

  /// The current state (the last good one after a failure).
  const State& state() const { return state_; }
  /// The current time [s], state().t.
  double t() const { return state_.t; }
  /// The multiplier λ (size nc) at the current state that options.observed_multiplier chooses: by
  /// default the physical one (the KKT solve there without stabilization feedback), solved on
  /// first use after a step; the integrator's own otherwise (ida_*: its algebraic unknown). After
  /// a stop event, the event's λ. Throws std::runtime_error when that solve fails.
  const Vector& lambda();
  /// Steps taken since the last reset: fixed steps, or the adaptive solver's internal steps.
  long steps() const;
  /// Success while the Simulator can step; the failure or stop event that stopped it otherwise.
  RunStatus status() const { return status_; }
  /// What failed, where and at what time; empty while status() is Success.
  const std::string& message() const { return message_; }
  /// The events fired since the last reset, in time order (FiredEvent::step is the fixed step, or
  /// the step()/advanceTo() call since the reset for the adaptive integrators).
  const std::vector<FiredEvent>& events() const;
  /// The states recorded since the last reset (the reset state, then each step() and
  /// advanceTo() end, and a stop event's state), with λ as lambda() gives it, ‖φ‖∞ and the energy:
  /// what simulate()'s observer records. nullptr unless made with `record`.
  const TrajectoryRecording* recording() const;
  /// The work since the last reset as simulate()'s Summary reports it: status and message as
  /// status() and message(), t_final = t(), steps, solves, evaluations, Jacobians, failures,
  /// projections (CVODE), notes, events; outputs and the violation fields over the states
  /// recorded (with `record`; otherwise the reset state's).
  Summary summary() const;
  /// The system stepped.
  const ConstrainedSystem& system() const { return *system_; }
  /// The options it was made with.
  const SimulationOptions& options() const { return options_; }
  /// Whether it records (the constructor's `record`).
  bool records() const { return record_; }

 private:
  struct Machinery;
  const ConstrainedSystem* system_;
  SimulationOptions options_;
  bool record_ = false;
  std::unique_ptr<Machinery> machinery_;
  State state_;
  State before_step_;
  double grid_origin_ = 0.0;  // t0 of the grid t0 + k·dt
  long grid_index_ = 0;       // k of the current state on that grid (fixed-step)
  long steps_since_reset_ = 0;
  long run_steps_ = 0;  // options.gridSteps() from the last reset: simulate()'s last step there
  long calls_since_reset_ = 0;  // step() and advanceTo() calls that moved the state (adaptive events' k)
  RunStatus status_ = RunStatus::Success;
  std::string message_;
  bool lambda_current_ = false;

  void resetFixed(const State& start);
  void resetAdaptive(const State& state);
  RunStatus stepBy(double h, double t_after);
  RunStatus solveAdaptive(double t_out, bool one_step, bool stop);
  /// The divergence rules at the state an adaptive call reached (simulator_adaptive.cpp).
  RunStatus testAdaptiveDivergence();
  /// The grid time after t() (adaptive step()'s first-step scale and stop time).
  double nextGridTime() const;
  /// The recording's row for the state a call ended at (nothing without the recording); a
  /// failed λ solve or model terms there fail the Simulator.
  RunStatus recordState();
  /// lambda() without the throw: nullptr and `failure` when its solve fails.
  const Vector* lambdaAt(std::string& failure);
  /// The adaptive integrator's own λ at the current state (ObservedMultiplier::Method).
  const Vector* ownAdaptiveLambda(std::string& failure);
  /// Ends the call at the stop event just fired: its state becomes the current one.
  RunStatus stopAtEvent();
  RunStatus fail(RunStatus status, const std::string& message);
};

}  // namespace kktdae
