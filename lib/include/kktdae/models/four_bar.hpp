#pragma once
/// @file
/// The planar four-bar linkage in joint coordinates, from its Lagrangian, with the helpers that
/// assemble it at a crank angle and its twin in maximal coordinates (a ParticleSystem).
///
///     A = (0, 0)  ground pivot of the crank        D = (g, 0)  ground pivot of the rocker
///     B = A + a e(θ1)  crank pin                   C = D + c e(θ3)  coupler–rocker joint
///     q = (θ1 crank, θ2 coupler, θ3 rocker), absolute angles from +x, e(θ) = (cos θ, sin θ)
///
/// The loop A → B → C → D → A closes:
///
///     φ(q) = a e(θ1) + b e(θ2) − c e(θ3) − (g, 0) = 0                 (2 rows, metres)
///
/// so the linkage has one degree of freedom and λ is a force [N]: Jᵀλ is the torque the pin at C
/// transmits, λ the force of the coupler on the rocker at C.

#include <Eigen/Core>
#include <string>

#include "kktdae/autodiff/lagrangian_system.hpp"
#include "kktdae/core/state.hpp"
#include "kktdae/models/mechanism_points.hpp"
#include "kktdae/models/particle_system.hpp"

namespace kktdae {

/// Dimensions and masses of a four-bar. The defaults are a Grashof crank-rocker
/// (s + l = 1 + 4 ≤ p + q = 3.5 + 3, shortest link the crank next to the ground) whose
/// transmission angle stays between 54° and 100°: far from the configurations where the coupler
/// and the rocker line up and J loses rank.
///
/// Mass model: point masses at the moving joints B (mass_b) and C (mass_c) and at a coupler
/// point P = B + point_along e(θ2) + point_normal e(θ2 + π/2), rigidly carried by the coupler off
/// its line (point_normal ≠ 0: a P on the line BC would make the twin's triangle B, C, P flat and
/// its distance constraints dependent). The links are massless. C enters T and V through the
/// rocker, C = D + c e(θ3), so every coordinate carries inertia and M(q) is positive definite.
struct FourBarParams {
  double ground = 4.0;        ///< g = |AD| > 0 [m]
  double crank = 1.0;         ///< a = |AB| > 0 [m]
  double coupler = 3.5;       ///< b = |BC| > 0 [m]
  double rocker = 3.0;        ///< c = |DC| > 0 [m]
  double mass_b = 1.0;        ///< m_B > 0 [kg], at the crank pin B
  double mass_c = 1.5;        ///< m_C > 0 [kg], at the coupler–rocker joint C
  double mass_p = 0.8;        ///< m_P > 0 [kg], at the coupler point P
  double point_along = 1.2;   ///< p_along [m], P's offset from B along the coupler, any finite value
  double point_normal = 0.7;  ///< p_normal ≠ 0 [m], P's offset from B across the coupler (left of B→C when > 0)
  double gravity = 9.81;      ///< g_accel ≥ 0 [m/s²], along −y

  /// Throws std::invalid_argument naming the field and its value: a length or mass that is not
  /// finite and > 0, a gravity that is not finite and ≥ 0, a non-finite point_along, a
  /// point_normal that is 0 or not finite.
  void validate() const;
};

/// Which of the two closures of the loop at a given crank angle: C on the left (Open) or on the
/// right (Crossed) of the directed line from B to D, i.e. the sign of (D − B) × (C − B). For the
/// default linkage with θ1 in (0, π), Open puts the coupler and the rocker above the ground line.
enum class FourBarBranch { Open, Crossed };

/// B, C, P at q (nq = 3): B = a e(θ1), C = D + c e(θ3), P = B + p_along e(θ2) + p_normal e⊥(θ2).
/// Any scalar type (double or a Dual) through Eigen's expression q.
template <typename Derived>
MechanismPoints<typename Derived::Scalar> fourBarPoints(const FourBarParams& p, const Eigen::MatrixBase<Derived>& q) {
  using Scalar = typename Derived::Scalar;
  MechanismPoints<Scalar> x;
  x.b = p.crank * unitVector<Scalar>(q[0]);
  x.c = p.rocker * unitVector<Scalar>(q[2]);
  x.c[0] += p.ground;
  x.p = x.b + p.point_along * unitVector<Scalar>(q[1]) + p.point_normal * unitNormal<Scalar>(q[1]);
  return x;
}

/// Ḃ, Ċ, Ṗ at (q, q̇) (nq = 3 each): Ḃ = a θ̇1 e⊥(θ1), Ċ = c θ̇3 e⊥(θ3),
/// Ṗ = Ḃ + θ̇2 (p_along e⊥(θ2) − p_normal e(θ2)).
template <typename DerivedQ, typename DerivedV>
MechanismPoints<typename DerivedQ::Scalar> fourBarPointVelocities(const FourBarParams& p,
                                                                 const Eigen::MatrixBase<DerivedQ>& q,
                                                                 const Eigen::MatrixBase<DerivedV>& v) {
  using Scalar = typename DerivedQ::Scalar;
  MechanismPoints<Scalar> x;
  x.b = (p.crank * v[0]) * unitNormal<Scalar>(q[0]);
  x.c = (p.rocker * v[2]) * unitNormal<Scalar>(q[2]);
  x.p = x.b + v[1] * (p.point_along * unitNormal<Scalar>(q[1]) - p.point_normal * unitVector<Scalar>(q[1]));
  return x;
}

/// The four-bar in joint coordinates, every term derived from
///
///     T = ½ (m_B |Ḃ|² + m_C |Ċ|² + m_P |Ṗ|²),     V = g_accel (m_B B_y + m_C C_y + m_P P_y)
///
/// and the loop closure φ above (LagrangianSystem: M, h, J, γ by automatic differentiation).
/// nq = 3, nc = 2, nu = 1: a motor torque τ = u on the crank, S = [1 0 0] (the work it does is
/// τ Δθ1). M depends on q (MassStructure::General).
class FourBar final : public LagrangianSystem<FourBar> {
 public:
  /// Throws std::invalid_argument if `params` is invalid (FourBarParams::validate()).
  explicit FourBar(FourBarParams params = {});

  /// T(q, q̇) of the three point masses. Sizes: q, v 3.
  template <typename Scalar>
  Scalar kinetic(ConstVectorRefOf<Scalar> q, ConstVectorRefOf<Scalar> v, const Scalar&) const {
    const MechanismPoints<Scalar> rate = fourBarPointVelocities(params_, q, v);
    return 0.5 * (params_.mass_b * rate.b.squaredNorm() + params_.mass_c * rate.c.squaredNorm() +
                  params_.mass_p * rate.p.squaredNorm());
  }
  /// V(q) = g_accel Σ m y. Sizes: q 3.
  template <typename Scalar>
  Scalar potential(ConstVectorRefOf<Scalar> q, const Scalar&) const {
    const MechanismPoints<Scalar> x = fourBarPoints(params_, q);
    return params_.gravity * (params_.mass_b * x.b[1] + params_.mass_c * x.c[1] + params_.mass_p * x.p[1]);
  }
  /// φ(q) = a e(θ1) + b e(θ2) − c e(θ3) − (g, 0). Sizes: q 3; out 2.
  template <typename Scalar>
  void phi(ConstVectorRefOf<Scalar> q, const Scalar&, VectorRefOf<Scalar> out) const {
    out = params_.crank * unitVector<Scalar>(q[0]) + params_.coupler * unitVector<Scalar>(q[1]) -
          params_.rocker * unitVector<Scalar>(q[2]);
    out[0] -= params_.ground;
  }

  std::string name() const override { return "four_bar"; }
  /// Gravity alone does work (the motor torque enters through u, which a run without a controller
  /// leaves at 0): the energy is a first integral.
  bool isConservative() const override { return true; }
  int nu() const override { return 1; }
  /// S = [1 0 0]: u is the motor torque on the crank [N m]. Sizes: S 1×3.
  void inputMap(ConstVectorRef, double, MatrixRef S) const override { S << 1.0, 0.0, 0.0; }

  const FourBarParams& params() const { return params_; }  ///< the parameters it was built with

 private:
  FourBarParams params_;
};

/// The closed loop at crank angle θ1: q = (θ1, θ2, θ3) with C the intersection of the circle of
/// radius b about B and the circle of radius c about D on the chosen side of B→D (closed form;
/// θ2, θ3 in (−π, π]). Throws std::invalid_argument naming the crank angle when the linkage cannot
/// close there (|BD| outside [|b − c|, b + c], or B on D), or when `params` is invalid.
Eigen::Vector3d assembleFourBar(const FourBarParams& params, double crank_angle,
                                FourBarBranch branch = FourBarBranch::Open);

/// A consistent state at crank angle θ1 and crank rate θ̇1: q from assembleFourBar(), q̇ = θ̇1 n
/// with n the null vector of J(q) scaled to n₁ = 1 (so φ = 0 and J q̇ = 0 up to rounding).
/// Throws std::invalid_argument as assembleFourBar() does, and when the coupler and the rocker
/// are parallel there (J's θ2, θ3 columns dependent: the crank rate does not fix the others).
State fourBarState(const FourBarParams& params, double crank_angle, double crank_rate,
                   FourBarBranch branch = FourBarBranch::Open, double t = 0.0);

/// The four-bar in maximal coordinates: a 2D ParticleSystem with particles 0 = B, 1 = C, 2 = P
/// (masses m_B, m_C, m_P, no external force), anchors 0 = A, 1 = D, and the distance
/// constraints, in this row order, A–B (a), B–C (b), D–C (c), B–P (|P − B|), C–P (|P − C|).
/// Same T and V as FourBar at corresponding states. Throws std::invalid_argument if `params` is
/// invalid.
ParticleSystemParams fourBarTwin(const FourBarParams& params);

/// The twin's state at a FourBar state: q = (B, C, P), v = (Ḃ, Ċ, Ṗ), same t. Sizes: joint.q,
/// joint.v 3; result 6 each. Throws std::invalid_argument on wrong sizes.
State fourBarTwinState(const FourBarParams& params, const State& joint);

}  // namespace kktdae
