#include "kktdae/metrics/constraint_trace.hpp"

#include <algorithm>
#include <cmath>

namespace kktdae {

ConstraintTrace::ConstraintTrace(const ConstrainedSystem& system)
    : system_(system),
      nc_(static_cast<std::size_t>(system.nc())),
      phi_buffer_(system.nc()),
      phi_t_buffer_(system.nc()),
      jacobian_buffer_(system.nc(), system.nq()) {}

void ConstraintTrace::observe(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) {
  system_.constraint(q, t, phi_buffer_);
  system_.constraintJacobian(q, t, jacobian_buffer_);
  system_.constraintTimeDerivative(q, t, phi_t_buffer_);
  t_.push_back(t);
  for (std::size_t k = 0; k < nc_; ++k) {
    const auto row = static_cast<Eigen::Index>(k);
    phi_.push_back(phi_buffer_[row]);
    phi_dot_.push_back(jacobian_buffer_.row(row).dot(v) + phi_t_buffer_[row]);
    lambda_.push_back(lambda[row]);
  }
}

double ConstraintTrace::phiInf(std::size_t i) const {
  double worst = 0.0;
  for (std::size_t k = 0; k < nc_; ++k) worst = std::max(worst, std::abs(phi_[i * nc_ + k]));
  return worst;
}

}  // namespace kktdae
