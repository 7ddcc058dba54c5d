#pragma once
/// @file
/// A run taken one step at a time: the integrator's state kept between calls (MuJoCo's mj_step,
/// Drake's Simulator::AdvanceTo), for control loops, rollouts and interactive use.

#include <memory>
#include <string>

#include "kktdae/core/state.hpp"
#include "kktdae/simulate/simulate.hpp"
#include "kktdae/simulate/summary.hpp"

namespace kktdae {

/// Owns a fixed-step integrator and the state it is at. step() takes one dt; advanceTo(t) steps to
/// t on the grid t0 + k·dt of the last reset (not accumulated), so that advancing over the grid
/// simulate() observes reproduces its states bit for bit. Uses from SimulationOptions: integrator,
/// dt, stabilization (project_after_step included), kkt, controller, rattle, generalized_alpha,
/// projection, project_initial_state (at every reset), observed_multiplier and interrupt; steps,
/// end_time and observe_every are simulate()'s and ignored. Not thread-safe; the system must
/// outlive the Simulator.
///
/// Numerical trouble in a step (a failed KKT solve or Newton, a non-finite state, a failed
/// projection) leaves the state at the last good step and the Simulator failed: status() and
/// message() say what, where and when, and step() does nothing until reset(). An exception from
/// the model or the controller propagates, the state restored to before the step.
class Simulator {
 public:
  /// Validates `options` and `initial` as simulate() does and resets to `initial`. Throws
  /// std::invalid_argument naming the field for invalid options, wrong sizes, a non-finite state,
  /// an adaptive integrator (cvode_bdf, cvode_adams, ida_index1, ida_ggl: not yet stepped one at a
  /// time) and events (not yet located by the Simulator); std::runtime_error when the initial
  /// projection or the first KKT solve fails.
  Simulator(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options);
  /// Frees the stepper and its workspaces.
  ~Simulator();
  /// Moves the stepper, the state and the grid; `other` is left unusable.
  Simulator(Simulator&& other) noexcept;
  /// Moves the stepper, the state and the grid; `other` is left unusable.
  Simulator& operator=(Simulator&& other) noexcept;
  /// Not copyable implicitly (the stepper owns workspaces): copy() makes a twin.
  Simulator(const Simulator&) = delete;
  /// Not copyable implicitly: copy() makes a twin.
  Simulator& operator=(const Simulator&) = delete;

  /// One step of dt to the next grid time. Returns RunStatus::Success, or the failure (sticky
  /// until reset()), or RunStatus::Interrupted when options.interrupt reads true (the state not
  /// moved; the next call tries again).
  RunStatus step();
  /// Steps to time `t` ≥ t(): whole steps of dt along the grid, and one shortened step when t is
  /// not on it (within 1e-9 of a step, as simulate()'s end_time; the grid then starts again at t).
  /// Returns as step() does, stopping at the first step that does not succeed. Throws
  /// std::invalid_argument (field "t") for a non-finite t or one before t().
  RunStatus advanceTo(double t);
  /// Makes `state` the current state and the origin of the grid, and restarts the integrator there
  /// (projecting it first under options.project_initial_state); clears a failure. For the
  /// explicit methods (euler, semi_implicit, rk4) the steps that follow are those a run from
  /// `state` takes; rattle, generalized_alpha and hht restart their own history (a start-up
  /// acceleration, a Newton guess) as a new run would. Throws as the constructor does for `state`;
  /// std::runtime_error when its projection or KKT solve fails (the Simulator is then failed).
  void reset(const State& state);
  /// A Simulator of the same system and options, at this one's state and grid (reset there).
  Simulator copy() const;

  /// The current state (the last good one after a failure).
  const State& state() const { return state_; }
  /// The current time [s], state().t.
  double t() const { return state_.t; }
  /// The multiplier λ (size nc) at the current state that options.observed_multiplier chooses: by
  /// default the physical one (the KKT solve there without stabilization feedback), solved on
  /// first use after a step. Throws std::runtime_error when that solve fails.
  const Vector& lambda();
  /// Steps taken since the last reset.
  long steps() const { return steps_since_reset_; }
  /// Success while the Simulator can step; the failure that stopped it otherwise.
  RunStatus status() const { return status_; }
  /// What failed, where and at what time; empty while status() is Success.
  const std::string& message() const { return message_; }
  /// The system stepped.
  const ConstrainedSystem& system() const { return *system_; }
  /// The options it was made with.
  const SimulationOptions& options() const { return options_; }

 private:
  struct Machinery;
  const ConstrainedSystem* system_;
  SimulationOptions options_;
  std::unique_ptr<Machinery> machinery_;
  State state_;
  State before_step_;
  double grid_origin_ = 0.0;  // t0 of the grid t0 + k·dt
  long grid_index_ = 0;       // k of the current state on that grid
  long steps_since_reset_ = 0;
  RunStatus status_ = RunStatus::Success;
  std::string message_;
  bool lambda_current_ = false;

  RunStatus stepBy(double h, double t_after);
  RunStatus fail(RunStatus status, const std::string& message);
};

}  // namespace kktdae
