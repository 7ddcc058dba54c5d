#include "kktdae/experiments/chain_comparison.hpp"

#include "../metrics/chain_state_pass.hpp"

namespace kktdae {
namespace {

// The chapter's observer as an object: the fixed-step driver calls it directly, and one pass
// over the state feeds both the metrics and the trace.
class ChainRunObserver final : public StateObserver {
 public:
  ChainRunObserver(const PendulumChain& chain, ChainTrace* trace, const Observer& also_observe)
      : chain_(chain), metrics_(chain), trace_(trace), also_observe_(also_observe) {}

  void observe(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) override {
    take(t, measureChainState(chain_, q, v, t));
    if (also_observe_) also_observe_(t, q, v, lambda);
  }
  // The fixed-step driver's call: the same, with no Ref built unless the extra observer is set.
  void observeState(double t, const Vector& q, const Vector& v, const Vector& lambda) override {
    take(t, detail::measureChainState(chain_, q.data(), v.data()));
    if (also_observe_) also_observe_(t, q, v, lambda);
  }
  // The chapter's metrics and trace read positions and velocities only: without an extra
  // observer the run needs no solve for the physical multiplier.
  bool readsMultiplier() const override { return static_cast<bool>(also_observe_); }
  ChainRunMetrics metrics() const { return metrics_.metrics(); }

 private:
  const PendulumChain& chain_;
  ChainMetricsObserver metrics_;
  ChainTrace* trace_;
  const Observer& also_observe_;

  void take(double t, const ChainStateMeasures& measures) {
    metrics_.observe(measures);
    if (trace_ != nullptr) trace_->append(t, measures);
  }
};

}  // namespace

std::vector<ChainModeResult> runChainComparison(const PendulumChain& chain, const State& initial,
                                                const std::vector<ChainMode>& modes,
                                                const SimulationOptions& options, bool record_trace,
                                                const Observer& also_observe) {
  std::vector<ChainModeResult> results;
  results.reserve(modes.size());
  for (const ChainMode& mode : modes) {
    ChainModeResult result;
    result.name = mode.name;
    result.stabilization = mode.stabilization;
    SimulationOptions run_options = options;
    run_options.stabilization = mode.stabilization;
    run_options.observe_every = 1;
    if (record_trace) result.trace.reserve(static_cast<std::size_t>(options.gridSteps(initial.t)) + 1);
    ChainRunObserver observer(chain, record_trace ? &result.trace : nullptr, also_observe);
    result.summary = simulate(chain, initial, run_options, observer);
    result.metrics = observer.metrics();
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace kktdae
