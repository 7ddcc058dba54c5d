#pragma once
/// @file
/// An observer as an object with a virtual call, for simulate()'s per-step hot path.

#include "kktdae/core/types.hpp"

namespace kktdae {

/// What simulate(system, initial, options, StateObserver&) hands each observed state to: the
/// same calls, arguments and times as an Observer, without std::function's type-erased hop.
/// Worth it where the observer runs every step of a small model (a two-link chain's step is
/// about 1,700 instructions; the hop and its argument forwarding cost about 25). Exceptions
/// thrown by observe() end the run as ModelError, as an Observer's do.
class StateObserver {
 public:
  virtual ~StateObserver() = default;
  /// Called at t0 and at every observe_every-th grid time with the state and the constraint
  /// forces' multipliers there (t, q [nq], q̇ [nq], λ [nc]); the references are valid during the
  /// call only.
  virtual void observe(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) = 0;
  /// observe() with the run's own vectors, which is what the fixed-step driver calls (the adaptive
  /// drivers call observe()). The default forwards to observe(); an override must do what
  /// observe() does with the same values. Worth overriding where the observer runs every step of a
  /// small model and can read the vectors directly: building the three Refs costs about 40
  /// instructions a call (docs/notes/performance-profile.md).
  virtual void observeState(double t, const Vector& q, const Vector& v, const Vector& lambda) {
    observe(t, q, v, lambda);
  }
  /// Whether observe() reads λ. An observer that does not (a recording of positions and energy)
  /// returns false, and the fixed-step driver then skips the solve for the physical multiplier
  /// (SimulationOptions::observed_multiplier) at the states only it would see: λ is then the
  /// integrator's own.
  virtual bool readsMultiplier() const { return true; }
};

}  // namespace kktdae
