#pragma once
// The physical multiplier at observed states (internal header): a KKT solve of its own, with the
// law of observed_multiplier.hpp, where the run hands out the physical multiplier and the
// integrator's own is not it.

#include <optional>
#include <string>

#include "kktdae/integrators/acceleration_function.hpp"
#include "kktdae/simulate/simulate.hpp"

namespace kktdae::detail {

class PhysicalMultiplier {
 public:
  /// Allocates the solve's workspace only when solves() will be true.
  PhysicalMultiplier(const ConstrainedSystem& system, const SimulationOptions& options);

  /// True when the run replaces the integrator's own multiplier by a solve at observed states.
  bool solves() const { return f_.has_value(); }
  /// The multiplier the observer and the events get at (t, q, q̇): `own` when solves() is false,
  /// else the KKT solve's λ there (valid until the next call). nullptr when that solve failed,
  /// with `failure` saying why.
  const Vector* at(double t, ConstVectorRef q, ConstVectorRef v, const Vector& own, std::string& failure) {
    return f_ ? solve(t, q, v, failure) : &own;
  }
  /// The KKT solve's λ at (t, q, q̇) (valid until the next call); requires solves(). nullptr when
  /// the solve failed, with `failure` saying why.
  const Vector* solve(double t, ConstVectorRef q, ConstVectorRef v, std::string& failure);
  /// The solves made, for Summary::observation_kkt_solves.
  long solveCount() const { return f_ ? f_->solves() : 0; }
  /// The stabilization the events' own solves use: the physical law, or the run's own under
  /// ObservedMultiplier::Method.
  const Stabilization& eventLaw() const { return event_law_; }
  /// Whether events may use the multiplier at() returns at a step end (always the one the
  /// observer sees) instead of solving for their own.
  bool eventsTakeObserved(bool own_is_kkt_solve) const { return solves() || own_is_kkt_solve; }

 private:
  std::optional<AccelerationFunction> f_;
  Stabilization event_law_;
  Vector qdd_;
  KktResult result_;
};

}  // namespace kktdae::detail
