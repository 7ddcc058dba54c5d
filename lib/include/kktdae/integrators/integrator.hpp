#pragma once
/// @file
/// The integrator vocabulary shared by the library and the apps.

#include <string_view>
#include <vector>

namespace kktdae {

/// The time integrators a run can use: fixed-step (euler, semi_implicit, rk4, rattle,
/// generalized_alpha, hht) and adaptive (SUNDIALS' cvode_* and ida_*). Each value's comment starts
/// with the name the apps and Python use.
enum class Integrator {
  ExplicitEuler,      ///< "euler": first order, unstable on undamped oscillation
  SemiImplicitEuler,  ///< "semi_implicit": first order; symplectic for unconstrained separable systems, and in
                      ///< practice a bounded energy error on the chains
  Rk4,                ///< "rk4": classical fourth order, four KKT solves per step
  CvodeBdf,    ///< "cvode_bdf": SUNDIALS CVODE, BDF + Newton + dense LU, on the stabilized ODE
  CvodeAdams,  ///< "cvode_adams": SUNDIALS CVODE, Adams–Moulton + fixed-point iteration (non-stiff)
  IdaIndex1,   ///< "ida_index1": SUNDIALS IDA on the index-1 DAE (q, v, λ), Baumgarte row kept
  IdaGgl,      ///< "ida_ggl": SUNDIALS IDA on the GGL stabilized index-2 DAE (q, v, λ, μ)
  /// "rattle": fixed-step, second order, symplectic; φ = 0 and J q̇ = 0 after every step, no
  /// Baumgarte. Constant M only (rattle.hpp). Last in the enum so that the numbering of the
  /// others, and every list that prints them in order, keeps its place.
  Rattle,
  /// "generalized_alpha": fixed-step, implicit, second order, index-3 (φ = 0 every step, no
  /// Baumgarte), numerical damping set by ρ∞ (generalized_alpha.hpp). Appended after rattle.
  GeneralizedAlpha,
  /// "hht": HHT-α, generalized-α with α_m = 0 (α ∈ [−1/3, 0]; 0 is the trapezoidal rule).
  Hht,
};

/// The name the apps and files use: "euler", "semi_implicit", "rk4", …, "rattle", "generalized_alpha", "hht".
std::string_view toString(Integrator integrator);
/// Parses a name from toString(); throws std::invalid_argument listing the choices otherwise.
Integrator parseIntegrator(std::string_view name);
/// All integrators, in the order of the enum.
const std::vector<Integrator>& allIntegrators();
/// The order of accuracy of the global error of a fixed-step integrator; 0 for the adaptive ones
/// (variable order).
int convergenceOrder(Integrator integrator);
/// True for the SUNDIALS integrators, which take steps of their own and hit output times.
bool isAdaptive(Integrator integrator);

}  // namespace kktdae
