#pragma once
/// @file
/// Which form of the constrained equations an integrator actually solves, in words, for tables
/// that set integrators side by side (work–precision ladders, benchmark reports).

#include <string>

#include "kktdae/integrators/integrator.hpp"
#include "kktdae/stabilization/stabilization.hpp"

namespace kktdae {

/// The formulation `integrator` solves with `stabilization`, as it will run (what it ignores
/// is left out): e.g. "index-1 ODE (KKT q̈) + projection" for rk4, "index-1 DAE (q, v, λ) +
/// baumgarte(alpha=…, beta=…)" for ida_index1, "GGL index-2 DAE (q, v, λ, μ)" for ida_ggl.
/// An integrator added to the enum gets its own entry here; until then its name is returned.
std::string describeFormulation(Integrator integrator, const Stabilization& stabilization);

}  // namespace kktdae
