// Proves that models with automatic derivatives, models from a Lagrangian and the particle system
// allocate nothing on the per-step path: their J, ∂φ/∂t, γ, M and h evaluations and the KKT
// solves and fixed steps built on them. Same technique as allocation_test.cpp: malloc, calloc,
// realloc and operator new are replaced by counting versions that forward to glibc; counting is
// on only while a test holds an AllocationCounter (alloc/allocation_counter.hpp).
#include <catch2/catch.hpp>

#include "alloc/allocation_counter.hpp"
#include "kktdae/models/particle_system.hpp"
#include "unit/autodiff/ad_test_models.hpp"

using kktdae::testing::AllocationCounter;
using namespace kktdae;

namespace {

ParticleSystemParams spatialParticles() {
  ParticleSystemParams params;
  params.dimension = 3;
  params.particles = {{1.0, Eigen::Vector3d(0.5, 0.0, 0.1)}, {2.0, Eigen::Vector3d::Zero()}};
  params.anchors = {Eigen::Vector3d::Zero()};
  params.distances = {{PointRef::particle(0), PointRef::anchor(0), 1.0},
                      {PointRef::particle(1), PointRef::particle(0), 0.8}};
  params.lines = {{1, Eigen::Vector3d(0.0, -1.0, 0.0), Eigen::Vector3d(1.0, 0.3, -0.2)}};
  return params;
}

/// Every model term into preallocated outputs, then KKT solves in both forms: zero allocations
/// after one warm-up call each.
void requireNoAllocation(const ConstrainedSystem& system) {
  std::mt19937_64 rng(1);
  const Vector q = testing::randomVector(rng, system.nq(), 1.0);
  const Vector v = testing::randomVector(rng, system.nq(), 1.0);
  const Vector u = Vector::Constant(system.nu(), 0.5);
  Matrix M(system.nq(), system.nq()), J(system.nc(), system.nq()), S(system.nu(), system.nq());
  Vector h(system.nq()), phi(system.nc()), phi_t(system.nc()), gamma(system.nc());
  const auto evaluateAll = [&](double t) {
    if (system.massStructure() == MassStructure::General) system.massMatrix(q, M);
    system.bias(q, v, t, h);
    system.inputMap(q, t, S);
    system.constraint(q, t, phi);
    system.constraintJacobian(q, t, J);
    system.constraintTimeDerivative(q, t, phi_t);
    system.constraintBias(q, v, t, gamma);
    return system.kineticEnergy(q, v) + system.potentialEnergy(q, t);
  };
  evaluateAll(0.1);  // warm-up
  long count = 0;
  {
    AllocationCounter counter;
    for (int i = 0; i < 50; ++i) evaluateAll(0.1 + i);
    count = counter.count();
  }
  INFO(system.name() << ": model terms");
  CHECK(count == 0);

  for (KktForm form : {KktForm::Schur, KktForm::Block}) {
    KktWorkspace ws(system);
    KktOptions options;
    options.form = form;
    const Stabilization stab = Stabilization::critical(20.0);
    REQUIRE(solveAccelerations(system, 0.1, q, v, u, stab, options, ws).ok());  // warm-up
    {
      AllocationCounter counter;
      for (int i = 0; i < 50; ++i) solveAccelerations(system, 0.1 + i, q, v, u, stab, options, ws);
      count = counter.count();
    }
    INFO(system.name() << ": solves, " << toString(form));
    CHECK(count == 0);
  }
}

}  // namespace

TEST_CASE("autodiff allocation: the counter sees a heap vector of duals (self-check)", "[allocation]") {
  long count = 0;
  {
    AllocationCounter counter;
    Eigen::Matrix<Dual2, Eigen::Dynamic, 1> scratch(100);
    scratch.setZero();
    count = counter.count();
  }
  CHECK(count >= 1);
}

TEST_CASE("autodiff allocation: derived J, dphi/dt, gamma, M, h and their KKT solves allocate nothing",
          "[allocation]") {
  testing::JointDoublePendulum::Params slot;
  slot.rotating_slot = true;
  requireNoAllocation(testing::AdPendulumChain(PendulumChainParams::uniform(3)));
  requireNoAllocation(testing::AdPendulumChain(PendulumChainParams::uniform(10)));
  requireNoAllocation(testing::AdCircleMass());
  requireNoAllocation(testing::AdJointDoublePendulum(slot));
  requireNoAllocation(testing::LagrangianDoublePendulum(slot));
  requireNoAllocation(testing::RotatingFrameParticle(1.0, 0.5, 2.0));
  requireNoAllocation(ParticleSystem(spatialParticles()));
}

TEST_CASE("autodiff allocation: fixed steps on derived models allocate nothing", "[allocation]") {
  testing::JointDoublePendulum::Params slot;
  slot.rotating_slot = true;
  const testing::AdPendulumChain chain(PendulumChainParams::uniform(3));
  const testing::LagrangianDoublePendulum lagrangian(slot);
  const ParticleSystem particles(ParticleSystemParams::fromPendulumChain(PendulumChainParams::uniform(3)));
  const PendulumChain hand(PendulumChainParams::uniform(3));
  State lagrangian_start;
  lagrangian_start.q = (Vector(2) << 0.3, 0.2).finished();
  lagrangian_start.v = Vector::Zero(2);
  const std::pair<const ConstrainedSystem*, State> runs[] = {
      {&chain, hand.initialState(0.2)}, {&particles, hand.initialState(0.2)}, {&lagrangian, lagrangian_start}};
  for (const auto& [system, start] : runs) {
    for (KktForm form : {KktForm::Schur, KktForm::Block}) {
      KktOptions options;
      options.form = form;
      AccelerationFunction f(*system, Stabilization::critical(20.0), options);
      StepWorkspace ws(system->nq());
      State state = start;
      Vector qdd(system->nq());
      REQUIRE(f.evaluate(state.t, state.q, state.v, qdd).ok());
      REQUIRE(rk4Step(f, state, 0.005, qdd, ws).ok());  // warm-up
      long count = 0;
      {
        AllocationCounter counter;
        for (int i = 0; i < 100; ++i) {
          f.evaluate(state.t, state.q, state.v, qdd);
          rk4Step(f, state, 0.005, qdd, ws);
        }
        count = counter.count();
      }
      INFO(system->name() << " rk4 " << toString(form));
      CHECK(count == 0);
    }
  }
}
