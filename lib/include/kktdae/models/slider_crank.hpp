#pragma once
/// @file
/// The planar slider-crank in joint coordinates, from its Lagrangian, with the helpers that
/// assemble it at a crank angle and its twin in maximal coordinates (a ParticleSystem).
///
///     O = (0, 0)  crank pivot          B = r e(θ)  crank pin          C = (s, e)  slider
///     q = (θ crank, ψ rod, s slider), angles from +x, e(θ) = (cos θ, sin θ)
///
/// The rod of length l joins B to C = B + l e(ψ), and the slider runs on the line y = e:
///
///     φ(q) = (r cos θ + l cos ψ − s,  r sin θ + l sin ψ − e) = 0      (2 rows, metres)
///
/// so the mechanism has one degree of freedom and λ is a force [N]: the force the rod and the
/// guide exert through the slider's pin.

#include <Eigen/Core>
#include <string>

#include "kktdae/autodiff/lagrangian_system.hpp"
#include "kktdae/core/state.hpp"
#include "kktdae/models/mechanism_points.hpp"
#include "kktdae/models/particle_system.hpp"

namespace kktdae {

/// Dimensions and masses of a slider-crank. The defaults (r = 0.5 < l = 1.5, offset 0.2) keep
/// |sin ψ| ≤ 0.47, far from the rod standing vertical, where J loses rank.
///
/// Mass model: point masses at the crank pin B (mass_b), at the slider C (mass_slider) and at a
/// rod point P = B + point_along e(ψ) + point_normal e(ψ + π/2), rigidly carried by the rod off
/// its line (point_normal ≠ 0: a P on the line BC would make the twin's triangle B, C, P flat and
/// its distance constraints dependent). Crank and rod are otherwise massless; C enters T and V as
/// (s, e), so every coordinate carries inertia and M(q) is positive definite.
struct SliderCrankParams {
  double crank = 0.5;          ///< r = |OB| > 0 [m]
  double rod = 1.5;            ///< l = |BC| > 0 [m]
  double offset = 0.2;         ///< e [m], the guide is the line y = e; any finite value
  double mass_b = 1.0;         ///< m_B > 0 [kg], at the crank pin B
  double mass_slider = 2.0;    ///< m_S > 0 [kg], at the slider C
  double mass_p = 0.6;         ///< m_P > 0 [kg], at the rod point P
  double point_along = 0.6;    ///< p_along [m], P's offset from B along the rod, any finite value
  double point_normal = 0.25;  ///< p_normal ≠ 0 [m], P's offset from B across the rod (left of B→C when > 0)
  double gravity = 9.81;       ///< g_accel ≥ 0 [m/s²], along −y

  /// Throws std::invalid_argument naming the field and its value: a length or mass that is not
  /// finite and > 0, a non-finite offset or point_along, a point_normal that is 0 or not finite, a
  /// gravity that is not finite and ≥ 0.
  void validate() const;
};

/// Which of the two closures at a given crank angle: the slider to the right of the crank pin
/// (cos ψ ≥ 0, the usual engine layout) or to its left.
enum class SliderCrankBranch { Right, Left };

/// B, C, P at q (nq = 3): B = r e(θ), C = (s, e), P = B + p_along e(ψ) + p_normal e⊥(ψ).
/// Any scalar type (double or a Dual) through Eigen's expression q.
template <typename Derived>
MechanismPoints<typename Derived::Scalar> sliderCrankPoints(const SliderCrankParams& p,
                                                            const Eigen::MatrixBase<Derived>& q) {
  using Scalar = typename Derived::Scalar;
  MechanismPoints<Scalar> x;
  x.b = p.crank * unitVector<Scalar>(q[0]);
  x.c = PlanarPoint<Scalar>(q[2], Scalar(p.offset));
  x.p = x.b + p.point_along * unitVector<Scalar>(q[1]) + p.point_normal * unitNormal<Scalar>(q[1]);
  return x;
}

/// Ḃ, Ċ, Ṗ at (q, q̇) (nq = 3 each): Ḃ = r θ̇ e⊥(θ), Ċ = (ṡ, 0),
/// Ṗ = Ḃ + ψ̇ (p_along e⊥(ψ) − p_normal e(ψ)).
template <typename DerivedQ, typename DerivedV>
MechanismPoints<typename DerivedQ::Scalar> sliderCrankPointVelocities(const SliderCrankParams& p,
                                                                     const Eigen::MatrixBase<DerivedQ>& q,
                                                                     const Eigen::MatrixBase<DerivedV>& v) {
  using Scalar = typename DerivedQ::Scalar;
  MechanismPoints<Scalar> x;
  x.b = (p.crank * v[0]) * unitNormal<Scalar>(q[0]);
  x.c = PlanarPoint<Scalar>(v[2], Scalar(0.0));
  x.p = x.b + v[1] * (p.point_along * unitNormal<Scalar>(q[1]) - p.point_normal * unitVector<Scalar>(q[1]));
  return x;
}

/// The slider-crank in joint coordinates, every term derived from
///
///     T = ½ (m_B |Ḃ|² + m_S ṡ² + m_P |Ṗ|²),     V = g_accel (m_B B_y + m_S e + m_P P_y)
///
/// and the loop closure φ above (LagrangianSystem: M, h, J, γ by automatic differentiation).
/// nq = 3, nc = 2, nu = 1: a force F = u on the slider along +x, S = [0 0 1] (the work it does is
/// F Δs). M depends on q (MassStructure::General).
class SliderCrank final : public LagrangianSystem<SliderCrank> {
 public:
  /// Throws std::invalid_argument if `params` is invalid (SliderCrankParams::validate()).
  explicit SliderCrank(SliderCrankParams params = {});

  /// T(q, q̇) of the three point masses. Sizes: q, v 3.
  template <typename Scalar>
  Scalar kinetic(ConstVectorRefOf<Scalar> q, ConstVectorRefOf<Scalar> v, const Scalar&) const {
    const MechanismPoints<Scalar> rate = sliderCrankPointVelocities(params_, q, v);
    return 0.5 * (params_.mass_b * rate.b.squaredNorm() + params_.mass_slider * rate.c.squaredNorm() +
                  params_.mass_p * rate.p.squaredNorm());
  }
  /// V(q) = g_accel Σ m y (the slider's term is the constant m_S g_accel e). Sizes: q 3.
  template <typename Scalar>
  Scalar potential(ConstVectorRefOf<Scalar> q, const Scalar&) const {
    const MechanismPoints<Scalar> x = sliderCrankPoints(params_, q);
    return params_.gravity * (params_.mass_b * x.b[1] + params_.mass_slider * x.c[1] + params_.mass_p * x.p[1]);
  }
  /// φ(q) = r e(θ) + l e(ψ) − (s, e). Sizes: q 3; out 2.
  template <typename Scalar>
  void phi(ConstVectorRefOf<Scalar> q, const Scalar&, VectorRefOf<Scalar> out) const {
    out = params_.crank * unitVector<Scalar>(q[0]) + params_.rod * unitVector<Scalar>(q[1]);
    out[0] -= q[2];
    out[1] -= params_.offset;
  }

  std::string name() const override { return "slider_crank"; }
  /// Gravity alone does work (the slider force enters through u, which a run without a controller
  /// leaves at 0): the energy is a first integral.
  bool isConservative() const override { return true; }
  int nu() const override { return 1; }
  /// S = [0 0 1]: u is the force on the slider along +x [N]. Sizes: S 1×3.
  void inputMap(ConstVectorRef, double, MatrixRef S) const override { S << 0.0, 0.0, 1.0; }

  const SliderCrankParams& params() const { return params_; }  ///< the parameters it was built with

 private:
  SliderCrankParams params_;
};

/// The closed loop at crank angle θ: sin ψ = (e − r sin θ) / l, cos ψ = ±√(1 − sin²ψ) by the
/// branch (ψ in (−π, π]), s = r cos θ + l cos ψ. Throws std::invalid_argument naming the crank
/// angle when the rod cannot reach the guide there (|e − r sin θ| > l), or when `params` is invalid.
Eigen::Vector3d assembleSliderCrank(const SliderCrankParams& params, double crank_angle,
                                    SliderCrankBranch branch = SliderCrankBranch::Right);

/// A consistent state at crank angle θ and crank rate θ̇: q from assembleSliderCrank(), and the
/// rates from J q̇ = 0: ψ̇ = −r cos θ θ̇ / (l cos ψ), ṡ = −r sin θ θ̇ − l sin ψ ψ̇. Throws
/// std::invalid_argument as assembleSliderCrank() does, and when the rod stands perpendicular to
/// the guide there (cos ψ = 0: the crank rate does not determine ψ̇).
State sliderCrankState(const SliderCrankParams& params, double crank_angle, double crank_rate,
                       SliderCrankBranch branch = SliderCrankBranch::Right, double t = 0.0);

/// The slider-crank in maximal coordinates: a 2D ParticleSystem with particles 0 = B, 1 = C,
/// 2 = P (masses m_B, m_S, m_P), anchor 0 = O, the distance constraints, in this row order,
/// O–B (r), B–C (l), B–P (|P − B|), C–P (|P − C|), then the line y = e for C. `slider_force` is
/// a constant force on C along +x (ParticleSpec::force), the twin of a constant input u; note
/// that ParticleSystem counts its potential −F x_C in V. Same T and V as SliderCrank (for
/// slider_force = 0) at corresponding states. Throws std::invalid_argument if `params` is
/// invalid or slider_force is not finite.
ParticleSystemParams sliderCrankTwin(const SliderCrankParams& params, double slider_force = 0.0);

/// The twin's state at a SliderCrank state: q = (B, C, P), v = (Ḃ, Ċ, Ṗ), same t. Sizes:
/// joint.q, joint.v 3; result 6 each. Throws std::invalid_argument on wrong sizes.
State sliderCrankTwinState(const SliderCrankParams& params, const State& joint);

}  // namespace kktdae
