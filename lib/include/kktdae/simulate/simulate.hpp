#pragma once
/// @file
/// The entry point that drives an integrator over a run and reports a Summary.

#include <atomic>
#include <functional>
#include <limits>
#include <optional>

#include "kktdae/core/state.hpp"
#include "kktdae/integrators/acceleration_function.hpp"
#include "kktdae/integrators/adaptive_options.hpp"
#include "kktdae/integrators/generalized_alpha_options.hpp"
#include "kktdae/integrators/integrator.hpp"
#include "kktdae/integrators/rattle_options.hpp"
#include "kktdae/simulate/divergence.hpp"
#include "kktdae/simulate/events.hpp"
#include "kktdae/simulate/observed_multiplier.hpp"
#include "kktdae/simulate/state_observer.hpp"
#include "kktdae/simulate/summary.hpp"
#include "kktdae/stabilization/projection.hpp"

namespace kktdae {

/// Called with each observed state and the constraint forces' multipliers λ there
/// (t, q [nq], q̇ [nq], λ [nc]). The references are valid during the call only.
using Observer = std::function<void(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda)>;

/// Everything simulate() runs with besides the model and the start: integrator, step and end
/// time, stabilization, KKT options, controller, observer, events, projections and limits.
struct SimulationOptions {
  Integrator integrator = Integrator::SemiImplicitEuler;  ///< the integrator of the run
  /// Fixed step [s] > 0 of the fixed-step integrators; for the adaptive ones, the spacing of the
  /// output grid (their own steps are chosen by the error test). Seed 000 uses 0.005.
  double dt = 0.005;
  /// Number of steps (output intervals for adaptive integrators) ≥ 0; the run ends at
  /// t0 + steps·dt. Give this or end_time, not both; neither means 1000 steps.
  std::optional<long> steps;
  /// The time the run ends at (> t0), instead of steps (SUNDIALS' tout, Drake's AdvanceTo). The
  /// grid is t0 + k·dt; an end time that is not on it shortens the last step (fixed-step) or the
  /// last output interval (adaptive runs stop exactly there).
  std::optional<double> end_time;
  /// Observe every k-th grid point (and always the first and last states); k ≥ 1.
  long observe_every = 1;
  /// Tolerances and limits of the SUNDIALS integrators; ignored by the fixed-step ones.
  AdaptiveOptions adaptive;
  /// The position Newton of Integrator::Rattle; ignored by the others.
  RattleOptions rattle;
  /// ρ∞ / HHT α and the Newton of Integrator::GeneralizedAlpha and Integrator::Hht; ignored by the others.
  GeneralizedAlphaOptions generalized_alpha;
  /// Iterations and tolerance of every projection: the initial one (ida_ggl, or
  /// project_initial_state) and those after each step (Stabilization::project_after_step).
  ProjectionOptions projection;
  /// Project the initial state onto the manifold before the run (off by default: the seeds'
  /// runs start on it); Summary::notes reports how far it moved.
  bool project_initial_state = false;
  Stabilization stabilization = Stabilization::none();  ///< Baumgarte, projection, soft or none
  KktOptions kkt;  ///< options of the run's KKT solves
  /// u(t, q, q̇); empty means u = 0. Only for models with inputs (nu() > 0).
  Controller controller;
  /// When a finite state counts as a blow-up (divergence.hpp): the run then ends as Diverged.
  DivergenceOptions divergence;
  /// Which λ the observer, the recording and the events receive (observed_multiplier.hpp): the
  /// physical multiplier of the observed state, solved for where the integrator's own is not it
  /// (Baumgarte feedback, RATTLE, generalized-α, HHT, IDA), or the integrator's own.
  ObservedMultiplier observed_multiplier = ObservedMultiplier::Physical;
  /// Count a ViolationAboveThreshold warning for every step's state with ‖φ‖∞ above this, in φ's
  /// units (> 0; ∞, the default, counts none).
  double warn_phi_inf = std::numeric_limits<double>::infinity();
  /// Polled before every fixed step and in every CVODE right-hand side and IDA residual (one
  /// output interval can be a whole run); once it reads true the run ends as Interrupted, keeping
  /// what it observed. For signal handlers and other threads.
  const std::atomic<bool>* interrupt = nullptr;
  /// Conditions g(t, q, q̇, λ) whose zero crossings the run locates, records and may stop at
  /// (events.hpp, docs/events.md). Names must be unique. Empty: no event code runs at all.
  std::vector<Event> events;
  /// Told of every event as it fires (after it is added to Summary::events); may be empty.
  EventObserver event_observer;

  /// Throws std::invalid_argument naming the bad field and value.
  void validate() const;
  /// The number of grid intervals the run takes: *steps, ⌈(end_time − t0)/dt⌉ (the last one
  /// shortened), or 1000. Throws std::invalid_argument as validate() does, and when the count
  /// does not fit in a long.
  long gridSteps(double t0) const;
  /// The time of grid point k ∈ [0, gridSteps(t0)]: t0 + k·dt, the end time at the last point.
  double gridTime(double t0, long k) const;
};

// Inline: the fixed-step driver asks for every step's time.
inline double SimulationOptions::gridTime(double t0, long k) const {
  if (end_time && k >= gridSteps(t0)) return *end_time;
  return t0 + static_cast<double>(k) * dt;  // not accumulated: no drift in t
}

/// Integrates `system` from `initial` and calls `observer` at t0 and at every observe_every-th
/// grid time t0 + k·dt (not accumulated). The observer sees the λ options.observed_multiplier
/// chooses: by default the physical multiplier of the observed state (the KKT solve there without
/// stabilization feedback).
///
/// Adaptive integrators reach output times by interpolation unless adaptive.stop_at_outputs;
/// ida_ggl first projects the initial state onto the manifold (reported in Summary::notes) and
/// uses no Baumgarte terms (GGL holds φ and φ̇ itself).
///
/// Never throws for numerical trouble: a failed KKT solve, a non-finite or diverged state, or an
/// exception from the model, controller or observer ends the run with a failed status and a
/// message naming what, at which step and time; the Summary keeps its counters and everything
/// observed before stays observed. Throws std::invalid_argument before the run for invalid options,
/// wrong sizes and models that cannot run (nc() < 0, a controller for a model without inputs,
/// inputs without inputMap(), a diagonal mass without massDiagonal()), and std::bad_alloc when the
/// run's workspaces cannot be allocated.
Summary simulate(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options,
                 const Observer& observer = {});

/// simulate() with an observer object: observer.observe() is called where an Observer would be,
/// with the same arguments, results and failure handling; the fixed-step driver calls it
/// directly (no std::function), the adaptive ones through an Observer that forwards to it.
/// Throws as simulate() does.
Summary simulate(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options,
                 StateObserver& observer);

}  // namespace kktdae
