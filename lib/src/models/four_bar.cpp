#include "kktdae/models/four_bar.hpp"

#include <algorithm>
#include <cmath>

#include "kktdae/core/checks.hpp"

namespace kktdae {
void FourBarParams::validate() const {
  requirePositive("ground", ground);
  requirePositive("crank", crank);
  requirePositive("coupler", coupler);
  requirePositive("rocker", rocker);
  requirePositive("mass_b", mass_b);
  requirePositive("mass_c", mass_c);
  requirePositive("mass_p", mass_p);
  if (!std::isfinite(point_along)) throwInvalid("point_along", "must be finite, got " + formatDouble(point_along));
  if (!(std::isfinite(point_normal) && point_normal != 0.0)) {
    // On the line BC the twin's triangle B, C, P is flat and its three distances are dependent.
    throwInvalid("point_normal", "must be finite and non-zero (P off the coupler line BC), got " +
                                     formatDouble(point_normal));
  }
  requireNonNegative("gravity", gravity);
}

FourBar::FourBar(FourBarParams params) : LagrangianSystem(3, 2), params_(params) { params_.validate(); }

Eigen::Vector3d assembleFourBar(const FourBarParams& params, double crank_angle, FourBarBranch branch) {
  params.validate();
  if (!std::isfinite(crank_angle)) throwInvalid("crank_angle", "must be finite, got " + formatDouble(crank_angle));
  const Eigen::Vector2d b = params.crank * unitVector(crank_angle);
  const Eigen::Vector2d d(params.ground, 0.0);
  const Eigen::Vector2d bd = d - b;
  const double distance = bd.norm();
  const double shortest = std::abs(params.coupler - params.rocker);
  const double longest = params.coupler + params.rocker;
  if (!(distance > 0.0 && distance >= shortest && distance <= longest)) {
    throwInvalid("crank_angle", "the four-bar cannot close at " + formatDouble(crank_angle) + " rad: |BD| = " +
                                    formatDouble(distance) + " m is outside [|b - c|, b + c] = [" +
                                    formatDouble(shortest) + ", " + formatDouble(longest) + "] m");
  }
  // C lies on both circles |C − B| = b and |C − D| = c: at `along` from B towards D and at
  // `across` from that line, on the side the branch names.
  const Eigen::Vector2d towards_d = bd / distance;
  const Eigen::Vector2d left(-towards_d[1], towards_d[0]);
  const double along = (distance * distance + params.coupler * params.coupler - params.rocker * params.rocker) /
                       (2.0 * distance);
  // Rounding can push the square a hair below 0 at the limits of the range checked above.
  const double across = std::sqrt(std::max(0.0, params.coupler * params.coupler - along * along));
  const double side = branch == FourBarBranch::Open ? 1.0 : -1.0;
  const Eigen::Vector2d c = b + along * towards_d + side * across * left;
  const Eigen::Vector2d coupler = c - b;
  const Eigen::Vector2d rocker = c - d;
  return Eigen::Vector3d(crank_angle, std::atan2(coupler[1], coupler[0]), std::atan2(rocker[1], rocker[0]));
}

State fourBarState(const FourBarParams& params, double crank_angle, double crank_rate, FourBarBranch branch,
                   double t) {
  if (!std::isfinite(crank_rate)) throwInvalid("crank_rate", "must be finite, got " + formatDouble(crank_rate));
  const Eigen::Vector3d q = assembleFourBar(params, crank_angle, branch);
  // J q̇ = a θ̇1 e⊥(θ1) + b θ̇2 e⊥(θ2) − c θ̇3 e⊥(θ3) = 0: two equations for (θ̇2, θ̇3), solved by
  // Cramer's rule. Their determinant is −b c sin(θ3 − θ2), zero when coupler and rocker line up.
  const Eigen::Vector2d crank_column = params.crank * unitNormal(q[0]);
  const Eigen::Vector2d coupler_column = params.coupler * unitNormal(q[1]);
  const Eigen::Vector2d rocker_column = -params.rocker * unitNormal(q[2]);
  const double sine = std::sin(q[2] - q[1]);
  if (std::abs(sine) < 1e-9) {
    throwInvalid("crank_angle", "at " + formatDouble(crank_angle) +
                                    " rad the coupler and the rocker are parallel (sin(θ3 − θ2) = " +
                                    formatDouble(sine) + "): the crank rate does not determine the other rates");
  }
  auto cross = [](const Eigen::Vector2d& x, const Eigen::Vector2d& y) { return x[0] * y[1] - x[1] * y[0]; };
  const Eigen::Vector2d rhs = -crank_rate * crank_column;
  const double det = cross(coupler_column, rocker_column);
  State state;
  state.t = t;
  state.q = q;
  state.v = Eigen::Vector3d(crank_rate, cross(rhs, rocker_column) / det, cross(coupler_column, rhs) / det);
  return state;
}

ParticleSystemParams fourBarTwin(const FourBarParams& params) {
  params.validate();
  ParticleSystemParams twin;
  twin.dimension = 2;
  twin.gravity = params.gravity;
  twin.particles = {{params.mass_b, Eigen::Vector3d::Zero()},
                    {params.mass_c, Eigen::Vector3d::Zero()},
                    {params.mass_p, Eigen::Vector3d::Zero()}};
  twin.anchors = {Eigen::Vector3d::Zero(), Eigen::Vector3d(params.ground, 0.0, 0.0)};
  // P in the coupler's frame (origin B, x along B→C): (p_along, p_normal); C is (b, 0).
  const double b_to_p = std::hypot(params.point_along, params.point_normal);
  const double c_to_p = std::hypot(params.point_along - params.coupler, params.point_normal);
  twin.distances = {{PointRef::anchor(0), PointRef::particle(0), params.crank},
                    {PointRef::particle(0), PointRef::particle(1), params.coupler},
                    {PointRef::anchor(1), PointRef::particle(1), params.rocker},
                    {PointRef::particle(0), PointRef::particle(2), b_to_p},
                    {PointRef::particle(1), PointRef::particle(2), c_to_p}};
  return twin;
}

State fourBarTwinState(const FourBarParams& params, const State& joint) {
  requireSize("joint.q", joint.q.size(), 3);
  requireSize("joint.v", joint.v.size(), 3);
  return mechanismTwinState(joint.t, fourBarPoints(params, joint.q),
                             fourBarPointVelocities(params, joint.q, joint.v));
}

}  // namespace kktdae
