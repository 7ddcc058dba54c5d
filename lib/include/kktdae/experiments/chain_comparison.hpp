#pragma once
/// @file
/// Seed 000's experiment: one pendulum chain, one integrator, several stabilization modes, each
/// run from the same initial state and measured the same way.

#include <string>
#include <vector>

#include "kktdae/metrics/chain_metrics.hpp"
#include "kktdae/metrics/chain_trace.hpp"
#include "kktdae/simulate/simulate.hpp"

namespace kktdae {

/// A named stabilization mode ("none", "baumgarte", …).
struct ChainMode {
  std::string name;             ///< the mode's name in tables and files
  Stabilization stabilization;  ///< what the mode runs with
};

/// One mode's run of the chain comparison: the mode, the run's Summary and the chain's metrics.
struct ChainModeResult {
  std::string name;             ///< the mode's name
  Stabilization stabilization;  ///< the mode's stabilization
  Summary summary;          ///< status, counters, wall time; failed_step when it diverged
  ChainRunMetrics metrics;  ///< over the states observed before any failure
  ChainTrace trace;         ///< every observed state, when recording was asked for
  /// Failed or interrupted: not ok() and not ended by a stop event (which reached its goal).
  bool diverged() const { return !summary.ok() && !summary.stoppedByEvent(); }
};

/// Runs each mode with `options` (its stabilization replaced by the mode's), observing every
/// step. A run that fails (non-finite state, failed KKT solve) stops there; its metrics cover
/// the states before, and the other modes still run. `also_observe`, when given, is called after
/// the metrics at every observed state of every mode (an app's progress or test hooks).
std::vector<ChainModeResult> runChainComparison(const PendulumChain& chain, const State& initial,
                                                const std::vector<ChainMode>& modes,
                                                const SimulationOptions& options, bool record_trace,
                                                const Observer& also_observe = {});

}  // namespace kktdae
