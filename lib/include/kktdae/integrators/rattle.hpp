#pragma once
/// @file
/// RATTLE (Andersen 1983; Hairer–Lubich–Wanner, Geometric Numerical Integration, §VII.1.4) for
/// models with a constant M: symplectic, symmetric, second order, and on both constraint
/// manifolds after every step (φ to the Newton tolerance, J q̇ + ∂φ/∂t to round-off).
///
/// One step from (qₙ, q̇ₙ), W = M⁻¹, f = Sᵀu − h, Jₙ = J(qₙ):
///
///     q̇ₙ₊½ = q̇ₙ + (dt/2) W (fₙ + Jₙᵀλₙ)
///     qₙ₊₁ = qₙ + dt q̇ₙ₊½,                 φ(qₙ₊₁, tₙ₊₁) = 0      (Newton for λₙ)
///     q̇ₙ₊₁ = q̇ₙ₊½ + (dt/2) W (fₙ₊₁ + Jₙ₊₁ᵀμₙ),  Jₙ₊₁ q̇ₙ₊₁ + ∂φ/∂t = 0  (linear for μₙ)
///
/// with fₙ₊₁ evaluated at (qₙ₊₁, q̇ₙ₊½). The Newton for λₙ uses the frozen matrix
/// Jₙ W Jₙᵀ (a simplified Newton: the exact one needs J(qₙ₊₁) W Jₙᵀ, unsymmetric) so the KKT
/// layer's Schur factorizations apply, dense Cholesky or the sparse LDLᵀ of the constraint space:
/// a chain steps in O(N).

#include "kktdae/integrators/fixed_stepper.hpp"

namespace kktdae {

/// Throws std::invalid_argument unless RATTLE can integrate `system`: it needs a constant M
/// (MassStructure::ConstantDiagonal). With a q-dependent M the kinetic energy's q-gradient
/// enters the kicks and the method becomes implicit in the momentum (docs/integrators.md).
void requireRattleModel(const ConstrainedSystem& system);

/// Makes the RATTLE stepper. The observer's λ at a step's end is μₙ, the multiplier of the
/// second half-kick, scaled as a force [units of λ, as the KKT solve's]: (dt/2)·Jₙ₊₁ᵀμₙ is the
/// constraint impulse of that half-step, so Jₙ₊₁ᵀμₙ is the mean constraint force over it. It
/// approximates the KKT λ at the new state to first order in dt (measured on the double pendulum:
/// halving dt halves the difference). At the initial state it is the KKT solve's λ. Baumgarte
/// gains are ignored (notes() says so); KktForm::Block is served by the Schur factorization (M
/// is constant and diagonal, so W is exact) and noted too. Throws std::invalid_argument for invalid options,
/// a model requireRattleModel() refuses, or projection after the step (RATTLE holds both
/// manifolds itself; a projection would break its symplecticity).
std::unique_ptr<FixedStepper> makeRattleStepper(const ConstrainedSystem& system, const FixedStepperSetup& setup);

}  // namespace kktdae
