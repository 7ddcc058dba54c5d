#include "physical_multiplier.hpp"

#include "kktdae/core/checks.hpp"
#include "run_recorder.hpp"

namespace kktdae::detail {

PhysicalMultiplier::PhysicalMultiplier(const ConstrainedSystem& system, const SimulationOptions& options)
    : event_law_(options.observed_multiplier == ObservedMultiplier::Physical
                     ? physicalMultiplierLaw(options.stabilization, options.integrator)
                     : options.stabilization) {
  if (options.observed_multiplier != ObservedMultiplier::Physical ||
      ownMultiplierIsPhysical(options.stabilization, options.integrator)) {
    return;
  }
  f_.emplace(system, event_law_, options.kkt, options.controller);
  qdd_.resize(system.nq());
}

const Vector* PhysicalMultiplier::solve(double t, ConstVectorRef q, ConstVectorRef v, std::string& failure) {
  if (f_->evaluate(t, q, v, qdd_, result_)) return &f_->lambda();
  failure = "the KKT solve for the observed multiplier (no stabilization feedback) failed (" +
            std::string(toString(result_.status)) + ") at t = " + formatDouble(t) + " s: " + result_.message +
            describeRows(result_.offending_rows);
  return nullptr;
}

}  // namespace kktdae::detail
