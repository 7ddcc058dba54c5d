#pragma once
// What every driver shares for SimulationOptions::events (internal header): the events' g
// evaluated with λ, the sign bookkeeping of the fixed-step drivers and the root search on a
// step's cubic Hermite interpolant, firing (Summary::events, the event observer, the callback's
// decision) and the stop at the located state.

#include <optional>
#include <vector>

#include "kktdae/integrators/acceleration_function.hpp"
#include "kktdae/simulate/simulate.hpp"

namespace kktdae::detail {

class RunRecorder;

/// The cubic Hermite interpolant of one step from (t0, q0, v0) to (t0 + h, q1, v1): positions
/// are the cubic through both ends' positions and velocities, velocities its derivative. At s = 0
/// and s = 1 it returns the ends exactly.
void hermiteInterpolate(double s, double h, ConstVectorRef q0, ConstVectorRef v0, ConstVectorRef q1,
                        ConstVectorRef v1, Vector& q, Vector& v);

class EventRunner {
 public:
  /// `stabilization` is the law of the multiplier the observer sees (PhysicalMultiplier::eventLaw()),
  /// so that λ at located states is the λ the observer would see there. Allocates everything the
  /// run needs.
  EventRunner(const ConstrainedSystem& system, const SimulationOptions& options, const Stabilization& stabilization,
              Summary& summary);

  bool active() const { return !events_.empty(); }
  /// The number of components of all events together (SUNDIALS' nrtfn).
  int components() const { return static_cast<int>(component_event_.size()); }
  /// SUNDIALS' root directions per component: +1 rising, −1 falling, 0 either.
  std::vector<int> directions() const;

  /// Fixed-step: starts the sign bookkeeping at the initial state. `lambda` null: solve for it.
  void start(double t, ConstVectorRef q, ConstVectorRef v, const Vector* lambda);
  /// Fixed-step: step k reached (t, q, v) (λ there, or null to solve): locates every sign change
  /// since the last step on the step's interpolant, fires them in time order. True when one of
  /// them stops the run (then finishStopped()).
  bool afterStep(long k, double t, ConstVectorRef q, ConstVectorRef v, const Vector* lambda);

  /// SUNDIALS: every component at (t, q, v) into out [components()]; `lambda` null: solve.
  void evaluateAll(double t, ConstVectorRef q, ConstVectorRef v, const Vector* lambda, double* out);
  /// SUNDIALS: fires the components with found[c] ≠ 0 (+1 rising, −1 falling) at the root
  /// (t, q, v); `lambda` null: solve. True when one of them stops the run.
  bool fireFound(long k, double t, ConstVectorRef q, ConstVectorRef v, const Vector* lambda, const int* found);

  /// Ends the run at the event that stopped it: hands its state to the observer (it is the
  /// last state the run reached) and finishes with RunStatus::StoppedByEvent.
  Summary finishStopped(RunRecorder& recorder);

 private:
  /// λ at (t, q, v): `given`, or a KKT solve (counted as an event solve). Throws on a failed solve.
  const Vector& lambdaAt(double t, ConstVectorRef q, ConstVectorRef v, const Vector* given);
  /// Event e's g at the state into values_[e]; throws for a wrong size or a non-finite value.
  const Vector& evaluate(int e, double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda);
  /// Locates the crossing of component c inside the step from the stored previous state to
  /// (t1, q1, v1); returns the fraction s ∈ (0, 1] of the step on the far side of the crossing.
  double locate(int c, double t1, ConstVectorRef q1, ConstVectorRef v1);
  /// Adds the event of component c at (t, q, v, λ) to the summary and tells the observer and the
  /// callback; true when it stops the run.
  bool fire(int c, long k, EventDirection direction, double t, ConstVectorRef q, ConstVectorRef v,
            ConstVectorRef lambda, double value);

  const std::vector<Event>& events_;
  const EventObserver& event_observer_;
  Summary& summary_;
  // Its own, made only when there are events (a KKT workspace per run otherwise): the run's
  // solve counter and workspace stay untouched.
  std::optional<AccelerationFunction> f_;
  Vector qdd_;
  std::vector<Vector> values_;      // per event, size m
  std::vector<int> component_event_, component_index_;  // flat component → (event, its component)
  std::vector<double> g_prev_, g_now_;  // per component, at the previous and the new step end
  std::vector<int> sign_last_;      // the last non-zero sign seen (0: none yet)
  std::vector<char> at_zero_;       // the previous step end was exactly zero
  double t_prev_ = 0.0;
  Vector q_prev_, v_prev_, q_s_, v_s_, lambda_s_;  // previous step end; scratch of the search
  struct Crossing {
    double s, t;
    int component;
    EventDirection direction;
  };
  std::vector<Crossing> crossings_;  // reserved once: no allocation per step
  long stop_step_ = -1;
};

}  // namespace kktdae::detail
