#include "kktdae/models/slider_crank.hpp"

#include <algorithm>
#include <cmath>

#include "kktdae/core/checks.hpp"

namespace kktdae {

void SliderCrankParams::validate() const {
  requirePositive("crank", crank);
  requirePositive("rod", rod);
  if (!std::isfinite(offset)) throwInvalid("offset", "must be finite, got " + formatDouble(offset));
  requirePositive("mass_b", mass_b);
  requirePositive("mass_slider", mass_slider);
  requirePositive("mass_p", mass_p);
  if (!std::isfinite(point_along)) throwInvalid("point_along", "must be finite, got " + formatDouble(point_along));
  if (!(std::isfinite(point_normal) && point_normal != 0.0)) {
    // On the line BC the twin's triangle B, C, P is flat and its three distances are dependent.
    throwInvalid("point_normal", "must be finite and non-zero (P off the rod line BC), got " +
                                     formatDouble(point_normal));
  }
  requireNonNegative("gravity", gravity);
}

SliderCrank::SliderCrank(SliderCrankParams params) : LagrangianSystem(3, 2), params_(params) { params_.validate(); }

Eigen::Vector3d assembleSliderCrank(const SliderCrankParams& params, double crank_angle, SliderCrankBranch branch) {
  params.validate();
  if (!std::isfinite(crank_angle)) throwInvalid("crank_angle", "must be finite, got " + formatDouble(crank_angle));
  const double rise = params.offset - params.crank * std::sin(crank_angle);  // l sin ψ: B up to the guide
  if (std::abs(rise) > params.rod) {
    throwInvalid("crank_angle", "the slider-crank cannot close at " + formatDouble(crank_angle) +
                                    " rad: the guide is " + formatDouble(rise) + " m from the crank pin across it, " +
                                    "more than the rod length " + formatDouble(params.rod) + " m");
  }
  const double sine = rise / params.rod;
  const double side = branch == SliderCrankBranch::Right ? 1.0 : -1.0;
  // Rounding can push the square a hair below 0 when the guide is exactly one rod length away.
  const double cosine = side * std::sqrt(std::max(0.0, 1.0 - sine * sine));
  const double rod_angle = std::atan2(sine, cosine);
  return Eigen::Vector3d(crank_angle, rod_angle, params.crank * std::cos(crank_angle) + params.rod * cosine);
}

State sliderCrankState(const SliderCrankParams& params, double crank_angle, double crank_rate,
                       SliderCrankBranch branch, double t) {
  if (!std::isfinite(crank_rate)) throwInvalid("crank_rate", "must be finite, got " + formatDouble(crank_rate));
  const Eigen::Vector3d q = assembleSliderCrank(params, crank_angle, branch);
  const double rod_cosine = std::cos(q[1]);
  if (std::abs(rod_cosine) < 1e-9) {
    throwInvalid("crank_angle", "at " + formatDouble(crank_angle) +
                                    " rad the rod is perpendicular to the guide (cos ψ = " + formatDouble(rod_cosine) +
                                    "): the crank rate does not determine the rod's rate");
  }
  // The y row of J q̇ = 0 gives ψ̇, the x row then ṡ.
  const double rod_rate = -params.crank * std::cos(q[0]) * crank_rate / (params.rod * rod_cosine);
  const double slider_rate = -params.crank * std::sin(q[0]) * crank_rate - params.rod * std::sin(q[1]) * rod_rate;
  State state;
  state.t = t;
  state.q = q;
  state.v = Eigen::Vector3d(crank_rate, rod_rate, slider_rate);
  return state;
}

ParticleSystemParams sliderCrankTwin(const SliderCrankParams& params, double slider_force) {
  params.validate();
  if (!std::isfinite(slider_force)) throwInvalid("slider_force", "must be finite, got " + formatDouble(slider_force));
  ParticleSystemParams twin;
  twin.dimension = 2;
  twin.gravity = params.gravity;
  twin.particles = {{params.mass_b, Eigen::Vector3d::Zero()},
                    {params.mass_slider, Eigen::Vector3d(slider_force, 0.0, 0.0)},
                    {params.mass_p, Eigen::Vector3d::Zero()}};
  twin.anchors = {Eigen::Vector3d::Zero()};
  // P in the rod's frame (origin B, x along B→C): (p_along, p_normal); C is (l, 0).
  const double b_to_p = std::hypot(params.point_along, params.point_normal);
  const double c_to_p = std::hypot(params.point_along - params.rod, params.point_normal);
  twin.distances = {{PointRef::anchor(0), PointRef::particle(0), params.crank},
                    {PointRef::particle(0), PointRef::particle(1), params.rod},
                    {PointRef::particle(0), PointRef::particle(2), b_to_p},
                    {PointRef::particle(1), PointRef::particle(2), c_to_p}};
  twin.lines = {{1, Eigen::Vector3d(0.0, params.offset, 0.0), Eigen::Vector3d::UnitX()}};
  return twin;
}

State sliderCrankTwinState(const SliderCrankParams& params, const State& joint) {
  requireSize("joint.q", joint.q.size(), 3);
  requireSize("joint.v", joint.v.size(), 3);
  return mechanismTwinState(joint.t, sliderCrankPoints(params, joint.q),
                            sliderCrankPointVelocities(params, joint.q, joint.v));
}

}  // namespace kktdae
