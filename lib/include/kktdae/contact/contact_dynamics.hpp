#pragma once
/// @file
/// The contact problems on the Delassus matrix after the equalities are eliminated.
///
/// With A = M⁻¹, S = J A Jᵀ and the constrained inverse mass P = A − A Jᵀ S⁺ J A (the motion the
/// equalities allow), the accelerations and velocity jumps that the gap forces cause are
///
///     q̈ = q̈₀ + P J_Nᵀ λ_N,         q̇⁺ = q̇⁻ + P J_Nᵀ Λ,
///
/// where q̈₀ is the KKT solution without contact forces. On the gaps of an index set C this gives
/// two LCPs on the Delassus matrix W = J_C P J_Cᵀ:
///
///     acceleration: λ_N ≥ 0 ⊥ g̈ = W λ_N + (J_C q̈₀ + γ_C) ≥ 0     (stay in contact or lift off)
///     impact:       Λ ≥ 0 ⊥ ġ⁺ + e ġ⁻ = W Λ + (1 + e) ġ⁻ ≥ 0       (Newton's law, per gap e)
///
/// and, for a fixed active set (persistent contact), the equality W λ_N = −(J_C q̈₀ + γ_C) with its
/// minimum-norm λ_N. S⁺ and W⁺ are pseudo-inverses, so redundant equalities or redundant contacts
/// (four corners of a box) give the minimum-norm forces and never fail. Everything is dense: the
/// sizes here are a few coordinates and a few gaps.

#include <string>
#include <vector>

#include "kktdae/contact/lcp.hpp"
#include "kktdae/contact/unilateral_constraints.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae::contact {

/// The terms of the last evaluation for one (system, gaps) pair, sized once and overwritten by
/// every call. The solves still allocate their small temporaries (W, b, the pseudo-inverses):
/// the contact path is not allocation-free yet.
struct ContactWorkspace {
  /// Sizes everything from system.nq(), system.nc() and gaps.ng().
  ContactWorkspace(const ConstrainedSystem& system, const UnilateralConstraints& gaps);

  ///@{
  /// The matrices at the last (t, q, q̇), in the model's units: the mass matrix M [nq×nq], the
  /// equalities' Jacobian J = ∂φ/∂q [nc×nq], the gaps' Jacobian J_N = ∂g/∂q [ng×nq], the inverse
  /// mass A = M⁻¹ [nq×nq] (by Cholesky), S⁺ = (J A Jᵀ)⁺ [nc×nc], the constrained inverse mass
  /// P = A − A Jᵀ S⁺ J A [nq×nq] and P J_Nᵀ [nq×ng]. A column k of P J_Nᵀ is the change of q̈ per
  /// unit force of gap k (and of q̇ per unit impulse) with the equalities kept: delassus(), the
  /// solves and the event loop all read it. Without equalities S⁺ is 0×0 and P = A.
  Matrix M, J, J_N, A, S_pinv, P, PJ_Nt;
  ///@}
  ///@{
  /// The vectors at the last (t, q, q̇): the bias h [nq] (M q̈ + h = Jᵀλ + J_Nᵀλ_N), the
  /// equalities φ, their bias γ = φ̈ − J q̈ and ∂φ/∂t [nc], the gaps g, ∂g/∂t and γ_N = g̈ − J_N q̈
  /// [ng] (in gap units), and the KKT solution without gap forces: the accelerations q̈₀ [nq] and
  /// the multipliers λ₀ [nc], the point every gap force is added to (q̈ = q̈₀ + P J_Nᵀ λ_N).
  Vector h, phi, gamma, phi_t, g, g_t, gamma_N, qdd0, lambda0;
  ///@}
};

/// Evaluates M, h, J, γ, ∂φ/∂t, g, J_N, ∂g/∂t, γ_N, the contact-free accelerations q̈₀ (with
/// their multipliers λ₀), P and P J_Nᵀ at (t, q, q̇) into `ws`. Throws std::runtime_error when
/// M is not positive definite or a term is not finite (naming it and t).
void evaluateContactTerms(const ConstrainedSystem& system, const UnilateralConstraints& gaps, double t,
                          ConstVectorRef q, ConstVectorRef v, ContactWorkspace& ws);

/// The Delassus matrix W = J_C P J_Cᵀ of the gaps in `set`, after evaluateContactTerms().
/// Throws std::runtime_error naming the gap whose W_kk vanishes against (J_N A J_Nᵀ)_kk: its row
/// lies in the span of J, so the equalities already forbid its motion (the unilateral row
/// contradicts or repeats the bilateral ones).
Matrix delassus(const UnilateralConstraints& gaps, const std::vector<int>& set, const ContactWorkspace& ws);

/// What solveContactAccelerations() returns: the accelerations, both kinds of multiplier and the
/// gaps' accelerations at one (t, q, q̇) with a given set of gaps closed.
struct ContactAccelerations {
  Vector qdd;       ///< q̈ [nq]
  Vector lambda;    ///< the equalities' multipliers λ [nc]
  Vector lambda_N;  ///< the gaps' forces λ_N [ng], zero outside the set
  Vector g_ddot;    ///< g̈ [ng] of every gap
  LcpResult lcp;    ///< the LCP (or, for a fixed set, its residual) on the set; NotRun for an empty set
};

/// How the gaps of the set are treated.
enum class ContactLaw {
  Complementarity,  ///< λ_N ≥ 0 ⊥ g̈ ≥ 0: the LCP decides which gaps push and which lift off
  Equality,         ///< g̈ = 0 on every gap of the set (persistent contact): λ_N may come out negative
};

/// q̈, λ and λ_N at (t, q, q̇) with the gaps of `set` closed, by `law`. Evaluates the terms itself.
/// Throws as evaluateContactTerms() and delassus() do.
ContactAccelerations solveContactAccelerations(const ConstrainedSystem& system, const UnilateralConstraints& gaps,
                                               double t, ConstVectorRef q, ConstVectorRef v,
                                               const std::vector<int>& set, ContactLaw law, ContactWorkspace& ws,
                                               const LcpOptions& lcp = {});

/// What solveImpact() returns: the velocities after the impact, the impulses that made them and
/// the gaps' velocities on both sides.
struct ImpactSolution {
  Vector v_plus;      ///< q̇⁺ [nq]
  Vector impulse;     ///< Λ [ng] (N·s for a point mass), zero outside the set
  Vector gdot_minus;  ///< ġ⁻ [ng] of every gap
  Vector gdot_plus;   ///< ġ⁺ [ng]
  LcpResult lcp;      ///< the impact LCP on the set (its λ is Λ on the set); NotRun for an empty set
};

/// Newton's impact law on the gaps of `set` at (t, q) with the pre-impact velocity v_minus:
/// Λ ≥ 0 ⊥ ġ⁺ + e ġ⁻ ≥ 0 with each gap's restitution (or `restitution_override` ≥ 0 for all of
/// them: 0 makes a plastic impact). The equalities' velocities J q̇ are kept. Throws as
/// solveContactAccelerations() does.
ImpactSolution solveImpact(const ConstrainedSystem& system, const UnilateralConstraints& gaps, double t,
                           ConstVectorRef q, ConstVectorRef v_minus, const std::vector<int>& set, ContactWorkspace& ws,
                           double restitution_override = -1.0, const LcpOptions& lcp = {});

}  // namespace kktdae::contact
