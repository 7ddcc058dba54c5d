#include "kktdae/metrics/chain_trace.hpp"

namespace kktdae {

void ChainTrace::append(const PendulumChain& chain, double time, ConstVectorRef q, ConstVectorRef v) {
  const Eigen::Vector3d tip = chain.tip(q);
  t.push_back(time);
  violation.push_back(chain.linkLengthViolation(q));
  energy.push_back(chain.totalEnergy(q, v, time));
  tip_x.push_back(tip.x());
  tip_y.push_back(tip.y());
}

void ChainTrace::reserve(std::size_t n) {
  for (auto* series : {&t, &violation, &energy, &tip_x, &tip_y}) series->reserve(n);
}

}  // namespace kktdae
