#pragma once
// The once-printed check of the MuJoCo chains (not a benchmark).

#include <cstdio>

namespace kktdae::bench {

/// For every size: each MuJoCo chain's launch positions equal our PendulumChain's, and after
/// 100 steps its tip has moved (it swings); prints one line per coordinate kind to `out`, with
/// the largest tip distance from our own semi-implicit run for information. True when all pass.
bool checkMujocoChains(std::FILE* out);

}  // namespace kktdae::bench
