#pragma once
/// @file
/// The entry point that drives an integrator over a run and reports a Summary.

#include <functional>

#include "kktdae/core/state.hpp"
#include "kktdae/integrators/acceleration_function.hpp"
#include "kktdae/integrators/integrator.hpp"
#include "kktdae/simulate/summary.hpp"

namespace kktdae {

/// Called with each observed state and the constraint forces' multipliers λ there
/// (t, q [nq], q̇ [nq], λ [nc]). The references are valid during the call only.
using Observer = std::function<void(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda)>;

struct SimulationOptions {
  Integrator integrator = Integrator::SemiImplicitEuler;
  /// Fixed step [s] > 0. The constrained chains are stiff: seed 000 uses 0.005.
  double dt = 0.005;
  /// Number of steps ≥ 0; the run ends at t0 + steps·dt.
  long steps = 1000;
  /// Observe every k-th step (and always the first and last states); k ≥ 1.
  long observe_every = 1;
  Stabilization stabilization = Stabilization::none();
  KktOptions kkt;
  /// u(t, q, q̇); empty means u = 0.
  Controller controller;

  /// Throws std::invalid_argument naming the bad field and value.
  void validate() const;
};

/// Integrates `system` from `initial` and calls `observer` at t0 and after every observe_every-th
/// step. Time is t0 + k·dt (not accumulated). The observer sees λ solved at the observed state.
///
/// Never throws for numerical trouble: a failed KKT solve or a non-finite state ends the run with
/// a failed status and a message naming what, at which step and time; everything observed
/// before stays observed. Throws std::invalid_argument for invalid options or wrong sizes.
Summary simulate(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options,
                 const Observer& observer = {});

}  // namespace kktdae
