#pragma once
// measureChainState() on the raw coordinates (internal header): what the public function runs,
// for a caller that holds the vectors themselves and would otherwise build two Refs a state (the
// chapter's observer, every step of a run).

#include "kktdae/metrics/chain_state_measures.hpp"

namespace kktdae::detail {

/// measureChainState(chain, q, v, t) with q and v given as their data: 3·links contiguous
/// positions and velocities.
ChainStateMeasures measureChainState(const PendulumChain& chain, const double* q, const double* v);

}  // namespace kktdae::detail
