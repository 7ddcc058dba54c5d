#include "kktdae/metrics/chain_trace.hpp"

namespace kktdae {

void ChainTrace::append(const PendulumChain& chain, double time, ConstVectorRef q, ConstVectorRef v) {
  append(time, measureChainState(chain, q, v, time));
}

void ChainTrace::append(double time, const ChainStateMeasures& measures) {
  t.push_back(time);
  violation.push_back(measures.violation);
  energy.push_back(measures.energy);
  tip_x.push_back(measures.tip.x());
  tip_y.push_back(measures.tip.y());
}

void ChainTrace::reserve(std::size_t n) {
  for (auto* series : {&t, &violation, &energy, &tip_x, &tip_y}) series->reserve(n);
}

}  // namespace kktdae
