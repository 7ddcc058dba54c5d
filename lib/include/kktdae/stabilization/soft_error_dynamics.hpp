#pragma once
/// @file
/// The error dynamics MuJoCo-style soft constraints actually produce (docs/baumgarte.md §7).
///
/// The solve enforces J q̈ + γ + R λ = a_ref with a_ref = −B φ̇ − K D φ, D = diag(d_k(|φ_k|)),
/// R = (1 − D)/D · diag(A), A = J M⁻¹ Jᵀ. With a₀ = J M⁻¹ f + γ the constraint acceleration
/// without λ, ë = a₀ + A λ and (A + R) λ = a_ref − a₀, so
///
///     ë = W a_ref + (I − W) a₀,      W = A (A + R)⁻¹,
///
/// i.e. ë + W B ė + W K D e = (I − W) a₀: the requested spring–damper filtered by W (= D for a
/// single constraint), plus a forcing that leaves a steady offset.

#include <Eigen/Core>

#include "kktdae/core/state.hpp"
#include "kktdae/stabilization/stabilization.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

/// The soft constraints' error dynamics linearized about the equilibrium the forcing holds,
/// F(e_ss) = 0 with F(e) = −W(e) K D(e) e + (I − W(e)) a₀, the configuration (A, a₀) frozen at
/// the given state's: ë ≈ −S (e − e_ss) − W B ė with S = −∂F/∂e at e_ss (finite differences:
/// it includes how d bends with |e|, which matters when e_ss sits inside the impedance's width).
struct SoftErrorDynamics {
  Vector impedance;          ///< d_k(|e_ss,k|), size nc
  Matrix W;                  ///< A (A + R)⁻¹ at e_ss, nc × nc: the share of a_ref that reaches ë
  Eigen::VectorXcd roots;    ///< the 2nc roots s of det(s² I + s W B + S) = 0 [1/s]
  double decay_rate = 0.0;   ///< −max Re s: the slowest mode's decay rate [1/s]
  double damping_ratio = 0.0;  ///< −Re s / |s| of that mode (1 when it is real)
  double natural_frequency = 0.0;  ///< |s| of that mode [rad/s] (for a real root: |s| itself)
  /// What (timeconst, dampratio) ask for, s² + (2/τ) s + 1/(τζ)² = 0 (MuJoCo's reference at
  /// d = dmax): decay rate 1/τ for ζ ≤ 1, (1 − √(1 − ζ⁻²))/τ for ζ > 1; damping ratio ζ.
  double requested_decay_rate = 0.0;
  double requested_damping_ratio = 0.0;  ///< ζ, the dampratio asked for
  double requested_natural_frequency = 0.0;  ///< 1/(τζ) [rad/s]
  /// The forced steady error e_ss (size nc, units of φ): where R lets the constraint yield; for
  /// constant d it is (W K D)⁻¹ (I − W) a₀.
  Vector offset;
};

/// Builds the linear soft-constraint error dynamics of `system` at `state` (M, h, J, γ, φ
/// evaluated there; no inputs). Throws std::invalid_argument for invalid parameters, sizes, or
/// a model without constraints.
SoftErrorDynamics softErrorDynamics(const ConstrainedSystem& system, const State& state, const SoftConstraint& soft);

}  // namespace kktdae
