#pragma once
// The adaptive drivers' common start (internal header): cvode_run.cpp and ida_run.cpp begin a
// run the same way.

#include <optional>
#include <string>

#include "../simulate/physical_multiplier.hpp"
#include "../simulate/run_recorder.hpp"

namespace kktdae::detail {

/// Projects `start` when options ask for it (or `force_projection`), solves the KKT system there
/// for q̈ (into qdd) and λ (f.lambda()), and records the initial state with the multiplier
/// `physical` chooses. Returns the finished
/// Summary when the run ends there (a failed projection: InitFailure, prefixed by
/// `failure_prefix`; a failed KKT solve: KktFailure; an exception from the model or observer),
/// nothing when the run goes on. Summary::failed_step is 0 while the start is under way.
std::optional<Summary> startAdaptiveRun(const ConstrainedSystem& system, const SimulationOptions& options,
                                        RunRecorder& recorder, AccelerationFunction& f, PhysicalMultiplier& physical,
                                        State& start, VectorRef qdd, bool force_projection,
                                        const std::string& failure_prefix);

}  // namespace kktdae::detail
