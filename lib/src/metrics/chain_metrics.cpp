#include "kktdae/metrics/chain_metrics.hpp"

#include <algorithm>

namespace kktdae {

void ChainMetricsObserver::observe(double t, ConstVectorRef q, ConstVectorRef v) {
  partial_.final_violation = chain_.linkLengthViolation(q);
  partial_.max_violation = std::max(partial_.max_violation, partial_.final_violation);
  partial_.tip_final = chain_.tip(q);
  ++partial_.samples;
  energy_.observe(t, q, v);
}

ChainRunMetrics ChainMetricsObserver::metrics() const {
  ChainRunMetrics result = partial_;
  result.energy_rel_max = energy_.maxAbsDrift() / chain_.energyScale();
  return result;
}

}  // namespace kktdae
