#pragma once
// What a sweep needs in memory, estimated before it runs (docs/apps.md, "Memory"): a sweep too large for
// the machine is refused naming its file, not a std::bad_alloc after every run has been computed.

#include "sweep/sweep_file.hpp"

namespace kktdae::apps {

/// Peak memory of one rank of a sweep [bytes]: the expanded plan on every rank, the rows and the
/// files rank 0 gathers and writes (`root`), and `threads` runs at once, each as large as the
/// plan's largest (a chain's by chainRunMemory(); the other models are a few kB).
double sweepMemoryEstimate(const SweepPlan& plan, int threads, bool root);

}  // namespace kktdae::apps
