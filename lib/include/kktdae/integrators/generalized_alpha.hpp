#pragma once
/// @file
/// Generalized-α (Chung & Hulbert 1993) and HHT-α (Hilber, Hughes & Taylor 1977) on the index-3
/// DAE, in the form of Arnold & Brüls (2007): implicit, second order, with a tunable numerical
/// damping of high frequencies, φ(qₙ₊₁) = 0 held at position level every step, no Baumgarte.
///
/// One step from (qₙ, q̇ₙ, q̈ₙ, aₙ), aₙ the algorithmic acceleration:
///
///     (1−α_m) aₙ₊₁ + α_m aₙ = (1−α_f) q̈ₙ₊₁ + α_f q̈ₙ
///     qₙ₊₁ = qₙ + h q̇ₙ + h² (½−β) aₙ + h² β aₙ₊₁
///     q̇ₙ₊₁ = q̇ₙ + h (1−γ) aₙ + h γ aₙ₊₁
///     M(qₙ₊₁) q̈ₙ₊₁ + h(qₙ₊₁, q̇ₙ₊₁, tₙ₊₁) − Sᵀu − Jᵀλₙ₊₁ = 0,    φ(qₙ₊₁, tₙ₊₁) = 0
///
/// solved by Newton in (q̈ₙ₊₁, λₙ₊₁). With β′ = β h²(1−α_f)/(1−α_m), γ′ = γ h(1−α_f)/(1−α_m) the
/// iteration matrix is [M + β′K + γ′C, −Jᵀ; J, 0] once the constraint rows are divided by β′
/// (the scaling of Bottasso et al. 2007): its condition number does not grow as h → 0.

#include "kktdae/integrators/fixed_stepper.hpp"

namespace kktdae {

/// Makes the generalized-α stepper (setup.integrator GeneralizedAlpha: Chung–Hulbert parameters
/// from setup.generalized_alpha.rho_inf; Hht: HHT parameters from hht_alpha). The observer's λ is
/// λₙ₊₁ of the step's Newton (at the initial state the KKT solve's). The iteration matrix is
/// dense (LU of the (nq+nc)² block matrix, derivative terms from DynamicsJacobian) or sparse
/// (KLU in a fixed pattern, derivative terms from SparseDynamicsJacobian), as
/// setup.generalized_alpha.iteration_matrix says; KktOptions::path serves only the initial and
/// observed KKT solves. Baumgarte gains are ignored (notes() says so); a projection after
/// the step is allowed (it moves q and q̇; the algorithmic acceleration carries on). Throws
/// std::invalid_argument for invalid options, an integrator that is neither of the two, or
/// IterationMatrix::Sparse on a model the sparse matrix does not support.
std::unique_ptr<FixedStepper> makeGeneralizedAlphaStepper(const ConstrainedSystem& system,
                                                          const FixedStepperSetup& setup);

}  // namespace kktdae
