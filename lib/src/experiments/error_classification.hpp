#pragma once
// The one rule that turns a run's constraint error into an ErrorBehaviour (docs/baumgarte.md §3),
// shared by the stability map's cells and the runaway prediction's probe runs.

#include "kktdae/experiments/stability_map.hpp"

namespace kktdae::detail {

/// blow-up: the run failed or e exceeded blowup_ratio·e0 at some step; grows: the late maximum
/// (last tenth) is above e0; decays: it is below decay_ratio·e0; bounded otherwise.
inline ErrorBehaviour classifyError(bool failed_or_exceeded, double late_max, double e0, double decay_ratio) {
  if (failed_or_exceeded) return ErrorBehaviour::BlowUp;
  if (late_max > e0) return ErrorBehaviour::Grows;
  if (late_max < decay_ratio * e0) return ErrorBehaviour::Decays;
  return ErrorBehaviour::Bounded;
}

/// Decays or bounded.
inline bool isStable(ErrorBehaviour behaviour) {
  return behaviour == ErrorBehaviour::Decays || behaviour == ErrorBehaviour::Bounded;
}

}  // namespace kktdae::detail
