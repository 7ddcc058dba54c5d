#include "kktdae/integrators/acceleration_function.hpp"

#include "../kkt/kkt_steps.hpp"

namespace kktdae {

AccelerationFunction::AccelerationFunction(const ConstrainedSystem& system, Stabilization stabilization,
                                           KktOptions options, Controller controller)
    : system_(system),
      stabilization_(stabilization),
      options_(options),
      controller_(std::move(controller)),
      workspace_(system),
      u_(Vector::Zero(system.nu())) {
  stabilization_.validate();
  options_.validate();
}

KktResult AccelerationFunction::evaluate(double t, ConstVectorRef q, ConstVectorRef v, VectorRef qdd) {
  if (controller_ && u_.size() > 0) controller_(t, q, v, u_);
  ++solves_;
  KktResult result = solveAccelerations(system_, t, q, v, u_, stabilization_, options_, workspace_);
  qdd = workspace_.qdd;
  return result;
}

KktResult AccelerationFunction::evaluateTerms(double t, ConstVectorRef q, ConstVectorRef v) {
  if (controller_ && u_.size() > 0) controller_(t, q, v, u_);
  return detail::evaluateModelTerms(system_, t, q, v, u_, stabilization_, workspace_);
}

}  // namespace kktdae
