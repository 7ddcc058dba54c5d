#include "initial_state.hpp"

#include "kktdae/core/checks.hpp"

namespace kktdae::detail {

std::optional<Summary> startAdaptiveRun(const ConstrainedSystem& system, const SimulationOptions& options,
                                        RunRecorder& recorder, AccelerationFunction& f, PhysicalMultiplier& physical,
                                        State& start, VectorRef qdd, bool force_projection,
                                        const std::string& failure_prefix) {
  Summary& summary = recorder.summary();
  try {
    summary.failed_step = 0;  // until the initial state is through
    std::string failure;
    if (!projectInitialState(system, start, options, summary, failure, force_projection)) {
      return recorder.finish(RunStatus::InitFailure, failure_prefix + failure);
    }
    recorder.armDivergence(start);
    // λ and the violation at the initial state, before the solver sees it.
    const KktResult kkt = f.evaluate(start.t, start.q, start.v, qdd);
    if (!kkt.ok()) {
      return recorder.finish(RunStatus::KktFailure, "KKT solve failed (" + std::string(toString(kkt.status)) +
                                                        ") at the initial state, t = " + formatDouble(start.t) +
                                                        " s: " + kkt.message + describeRows(kkt.offending_rows));
    }
    recorder.noteStart(start.t, f.workspace());
    const Vector* lambda = &f.lambda();
    if (physical.solves() && recorder.hasObserver()) {
      lambda = physical.solve(start.t, start.q, start.v, failure);
      if (lambda == nullptr) return recorder.finish(RunStatus::KktFailure, "at the initial state: " + failure);
    }
    recorder.observe(start.t, start.q, start.v, *lambda, f.workspace(), kkt.rcond);
    summary.failed_step = -1;
  } catch (const std::exception& error) {
    return recorder.abort(error);
  }
  return std::nullopt;
}

}  // namespace kktdae::detail
