#pragma once
/// @file
/// The shipped problems with gaps (docs/contact.md): each a model, its gaps and a start.
///
/// - bouncingBall: a point mass above a floor, g = y ≥ 0. Dropped from rest at height H with
///   restitution e, it hits at t₁ = √(2H/g), then at t_{k+1} = t_k + 2 e^k v₁/g (v₁ = g t₁), and
///   the impacts accumulate at t∞ = t₁ (1 + e)/(1 − e); after t∞ it rests with λ_N = m g.
///   (H = 1 m, g = 9.81 m/s², e = 0.9: t₁ = 0.451523640985731 s, t∞ = 8.578949179 s.)
/// - impactPendulum: a one-link PendulumChain released from horizontal (+x) and a wall at x = 0
///   below the pivot (g = x ≥ 0, a JointLimits bound). It reaches the wall after the quarter
///   period K(1/√2)·√(L/g) = 0.5919604869 s (L = 1 m), rebounds with e times its angular speed,
///   and each later flight out and back takes 2 K(k_n)·√(L/g) with k_n = eⁿ/√2.
/// - limitedChain: a two-link PendulumChain released from horizontal with the second joint's
///   relative angle θ limited to |θ| ≤ θ_max < π/2, as the two gaps sin θ_max ∓ sin θ ≥ 0, where
///   sin θ = (p₀ × p₁)_z / (L₀ L₁) (the pivot at the origin).

#include <memory>
#include <string>

#include "kktdae/contact/unilateral_constraints.hpp"
#include "kktdae/core/state.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae::contact {

/// A model, its gaps and its start, ready for simulateContact().
struct ContactProblem {
  std::string name;  ///< "ball", "impact_pendulum", "limited_chain"
  std::shared_ptr<const ConstrainedSystem> system;    ///< the model: its equalities, masses and forces
  std::shared_ptr<const UnilateralConstraints> gaps;  ///< its gaps, handed to simulateContact() beside it
  State initial;                                      ///< the start (t = 0, at rest, no gap penetrated)
};

/// The parameters of bouncingBall(); the defaults give the reference times of the file comment.
struct BouncingBallParams {
  double mass = 1.0;         ///< m > 0 [kg]
  double gravity = 9.81;     ///< g > 0 [m/s²], along −y
  double height = 1.0;       ///< H ≥ 0 [m], the drop height (released at rest)
  double restitution = 0.9;  ///< e ∈ [0, 1]
};

/// The parameters of impactPendulum(); the defaults give the reference times of the file comment.
struct ImpactPendulumParams {
  double mass = 1.0;         ///< m > 0 [kg]
  double length = 1.0;       ///< L > 0 [m]
  double gravity = 9.81;     ///< g > 0 [m/s²]
  double restitution = 0.5;  ///< e ∈ [0, 1] of the wall
};

/// The parameters of limitedChain(): two equal links, the second joint limited both ways.
struct LimitedChainParams {
  double mass = 1.0;         ///< each particle [kg] > 0
  double length = 1.0;       ///< each link [m] > 0
  double gravity = 9.81;     ///< g > 0 [m/s²]
  double limit = 0.5;        ///< θ_max ∈ (0, π/2) [rad], the bound on the second joint's relative angle
  double restitution = 0.5;  ///< e ∈ [0, 1] of both limits
};

/// "ball": a point mass on a vertical line (q = (y), nq = 1, no equalities) above the gap
/// "floor", y ≥ 0, released at rest from params.height at t = 0. Throws std::invalid_argument
/// naming the bad parameter and its value.
ContactProblem bouncingBall(const BouncingBallParams& params = {});
/// "impact_pendulum": a one-link PendulumChain (q = (x, y, z) of its particle [m]) released at
/// rest along +x from the pivot at the origin, with the gap "wall", x ≥ 0 (a JointLimits lower
/// bound), which it reaches at the bottom of its first swing. Throws std::invalid_argument naming
/// the bad parameter and its value.
ContactProblem impactPendulum(const ImpactPendulumParams& params = {});
/// "limited_chain": a two-link PendulumChain released at rest along +x, with the second joint's
/// relative angle held to |θ| ≤ params.limit by a RelativeAngleLimit (gaps "joint2_upper" and
/// "joint2_lower"). Throws std::invalid_argument naming the bad parameter and its value.
ContactProblem limitedChain(const LimitedChainParams& params = {});

/// The problem of that name ("ball", "impact_pendulum", "limited_chain") with its defaults;
/// throws std::invalid_argument listing the names otherwise.
ContactProblem contactProblem(const std::string& name);

/// The relative-angle limit of a two-link PendulumChain (pivot at the origin): gaps
/// "joint2_upper" = sin θ_max − s and "joint2_lower" = s + sin θ_max with s = (p₀ × p₁)_z/(L₀L₁).
class RelativeAngleLimit final : public UnilateralConstraints {
 public:
  /// Throws std::invalid_argument for lengths ≤ 0, θ_max outside (0, π/2) or e outside [0, 1].
  RelativeAngleLimit(double length0, double length1, double limit, double restitution);
  int ng() const override { return 2; }
  std::string gapName(int k) const override;
  double restitution(int k) const override;
  void gap(ConstVectorRef q, double t, VectorRef g) const override;
  void gapJacobian(ConstVectorRef q, double t, MatrixRef J_N) const override;
  void gapBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma_N) const override;

 private:
  double scale_, sin_limit_, restitution_;
};

}  // namespace kktdae::contact
