#include "kktdae/metrics/trajectory_recording.hpp"

#include <stdexcept>
#include <string>

namespace kktdae {

TrajectoryRecording::TrajectoryRecording(const ConstrainedSystem& system, long capacity)
    : system_(system), nq_(system.nq()), nc_(system.nc()), phi_(system.nc()) {
  if (capacity < 0) {
    throw std::invalid_argument("TrajectoryRecording: capacity must be >= 0, got " + std::to_string(capacity));
  }
  reserve(capacity);
}

std::size_t TrajectoryRecording::bytesPerState() const {
  return (3 + 2 * static_cast<std::size_t>(nq_) + static_cast<std::size_t>(nc_)) * sizeof(double);
}

void TrajectoryRecording::reserve(long states) {
  if (states <= capacity()) return;
  const auto count = static_cast<std::size_t>(states);
  q_.reserve(count * static_cast<std::size_t>(nq_));
  v_.reserve(count * static_cast<std::size_t>(nq_));
  lambda_.reserve(count * static_cast<std::size_t>(nc_));
  violation_.reserve(count);
  energy_.reserve(count);
  t_.reserve(count);  // last: capacity() reads t_, so a reserve that threw half-way is retried
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
