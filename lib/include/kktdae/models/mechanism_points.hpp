#pragma once
/// @file
/// The three mass-carrying points of the planar mechanisms in joint coordinates (four_bar.hpp,
/// slider_crank.hpp), over any scalar so that the same expressions give the energies, their
/// automatic derivatives and the positions compared against the particle twins.

#include <Eigen/Core>
#include <cmath>

#include "kktdae/core/state.hpp"

namespace kktdae {

/// A point of the x–y plane over Scalar (double or a Dual).
template <typename Scalar>
using PlanarPoint = Eigen::Matrix<Scalar, 2, 1>;

/// Positions (or velocities, or accelerations) of the points B, C and P of a planar mechanism:
/// the crank pin B, the joint or slider C, and the point P carried by the coupler or rod.
template <typename Scalar>
struct MechanismPoints {
  PlanarPoint<Scalar> b;  ///< crank pin B [m] (or its rate)
  PlanarPoint<Scalar> c;  ///< coupler–rocker joint or slider C [m]
  PlanarPoint<Scalar> p;  ///< coupler or rod point P [m]
};

/// e(θ) = (cos θ, sin θ), the unit vector at angle θ from +x.
template <typename Scalar>
PlanarPoint<Scalar> unitVector(const Scalar& angle) {
  using std::cos;
  using std::sin;
  return PlanarPoint<Scalar>(cos(angle), sin(angle));
}

/// e⊥(θ) = e(θ + π/2) = (−sin θ, cos θ) = de/dθ.
template <typename Scalar>
PlanarPoint<Scalar> unitNormal(const Scalar& angle) {
  using std::cos;
  using std::sin;
  return PlanarPoint<Scalar>(-sin(angle), cos(angle));
}

/// The state of a mechanism's particle twin (particles 0 = B, 1 = C, 2 = P in 2D) from the points'
/// positions and velocities: q = (B, C, P), v = (Ḃ, Ċ, Ṗ), both of size 6, at time t.
State mechanismTwinState(double t, const MechanismPoints<double>& positions,
                         const MechanismPoints<double>& velocities);

}  // namespace kktdae
