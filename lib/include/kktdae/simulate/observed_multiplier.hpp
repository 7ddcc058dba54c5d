#pragma once
/// @file
/// Which constraint multiplier a run hands to its observer, its recording and its events.
///
/// The physical multiplier at an observed state (t, q, q̇) is the λ of the KKT system there with
/// no stabilization feedback,
///
///     M q̈ + h = Sᵀu + Jᵀλ,      J q̈ + γ = 0            (α = β = 0),
///
/// or, for soft constraints, the λ of their own law (the constraint yields by design). It is the
/// constraint force of that state, as accurate as the state itself. An integrator's own multiplier
/// means something else (docs/theory.md, "The multiplier a run reports"):
/// - explicit methods and CVODE with Baumgarte: the λ that drove the step, 2αφ̇ + β²φ included,
///   which with gains that grow as dt shrinks (recommendBaumgarte) does not vanish as dt → 0;
/// - RATTLE: the impulse average of the constraint force over the step, first order in dt;
/// - generalized-α and HHT: the index-3 Newton multiplier, with an O(h) start-up transient;
/// - IDA: its algebraic variable, interpolated, less accurate than IDA's positions.

#include <string_view>

#include "kktdae/integrators/integrator.hpp"
#include "kktdae/stabilization/stabilization.hpp"

namespace kktdae {

/// Which λ a run reports at its observed states and events (this file's description).
enum class ObservedMultiplier {
  /// The physical multiplier at every observed state and event (a KKT solve there where the
  /// integrator's own is not it: Summary::observation_kkt_solves counts them).
  Physical,
  /// The integrator's own multiplier, as listed above: no extra solve.
  Method,
};

/// "physical", "method".
std::string_view toString(ObservedMultiplier choice);

/// The stabilization whose KKT solve gives the physical multiplier of a run of `integrator` with
/// `stabilization`: the soft law for soft constraints where the integrator honours them (the
/// explicit methods and CVODE), no feedback otherwise; never a projection.
Stabilization physicalMultiplierLaw(const Stabilization& stabilization, Integrator integrator);

/// True when the integrator's own multiplier at an observed state is the physical one: the
/// explicit methods and CVODE, whose observed λ is a KKT solve there, without Baumgarte feedback.
bool ownMultiplierIsPhysical(const Stabilization& stabilization, Integrator integrator);

}  // namespace kktdae
