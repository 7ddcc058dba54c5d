#include "kktdae/metrics/energy_drift.hpp"

#include <algorithm>
#include <cmath>

namespace kktdae {

void EnergyDrift::observe(double t, ConstVectorRef q, ConstVectorRef v) { observeEnergy(system_.totalEnergy(q, v, t)); }

void EnergyDrift::observeEnergy(double energy) {
  final_ = energy;
  if (samples_++ == 0) initial_ = final_;
  max_abs_drift_ = std::max(max_abs_drift_, std::abs(final_ - initial_));
}

}  // namespace kktdae
