#pragma once
/// @file
/// Events: the times at which a condition g(t, q, q̇, λ) on the state crosses zero, located inside
/// the steps of every integrator, and what the run does there (record, stop, or ask a callback).
/// docs/events.md explains how each integrator locates them.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kktdae/core/types.hpp"

namespace kktdae {

/// Which sign changes of a component of g fire an event.
enum class EventDirection {
  Rising,   ///< from g < 0 to g ≥ 0
  Falling,  ///< from g > 0 to g ≤ 0
  Either,   ///< both
};

/// "rising", "falling", "either".
std::string_view toString(EventDirection direction);

/// What the run does when an event fires.
enum class EventAction {
  Record,    ///< list it in Summary::events and go on: the trajectory is the one without the event
  Stop,      ///< list it and end the run there with RunStatus::StoppedByEvent
  Callback,  ///< list it, then ask Event::callback whether to go on or stop
};

/// "record", "stop", "callback".
std::string_view toString(EventAction action);

/// A Callback event's answer.
enum class EventDecision {
  Continue,  ///< the run goes on unchanged
  Stop,      ///< the run ends there with RunStatus::StoppedByEvent
};

/// g(t, q [nq], q̇ [nq], λ [nc], g): writes the event's m components into g, which comes sized m
/// (a g that leaves another size ends the run as ModelError, naming the event and both sizes).
/// The references are valid during the call only. It may throw: the run then ends as ModelError.
using EventFunction =
    std::function<void(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda, Vector& g)>;

/// One event that fired: which, where, when, and the state there.
struct FiredEvent {
  std::string name;    ///< Event::name
  int event = 0;       ///< index of the event in SimulationOptions::events
  int component = 0;   ///< which of its m components crossed zero
  double time = 0.0;   ///< the located time [s]: on the far side of the crossing, within the tolerance
  /// The step (fixed-step) or output interval (adaptive) it fell in: k for (t_{k−1}, t_k].
  long step = 0;
  EventDirection direction = EventDirection::Rising;  ///< Rising or Falling: how this crossing went
  double value = 0.0;  ///< g's component at the located state (≈ 0, with the sign after the crossing)
  Vector q;       ///< q at the located time [nq]
  Vector v;       ///< q̇ there [nq]
  Vector lambda;  ///< λ there [nc] (a KKT solve at the located state, or IDA's own λ)
};

/// Decides, for a Callback event, whether the run goes on. Must not change anything the run
/// uses (this events change no state).
using EventCallback = std::function<EventDecision(const FiredEvent& fired)>;

/// Told of every event that fired, in time order, as it fires (before a stop ends the run).
using EventObserver = std::function<void(const FiredEvent& fired)>;

/// A condition to watch during a run: fires when a component of g changes sign in `direction`.
///
/// A component exactly zero at the initial time does not fire there (as in SUNDIALS); it fires at
/// the first later sign change. A component that lands exactly on zero at a step (or output)
/// point fires once, there. Two sign changes of one component inside one step cancel and are not
/// seen (take smaller steps, or several events).
struct Event {
  std::string name;  ///< non-empty, unique within SimulationOptions::events; reported as given
  int size = 1;      ///< m ≥ 1, the number of components g writes
  EventFunction g;   ///< required
  EventDirection direction = EventDirection::Either;  ///< which sign changes of g count
  EventAction action = EventAction::Record;  ///< what happens when the event fires
  EventCallback callback;  ///< required for EventAction::Callback, ignored otherwise
  /// How close [s] the fixed-step integrators locate the time (the bracket width of the root
  /// search on the step's interpolant); > 0. SUNDIALS locates its roots to its own, tighter,
  /// tolerance (about 100 · ε · max(|t|, |h|)) and ignores this.
  double time_tolerance = 1e-10;

  /// Throws std::invalid_argument naming `field` (e.g. "events[2].size") and the bad value.
  void validate(const std::string& field) const;
};

/// Throws std::invalid_argument for an invalid event or two events with the same name.
void validateEvents(const std::vector<Event>& events);

}  // namespace kktdae
