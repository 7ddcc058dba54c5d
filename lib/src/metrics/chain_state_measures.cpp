#include "chain_state_pass.hpp"

#include <algorithm>
#include <cmath>

namespace kktdae {

// The three accumulators (worst, twice, sum) each see their terms in the same order and with the
// same expressions as PendulumChain::linkLengthViolation, kineticEnergy and potentialEnergy, so
// interleaving them in one loop changes no bit (metrics.json and the recording keep their bytes).
// |d|² is summed x, y, z from zero, which is how Eigen's d.dot(d) of a Vector3d adds (its one
// two-lane packet holds x² and y², then z² is added); chain_state_measures_test checks the bits.
// Plain pointers instead of Eigen segments: the Vector3d temporaries cost more than the sums.
namespace detail {

ChainStateMeasures measureChainState(const PendulumChain& chain, const double* const x, const double* const u) {
  const PendulumChainParams& params = chain.params();
  const int links = chain.links();
  const double* const masses = params.masses.data();
  const double* const lengths = params.lengths.data();
  const double g = params.gravity;
  double previous[3] = {params.pivot.x(), params.pivot.y(), params.pivot.z()};
  double worst = 0.0;
  double twice = 0.0;  // 2 T
  double sum = 0.0;    // −V
  for (int k = 0; k < links; ++k) {
    const double* const p = x + 3 * k;
    const double dx = p[0] - previous[0];
    const double dy = p[1] - previous[1];
    const double dz = p[2] - previous[2];
    const double squared = dx * dx + dy * dy + dz * dz;
    worst = std::max(worst, std::abs(std::sqrt(squared) - lengths[k]));
    const double m = masses[k];
    const double* const w = u + 3 * k;
    twice += m * w[0] * w[0];
    twice += m * w[1] * w[1];
    twice += m * w[2] * w[2];
    sum += m * (p[1] * -g);
    previous[0] = p[0];
    previous[1] = p[1];
    previous[2] = p[2];
  }
  ChainStateMeasures measures;
  measures.violation = worst;
  const double kinetic = 0.5 * twice;
  const double potential = -sum;
  measures.energy = kinetic + potential;
  measures.tip = Eigen::Vector3d(x[3 * links - 3], x[3 * links - 2], x[3 * links - 1]);
  return measures;
}

}  // namespace detail

ChainStateMeasures measureChainState(const PendulumChain& chain, ConstVectorRef q, ConstVectorRef v, double) {
  return detail::measureChainState(chain, q.data(), v.data());  // ConstVectorRef has unit inner stride
}

}  // namespace kktdae
