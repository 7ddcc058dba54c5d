#pragma once
/// @file
/// Per-state record of a chain run: the series the apps write to CSV and plot.

#include <vector>

#include "kktdae/metrics/chain_state_measures.hpp"
#include "kktdae/models/pendulum_chain.hpp"

namespace kktdae {

/// One entry per observed state: time, seed 000's link-length violation, total energy and the
/// tip's x and y. Appending allocates (amortized): a recorder, not part of the step.
struct ChainTrace {
  ///@{
  /// The series, one entry per state: t [s], the violation, the total energy [J], the tip's x and
  /// y [m].
  std::vector<double> t, violation, energy, tip_x, tip_y;
  ///@}

  /// Measures the state (one pass, measureChainState) and appends it.
  void append(const PendulumChain& chain, double time, ConstVectorRef q, ConstVectorRef v);
  /// Appends a state already measured by measureChainState.
  void append(double time, const ChainStateMeasures& measures);
  std::size_t size() const { return t.size(); }  ///< states recorded
  /// Reserves room for n states in every series.
  void reserve(std::size_t n);
};

}  // namespace kktdae
