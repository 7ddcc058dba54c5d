#include "kktdae/multibody/andrews_mechanism.hpp"

#include <Eigen/Geometry>
#include <cmath>

#include "kktdae/multibody/mechanism_builder.hpp"

namespace kktdae::multibody {

namespace {

/// Each body's pivot, and points in its "natural" frame: origin at its pivot, x along its
/// absolute angle (the angles of AndrewsSqueezer). A planar body's own frame has its origin at
/// the centre of mass, so a natural point X sits at X − c in it.
struct AndrewsGeometry {
  Eigen::Vector2d centre[7];  ///< centre of mass in the natural frame
};

AndrewsGeometry geometry(const AndrewsSqueezerParams& p) {
  AndrewsGeometry g;
  g.centre[0] = {p.ra, 0.0};             // K1: O at the origin, the crank pin at (rr, 0)
  g.centre[1] = {-p.da, 0.0};            // K2: the crank pin at the origin, E at (−d, 0)
  // K3, K5, K7 turn about fixed points: only their centres' distances from them, √(sa² + sb²)
  // and so on, enter the motion (the Test Set's kinetic energy), so they are put on these
  // directions.
  g.centre[2] = {p.sa, -p.sb};           // K3: B at the origin, E at (0, −ss), D at (sd, −sc)
  g.centre[3] = {p.ta, p.tb};            // K5: A at the origin, K4's hinge at (zt, 0)
  g.centre[4] = {0.0, -(p.e - p.ea)};    // K4: its hinge at the origin, E at (0, −e)
  g.centre[5] = {p.ua, p.ub};            // K7: A at the origin, K6's hinge at (0, −u)
  g.centre[6] = {p.zf - p.fa, 0.0};      // K6: its hinge at the origin, E at (zf, 0)
  return g;
}

Eigen::Vector3d local(const AndrewsGeometry& g, int body, double x, double y) {
  return Eigen::Vector3d(x - g.centre[body][0], y - g.centre[body][1], 0.0);
}

Eigen::Vector2d turned(double angle, const Eigen::Vector2d& x) { return Eigen::Rotation2Dd(angle) * x; }

}  // namespace

Mechanism andrewsMechanism(const AndrewsSqueezerParams& p) {
  p.validate();
  const AndrewsGeometry g = geometry(p);
  MechanismBuilder b("andrews_bodies");
  const double masses[7] = {p.m1, p.m2, p.m3, p.m5, p.m4, p.m7, p.m6};
  const double inertias[7] = {p.i1, p.i2, p.i3, p.i5, p.i4, p.i7, p.i6};
  const char* names[7] = {"K1", "K2", "K3", "K5", "K4", "K7", "K6"};
  // Built at the Test Set's start, so builtConfiguration() is its consistent configuration.
  const State start = andrewsBodyState(p, andrewsSqueezerStart().state);
  int body[7];
  for (int k = 0; k < 7; ++k) {
    body[k] = b.addPlanarBody(names[k], {masses[k], inertias[k]}, start.q[3 * k], start.q[3 * k + 1], start.q[3 * k + 2]);
  }
  const int ground = MechanismBuilder::kGround;
  auto at = [&](int k, double x, double y) { return Frame::at(local(g, k, x, y)); };
  const int crank = b.addJoint("O", JointKind::Revolute, ground, Frame::at({0.0, 0.0, 0.0}), body[0], at(0, 0.0, 0.0));
  b.addJoint("crank_pin", JointKind::Revolute, body[0], at(0, p.rr, 0.0), body[1], at(1, 0.0, 0.0));
  b.addJoint("B", JointKind::Revolute, ground, Frame::at({p.xb, p.yb, 0.0}), body[2], at(2, 0.0, 0.0));
  b.addJoint("A5", JointKind::Revolute, ground, Frame::at({p.xa, p.ya, 0.0}), body[3], at(3, 0.0, 0.0));
  b.addJoint("hinge4", JointKind::Revolute, body[3], at(3, p.zt, 0.0), body[4], at(4, 0.0, 0.0));
  b.addJoint("A7", JointKind::Revolute, ground, Frame::at({p.xa, p.ya, 0.0}), body[5], at(5, 0.0, 0.0));
  b.addJoint("hinge6", JointKind::Revolute, body[5], at(5, 0.0, -p.u), body[6], at(6, 0.0, 0.0));
  b.addJoint("E3", JointKind::Revolute, body[1], at(1, -p.d, 0.0), body[2], at(2, 0.0, -p.ss));
  b.addJoint("E4", JointKind::Revolute, body[1], at(1, -p.d, 0.0), body[4], at(4, 0.0, -p.e));
  b.addJoint("E6", JointKind::Revolute, body[1], at(1, -p.d, 0.0), body[6], at(6, p.zf, 0.0));
  b.addSpring("spring", ground, Eigen::Vector3d(p.xc, p.yc, 0.0), body[2], local(g, 2, p.sd, -p.sc), p.c0, 0.0, p.l0);
  // The driving torque on K1 about O: a rotational element with only its constant torque.
  b.addRotationalSpring("drive", crank, 0.0, 0.0, 0.0, p.mom);
  return b.build();
}

State andrewsBodyState(const AndrewsSqueezerParams& p, const State& angles) {
  const AndrewsGeometry g = geometry(p);
  const Vector& a = angles.q;
  const Vector& w = angles.v;
  // Absolute angles and rates, in body order K1, K2, K3, K5, K4, K7, K6.
  const double psi[7] = {a[0], a[0] + a[1], a[2], a[4], a[3] + a[4], a[6], a[5] + a[6]};
  const double rate[7] = {w[0], w[0] + w[1], w[2], w[4], w[3] + w[4], w[6], w[5] + w[6]};
  // Pivots and their velocities: O, the crank pin, B, A, K4's hinge, A, K6's hinge.
  const Eigen::Vector2d A(p.xa, p.ya);
  auto cross = [](double omega, const Eigen::Vector2d& r) { return Eigen::Vector2d(-omega * r[1], omega * r[0]); };
  const Eigen::Vector2d pin = turned(psi[0], {p.rr, 0.0});
  const Eigen::Vector2d hinge4 = turned(psi[3], {p.zt, 0.0});
  const Eigen::Vector2d hinge6 = turned(psi[5], {0.0, -p.u});
  const Eigen::Vector2d pivot[7] = {Eigen::Vector2d::Zero(), pin, {p.xb, p.yb}, A, A + hinge4, A, A + hinge6};
  const Eigen::Vector2d pivot_rate[7] = {Eigen::Vector2d::Zero(), cross(rate[0], pin), Eigen::Vector2d::Zero(),
                                         Eigen::Vector2d::Zero(), cross(rate[3], hinge4), Eigen::Vector2d::Zero(),
                                         cross(rate[5], hinge6)};
  State s;
  s.t = angles.t;
  s.q.resize(21);
  s.v.resize(21);
  for (int k = 0; k < 7; ++k) {
    const Eigen::Vector2d arm = turned(psi[k], g.centre[k]);
    s.q.segment<2>(3 * k) = pivot[k] + arm;
    s.q[3 * k + 2] = psi[k];
    s.v.segment<2>(3 * k) = pivot_rate[k] + cross(rate[k], arm);
    s.v[3 * k + 2] = rate[k];
  }
  return s;
}

Vector andrewsAngles(const Mechanism&, ConstVectorRef q) {
  auto theta = [&](int k) { return q[3 * k + 2]; };
  Vector angles(7);
  angles << theta(0), theta(1) - theta(0), theta(2), theta(4) - theta(3), theta(3), theta(6) - theta(5), theta(5);
  return angles;
}

}  // namespace kktdae::multibody
