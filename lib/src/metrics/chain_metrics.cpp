#include "kktdae/metrics/chain_metrics.hpp"

#include <algorithm>
#include <limits>

namespace kktdae {

void ChainMetricsObserver::observe(double t, ConstVectorRef q, ConstVectorRef v) {
  observe(measureChainState(chain_, q, v, t));
}

void ChainMetricsObserver::observe(const ChainStateMeasures& measures) {
  partial_.final_violation = measures.violation;
  partial_.max_violation = std::max(partial_.max_violation, partial_.final_violation);
  partial_.tip_final = measures.tip;
  ++partial_.samples;
  energy_.observeEnergy(measures.energy);
}

ChainRunMetrics ChainMetricsObserver::metrics() const {
  ChainRunMetrics result = partial_;
  if (result.samples == 0) {  // nothing observed: no number is honest
    const double nan = std::numeric_limits<double>::quiet_NaN();
    result.max_violation = result.final_violation = result.energy_rel_max = nan;
    result.tip_final.setConstant(nan);
    return result;
  }
  const double scale = chain_.energyScale();
  result.energy_rel_max = scale > 0.0 ? energy_.maxAbsDrift() / scale : std::numeric_limits<double>::quiet_NaN();
  return result;
}

}  // namespace kktdae
