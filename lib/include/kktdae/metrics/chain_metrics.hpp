#pragma once
/// @file
/// Seed 000's metrics of a pendulum-chain run.

#include <Eigen/Core>

#include "kktdae/metrics/chain_state_measures.hpp"
#include "kktdae/metrics/energy_drift.hpp"
#include "kktdae/models/pendulum_chain.hpp"

namespace kktdae {

/// The numbers seed 000's table and metrics.json report for one run. All NaN when no state was
/// observed; energy_rel_max is NaN when the energy scale Σm·g·ΣL is 0 (no gravity).
struct ChainRunMetrics {
  double max_violation = 0.0;    ///< max over states of max_k | |d_k| − L_k | [m]
  double final_violation = 0.0;  ///< the same at the last observed state [m]
  double energy_rel_max = 0.0;   ///< max |E − E0| / (Σm · g · ΣL)
  Eigen::Vector3d tip_final = Eigen::Vector3d::Zero();  ///< last particle at the last state [m]
  long samples = 0;              ///< states observed
};

/// Observer computing ChainRunMetrics; feed it every state of the run.
class ChainMetricsObserver {
 public:
  /// Observes runs of `chain`, which must outlive the observer.
  explicit ChainMetricsObserver(const PendulumChain& chain) : chain_(chain), energy_(chain) {}

  /// Measures the state (one pass, measureChainState) and takes it in.
  void observe(double t, ConstVectorRef q, ConstVectorRef v);
  /// Takes in a state already measured by measureChainState (a caller that also records the
  /// measures computes them once for both).
  void observe(const ChainStateMeasures& measures);
  /// The metrics over the states taken in so far.
  ChainRunMetrics metrics() const;

 private:
  const PendulumChain& chain_;
  EnergyDrift energy_;
  ChainRunMetrics partial_;
};

}  // namespace kktdae
