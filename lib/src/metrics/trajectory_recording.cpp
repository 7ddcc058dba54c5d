#include "kktdae/metrics/trajectory_recording.hpp"

#include <stdexcept>
#include <string>

namespace kktdae {

TrajectoryRecording::TrajectoryRecording(const ConstrainedSystem& system, long capacity)
    : system_(system), nq_(system.nq()), nc_(system.nc()), phi_(system.nc()) {
  if (capacity < 0) {
    throw std::invalid_argument("TrajectoryRecording: capacity must be >= 0, got " + std::to_string(capacity));
  }
  const auto states = static_cast<std::size_t>(capacity);
  t_.reserve(states);
  q_.reserve(states * static_cast<std::size_t>(nq_));
  v_.reserve(states * static_cast<std::size_t>(nq_));
  lambda_.reserve(states * static_cast<std::size_t>(nc_));
  violation_.reserve(states);
  energy_.reserve(states);
}

void TrajectoryRecording::observe(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) {
  t_.push_back(t);
  q_.insert(q_.end(), q.data(), q.data() + nq_);
  v_.insert(v_.end(), v.data(), v.data() + nq_);
  lambda_.insert(lambda_.end(), lambda.data(), lambda.data() + nc_);
  double violation = 0.0;
  if (nc_ > 0) {
    system_.constraint(q, t, phi_);
    violation = phi_.lpNorm<Eigen::Infinity>();
  }
  violation_.push_back(violation);
  energy_.push_back(system_.totalEnergy(q, v, t));
}

}  // namespace kktdae
