// ParticleSystem: validation messages, derivatives against finite differences, sliders against
// closed forms, energies, and the chain built from data against PendulumChain (1e-12).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "kktdae/models/particle_system.hpp"
#include "support/test_models.hpp"

using namespace kktdae;
using kktdae::testing::randomVector;
using Catch::Contains;

namespace {

/// A 2D system with every kind of item: a pendulum hanging from anchor 0, a second particle on a
/// slanted slider linked to the first, a third particle linked to anchor 1, external forces.
ParticleSystemParams mixedPlanar() {
  ParticleSystemParams params;
  params.dimension = 2;
  params.particles = {{1.0, Eigen::Vector3d(0.5, 0.0, 0.0)}, {2.0, Eigen::Vector3d::Zero()},
                      {0.7, Eigen::Vector3d(-0.2, 1.0, 0.0)}};
  params.anchors = {Eigen::Vector3d(0.0, 0.0, 0.0), Eigen::Vector3d(2.0, 1.0, 0.0)};
  params.distances = {{PointRef::particle(0), PointRef::anchor(0), 1.0},
                      {PointRef::particle(1), PointRef::particle(0), 0.8},
                      {PointRef::anchor(1), PointRef::particle(2), 1.3}};
  params.lines = {{1, Eigen::Vector3d(0.0, -1.0, 0.0), Eigen::Vector3d(1.0, 0.3, 0.0)}};
  return params;
}

/// The same in 3D with a slider along a skew line (two rows).
ParticleSystemParams mixedSpatial() {
  ParticleSystemParams params = mixedPlanar();
  params.dimension = 3;
  params.particles[0].force.z() = 0.4;
  params.anchors[1].z() = -0.5;
  params.lines = {{1, Eigen::Vector3d(0.0, -1.0, 0.2), Eigen::Vector3d(1.0, 0.3, -0.6)},
                  {2, Eigen::Vector3d(1.0, 0.0, 0.0), Eigen::Vector3d(0.0, 0.0, 2.0)}};
  return params;
}

void requireInvalid(const ParticleSystemParams& params, const std::string& expected_fragment) {
  INFO("expected a message containing: " << expected_fragment);
  CHECK_THROWS_AS(ParticleSystem(params), std::invalid_argument);
  CHECK_THROWS_WITH(ParticleSystem(params), Contains(expected_fragment));
}

}  // namespace

TEST_CASE("particles: construction rejects bad data with messages naming the item and value", "[particles]") {
  CHECK_NOTHROW(ParticleSystem(mixedPlanar()));
  CHECK_NOTHROW(ParticleSystem(mixedSpatial()));
  ParticleSystemParams p = mixedPlanar();

  p.dimension = 4;
  requireInvalid(p, "dimension: must be 2 or 3, got 4");
  p = mixedPlanar();
  p.particles.clear();
  requireInvalid(p, "particles: at least one particle is needed");
  p = mixedPlanar();
  p.particles[1].mass = 0.0;
  requireInvalid(p, "particles[1].mass: must be finite and > 0, got 0");
  p = mixedPlanar();
  p.particles[2].mass = -3.5;
  requireInvalid(p, "particles[2].mass: must be finite and > 0, got -3.5");
  p = mixedPlanar();
  p.gravity = -1.0;
  requireInvalid(p, "gravity");
  p = mixedPlanar();
  p.distances[1].length = 0.0;
  requireInvalid(p, "distances[1].length: must be finite and > 0, got 0");
  p = mixedPlanar();
  p.distances[2].length = -0.25;
  requireInvalid(p, "distances[2].length: must be finite and > 0, got -0.25");
  p = mixedPlanar();
  p.distances[1].a = PointRef::particle(7);
  requireInvalid(p, "distances[1].a: unknown particle index 7 (the system has 3 particles)");
  p = mixedPlanar();
  p.distances[0].b = PointRef::anchor(2);
  requireInvalid(p, "distances[0].b: unknown anchor index 2 (the system has 2 anchors)");
  p = mixedPlanar();
  p.distances[1].b = PointRef::particle(1);
  requireInvalid(p, "distances[1]: both ends are particle 1 (coincident points");
  p = mixedPlanar();
  p.distances[0].a = PointRef::anchor(1);
  requireInvalid(p, "distances[0]: both ends are anchors (anchor 1 and anchor 0)");
  p = mixedPlanar();
  p.lines[0].direction.setZero();
  requireInvalid(p, "lines[0].direction: must be non-zero, got (0, 0, 0)");
  p = mixedPlanar();
  p.lines[0].particle = 3;
  requireInvalid(p, "lines[0].particle: unknown particle index 3");
  p = mixedPlanar();
  p.lines[0].direction.z() = 1.0;
  requireInvalid(p, "lines[0].direction: z must be 0 in a 2D system, got (1, 0.3, 1)");
  p = mixedPlanar();
  p.anchors[1].x() = std::nan("");
  requireInvalid(p, "anchors[1]: must be finite");
  p = mixedPlanar();
  p.particles[0].force.z() = 2.0;
  requireInvalid(p, "particles[0].force: z must be 0 in a 2D system");
}

TEST_CASE("particles: makeState checks counts and coincident ends", "[particles]") {
  const ParticleSystem system(mixedPlanar());
  const std::vector<Eigen::Vector3d> good = {{0.0, -1.0, 0.0}, {0.5, -0.85, 0.0}, {2.0, -0.3, 0.0}};
  const State state = system.makeState(good);
  CHECK(state.q.size() == 6);
  CHECK(state.v.isZero());
  CHECK(system.position(state.q, 2) == good[2]);
  CHECK_THROWS_WITH(system.makeState({good[0]}), Contains("positions: size 1, expected 3"));
  std::vector<Eigen::Vector3d> coincident = good;
  coincident[1] = coincident[0];
  CHECK_THROWS_WITH(system.makeState(coincident),
                    Contains("distances[1]: particle 1 and particle 0 coincide in this state"));
  std::vector<Eigen::Vector3d> on_anchor = good;
  on_anchor[2] = Eigen::Vector3d(2.0, 1.0, 0.0);
  CHECK_THROWS_WITH(system.makeState(on_anchor), Contains("distances[2]: anchor 1 and particle 2 coincide"));
  CHECK_THROWS_WITH(system.position(state.q, 3), Contains("index: unknown particle index 3"));
}

TEST_CASE("particles: sizes, names and the line normals", "[particles]") {
  const ParticleSystem planar(mixedPlanar());
  CHECK(planar.nq() == 6);
  CHECK(planar.nc() == 4);  // 3 distances + 1 row for the 2D slider
  CHECK(planar.name() == "particle_system(2D: 3 particles, 3 distances, 1 line)");
  const ParticleSystem spatial(mixedSpatial());
  CHECK(spatial.nq() == 9);
  CHECK(spatial.nc() == 7);  // 3 distances + 2 rows per 3D slider
  // The slider rows of J are orthonormal and orthogonal to the line direction.
  Matrix J(spatial.nc(), spatial.nq());
  spatial.constraintJacobian(Vector::Ones(9), 0.0, J);
  const Eigen::Vector3d u0 = mixedSpatial().lines[0].direction.normalized();
  const Eigen::Vector3d n1 = J.block<1, 3>(3, 3).transpose();
  const Eigen::Vector3d n2 = J.block<1, 3>(4, 3).transpose();
  CHECK(n1.norm() == Approx(1.0));
  CHECK(n2.norm() == Approx(1.0));
  CHECK(std::abs(n1.dot(n2)) < 1e-15);
  CHECK(std::abs(n1.dot(u0)) < 1e-15);
  CHECK(std::abs(n2.dot(u0)) < 1e-15);
}

TEST_CASE("particles: J and gamma match finite differences (2D and 3D)", "[particles]") {
  for (const ParticleSystemParams& params : {mixedPlanar(), mixedSpatial()}) {
    const ParticleSystem system(params);
    std::mt19937_64 rng(11);
    for (int trial = 0; trial < 25; ++trial) {
      const Vector q = randomVector(rng, system.nq(), 2.0);
      const Vector v = randomVector(rng, system.nq(), 3.0);
      const DerivativeCheckReport report = checkDerivatives(system, q, v, 0.0);
      INFO(system.name() << " trial " << trial << ": " << report.describe());
      CHECK(report.worstRelativeError() < 1e-7);
    }
  }
}

TEST_CASE("particles: h is the gradient of the potential (gravity and constant forces)", "[particles]") {
  for (const ParticleSystemParams& params : {mixedPlanar(), mixedSpatial()}) {
    const ParticleSystem system(params);
    std::mt19937_64 rng(3);
    const Vector q = randomVector(rng, system.nq(), 2.0);
    Vector h(system.nq());
    system.bias(q, Vector::Zero(system.nq()), 0.0, h);
    // V is linear in q, so a central difference with any step is exact up to rounding.
    for (int i = 0; i < system.nq(); ++i) {
      Vector up = q, down = q;
      up[i] += 0.5;
      down[i] -= 0.5;
      CHECK(system.potentialEnergy(up, 0.0) - system.potentialEnergy(down, 0.0) == Approx(h[i]).margin(1e-12));
    }
    const Vector v = randomVector(rng, system.nq(), 2.0);
    Vector m(system.nq());
    system.massDiagonal(q, m);
    CHECK(system.kineticEnergy(q, v) == Approx(0.5 * v.dot(m.cwiseProduct(v))));
  }
}

TEST_CASE("particles: a slider accelerates along its line by the tangential force", "[particles]") {
  // One particle of mass m on a line with unit direction u, gravity and a force F: the exact
  // answer is q̈ = (uᵀ(m g_vec + F) / m) u and the normal force balances the rest.
  for (int dimension : {2, 3}) {
    ParticleSystemParams params;
    params.dimension = dimension;
    params.particles = {{2.0, dimension == 3 ? Eigen::Vector3d(0.3, -0.4, 1.1) : Eigen::Vector3d(0.3, -0.4, 0.0)}};
    const Eigen::Vector3d direction = dimension == 3 ? Eigen::Vector3d(1.0, -2.0, 0.5) : Eigen::Vector3d(1.0, -2.0, 0.0);
    params.lines = {{0, Eigen::Vector3d(0.1, 0.2, 0.0), direction}};
    const ParticleSystem system(params);
    KktWorkspace ws(system);
    const Vector q = system.makeState({Eigen::Vector3d(0.1, 0.2, 0.0) + 0.7 * direction}).q;
    const Vector v = Vector::Zero(dimension);
    REQUIRE(solveAccelerations(system, 0.0, q, v, Vector(), Stabilization::none(), KktOptions{}, ws).ok());
    const Eigen::Vector3d u = direction.normalized();
    const Eigen::Vector3d applied = params.particles[0].force + Eigen::Vector3d(0.0, -2.0 * 9.81, 0.0);
    const Eigen::Vector3d expected = u.dot(applied) / 2.0 * u;
    INFO("dimension " << dimension);
    for (int c = 0; c < dimension; ++c) CHECK(std::abs(ws.qdd[c] - expected[c]) < 1e-12);
  }
}

TEST_CASE("particles: the chain built from data reproduces PendulumChain's trajectories to 1e-12",
          "[particles]") {
  PendulumChainParams chain_params = PendulumChainParams::uniform(3);
  chain_params.masses = {1.0, 0.6, 1.7};
  chain_params.lengths = {0.9, 1.1, 0.7};
  chain_params.pivot << 0.2, 0.5, -0.1;
  const PendulumChain chain(chain_params);
  const ParticleSystem particles(ParticleSystemParams::fromPendulumChain(chain_params));
  REQUIRE(particles.nq() == chain.nq());
  REQUIRE(particles.nc() == chain.nc());
  State initial = chain.initialState(0.4);
  initial.v = Vector::Zero(chain.nq());
  initial.v[2] = 0.3;  // out of the plane: a truly 3D motion

  for (KktForm form : {KktForm::Schur, KktForm::Block}) {
    for (Integrator integrator : {Integrator::Rk4, Integrator::SemiImplicitEuler}) {
      SimulationOptions options;
      options.integrator = integrator;
      options.dt = 0.005;
      options.steps = 800;
      options.kkt.form = form;
      options.stabilization = Stabilization::critical(20.0);
      std::vector<Vector> reference;
      const Summary a = simulate(chain, initial, options, [&](double, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) {
        Vector x(q.size() + v.size() + lambda.size());
        x << q, v, lambda;
        reference.push_back(x);
      });
      std::size_t index = 0;
      double worst = 0.0;
      const Summary b =
          simulate(particles, initial, options, [&](double, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) {
            Vector x(q.size() + v.size() + lambda.size());
            x << q, v, lambda;
            worst = std::max(worst, (x - reference.at(index++)).cwiseAbs().maxCoeff());
          });
      INFO(toString(form) << " " << toString(integrator) << ": max |difference| in (q, v, lambda) = " << worst);
      REQUIRE(a.ok());
      REQUIRE(b.ok());
      CHECK(index == reference.size());
      CHECK(worst <= 1e-12);
      CHECK(particles.totalEnergy(initial.q, initial.v, 0.0) == Approx(chain.totalEnergy(initial.q, initial.v, 0.0)));
    }
  }
}

TEST_CASE("particles: a pendulum on a slider (cart-pole) keeps its energy under RK4", "[particles]") {
  // Cart on a horizontal line, bob hanging from it: scleronomic, ideal constraints, no input, so
  // E is invariant; RK4 at dt = 1e-3 over 5 s holds it to its O(dt⁴) error: measured
  // max |ΔE| = 1.2e-8 J on a swing of about 10 J; the bound 1e-7 J leaves 8× margin.
  ParticleSystemParams params;
  params.dimension = 2;
  params.particles = {{3.0, Eigen::Vector3d::Zero()}, {1.0, Eigen::Vector3d::Zero()}};
  params.distances = {{PointRef::particle(1), PointRef::particle(0), 1.0}};
  params.lines = {{0, Eigen::Vector3d::Zero(), Eigen::Vector3d::UnitX()}};
  const ParticleSystem system(params);
  const State initial = system.makeState({Eigen::Vector3d(0.0, 0.0, 0.0), Eigen::Vector3d(std::sin(1.2), -std::cos(1.2), 0.0)},
                                         // both moving with the cart: consistent, φ̇ = 0
                                         {Eigen::Vector3d(0.5, 0.0, 0.0), Eigen::Vector3d(0.5, 0.0, 0.0)});
  SimulationOptions options;
  options.integrator = Integrator::Rk4;
  options.dt = 1e-3;
  options.steps = 5000;
  const double e0 = system.totalEnergy(initial.q, initial.v, 0.0);
  double worst = 0.0;
  double momentum_drift = 0.0;  // no horizontal force: total x-momentum is conserved too
  const double p0 = 3.0 * initial.v[0] + 1.0 * initial.v[2];
  const Summary summary = simulate(system, initial, options, [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
    worst = std::max(worst, std::abs(system.totalEnergy(q, v, t) - e0));
    momentum_drift = std::max(momentum_drift, std::abs(3.0 * v[0] + v[2] - p0));
  });
  REQUIRE(summary.ok());
  INFO("max |dE| = " << worst << " J, max |dp_x| = " << momentum_drift);
  CHECK(worst < 1e-7);
  CHECK(momentum_drift < 1e-10);
}
