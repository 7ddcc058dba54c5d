// Models from a Lagrangian: M, h, S, J, γ and the energies of the derived double pendulum against
// the hand-derived testing::JointDoublePendulum; every term of h on a rotating frame; energy
// conservation of a derived model under RK4.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "ad_test_models.hpp"

using namespace kktdae;
using kktdae::testing::JointDoublePendulum;
using kktdae::testing::LagrangianDoublePendulum;
using kktdae::testing::randomVector;

namespace {

// M and h are exact formulas on both sides, evaluated in different orders (the AD side also
// multiplies out cos² + sin² = 1 in rounding); entries are O(1–50), so their difference is a
// few 1e-15, and 1e-12 absolute catches any wrong term by orders of magnitude.
using kktdae::testing::kMatchTolerance;

JointDoublePendulum::Params unevenParams(bool slot) {
  JointDoublePendulum::Params params;
  params.m1 = 1.3;
  params.m2 = 0.7;
  params.l1 = 1.2;
  params.l2 = 0.8;
  params.g = 9.81;
  params.rotating_slot = slot;
  params.omega = 2.1;
  return params;
}

double maxAbs(const Eigen::Ref<const Matrix>& a) { return a.size() == 0 ? 0.0 : a.cwiseAbs().maxCoeff(); }

}  // namespace

TEST_CASE("lagrangian: M, h and S of the double pendulum match the hand-derived model to 1e-12",
          "[autodiff][lagrangian]") {
  for (bool slot : {false, true}) {
    const LagrangianDoublePendulum derived(unevenParams(slot));
    const JointDoublePendulum hand(unevenParams(slot));
    REQUIRE(derived.nq() == 2);
    REQUIRE(derived.nc() == hand.nc());
    REQUIRE(derived.nu() == 1);
    CHECK(derived.massStructure() == MassStructure::General);
    std::mt19937_64 rng(2718);
    for (int trial = 0; trial < 50; ++trial) {
      const Vector q = randomVector(rng, 2, 3.2);
      const Vector v = randomVector(rng, 2, 4.0);
      const double t = randomVector(rng, 1, 5.0)[0];
      Matrix M_derived(2, 2), M_hand(2, 2), S_derived(1, 2), S_hand(1, 2);
      Vector h_derived(2), h_hand(2);
      derived.massMatrix(q, M_derived);
      hand.massMatrix(q, M_hand);
      derived.bias(q, v, t, h_derived);
      hand.bias(q, v, t, h_hand);
      derived.inputMap(q, t, S_derived);
      hand.inputMap(q, t, S_hand);
      INFO("slot " << slot << " trial " << trial);
      CHECK(maxAbs(M_derived - M_hand) <= kMatchTolerance);
      CHECK(M_derived(0, 1) == M_derived(1, 0));  // mirrored, so exactly symmetric
      CHECK(maxAbs(h_derived - h_hand) <= kMatchTolerance);
      CHECK(maxAbs(S_derived - S_hand) == 0.0);
      CHECK(derived.kineticEnergy(q, v) == Approx(hand.kineticEnergy(q, v)).margin(kMatchTolerance));
      CHECK(derived.potentialEnergy(q, t) == Approx(hand.potentialEnergy(q, t)).margin(kMatchTolerance));
      if (slot) {
        Matrix J_derived(1, 2), J_hand(1, 2);
        Vector gamma_derived(1), gamma_hand(1), phi_t_derived(1), phi_t_hand(1);
        derived.constraintJacobian(q, t, J_derived);
        hand.constraintJacobian(q, t, J_hand);
        derived.constraintBias(q, v, t, gamma_derived);
        hand.constraintBias(q, v, t, gamma_hand);
        derived.constraintTimeDerivative(q, t, phi_t_derived);
        hand.constraintTimeDerivative(q, t, phi_t_hand);
        CHECK(maxAbs(J_derived - J_hand) <= kMatchTolerance);
        CHECK(maxAbs(gamma_derived - gamma_hand) <= kMatchTolerance);
        CHECK(maxAbs(phi_t_derived - phi_t_hand) <= kMatchTolerance);
      }
    }
  }
}

TEST_CASE("lagrangian: the KKT solve with a motor torque gives the hand-derived accelerations",
          "[autodiff][lagrangian]") {
  for (KktForm form : {KktForm::Schur, KktForm::Block}) {
    const LagrangianDoublePendulum derived(unevenParams(true));
    const JointDoublePendulum hand(unevenParams(true));
    KktWorkspace ws_derived(derived), ws_hand(hand);
    KktOptions options;
    options.form = form;
    std::mt19937_64 rng(31);
    for (int trial = 0; trial < 30; ++trial) {
      const Vector q = randomVector(rng, 2, 3.0);
      const Vector v = randomVector(rng, 2, 3.0);
      const Vector u = randomVector(rng, 1, 5.0);
      const double t = randomVector(rng, 1, 4.0)[0];
      const KktResult a = solveAccelerations(derived, t, q, v, u, Stabilization::critical(10.0), options, ws_derived);
      const KktResult b = solveAccelerations(hand, t, q, v, u, Stabilization::critical(10.0), options, ws_hand);
      if (!b.ok()) continue;  // a state where the slot is tangent to the tip path: singular for both
      REQUIRE(a.ok());
      // The solve divides by J M⁻¹ Jᵀ, which amplifies the 1e-15 model differences by its
      // condition; relative 1e-10 is that bound with margin.
      const double scale = std::max(1.0, maxAbs(ws_hand.qdd));
      INFO(toString(form) << " trial " << trial);
      CHECK(maxAbs(ws_derived.qdd - ws_hand.qdd) <= 1e-10 * scale);
      CHECK(maxAbs(ws_derived.lambda - ws_hand.lambda) <= 1e-10 * std::max(1.0, maxAbs(ws_hand.lambda)));
    }
  }
}

TEST_CASE("lagrangian: a hand-written piece overrides the derived one", "[autodiff][lagrangian]") {
  const testing::LagrangianDoublePendulumHandMass model(unevenParams(false));
  const ConstrainedSystem& system = model;
  const Vector q = (Vector(2) << 0.4, -1.1).finished();
  Matrix M_hand(2, 2), M_derived(2, 2);
  system.massMatrix(q, M_hand);  // virtual dispatch reaches the override
  model.derivedMassMatrix(q, M_derived);
  CHECK(maxAbs(M_hand - M_derived) <= kMatchTolerance);
}

TEST_CASE("lagrangian: every term of h on a frame with time-varying rotation", "[autodiff][lagrangian]") {
  // Coriolis and centrifugal terms come from (∂²T/∂q̇∂q) q̇ and ∂T/∂q, the Euler term from ∂²T/∂q̇∂t.
  const testing::RotatingFrameParticle model(1.7, 0.9, 3.0);
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    const Vector q = randomVector(rng, 2, 2.0);
    const Vector v = randomVector(rng, 2, 2.0);
    const double t = randomVector(rng, 1, 3.0)[0];
    Matrix M(2, 2);
    Vector h(2);
    model.massMatrix(q, M);
    model.bias(q, v, t, h);
    INFO("trial " << trial);
    CHECK(maxAbs(M - 1.7 * Matrix::Identity(2, 2)) <= kMatchTolerance);
    CHECK(maxAbs(h - model.expectedBias(q, v, t)) <= kMatchTolerance);
    // kineticEnergy() has no time argument (t = 0); kineticEnergyAt() takes one.
    CHECK(model.kineticEnergy(q, v) == Approx(0.5 * 1.7 * v.squaredNorm()));
    CHECK(model.kineticEnergyAt(q, v, t) > -1.0);
  }
}

TEST_CASE("lagrangian: derived model passes the finite-difference check", "[autodiff][lagrangian]") {
  const LagrangianDoublePendulum model(unevenParams(true));
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 20; ++trial) {
    const Vector q = randomVector(rng, 2, 3.0);
    const Vector v = randomVector(rng, 2, 2.0);
    const DerivativeCheckReport report = checkDerivatives(model, q, v, randomVector(rng, 1, 3.0)[0]);
    INFO(report.describe());
    CHECK(report.worstRelativeError() < 1e-7);
    CHECK(report.mass_asymmetry == 0.0);
  }
}

TEST_CASE("lagrangian: RK4 conserves the energy of the derived double pendulum", "[autodiff][lagrangian]") {
  // Unconstrained and unforced, E = T + V is an invariant of the exact flow. RK4 is not
  // symplectic: each step commits an O(dt⁵) energy error and they add up, |ΔE| ≈ C dt⁴ t_end.
  // Measured on this swing (E − V_min ≈ 33 J, 4 s, both links whirling through large angles):
  // max |ΔE| = 2.9e-7 J at dt = 2e-3 and 1.9e-8 J at dt = 1e-3 — the 16× of fourth order. The
  // bound 2e-7 J (6e-9 of E − V_min) at dt = 1e-3 is 10× the measurement; a wrong h (a dropped
  // Coriolis term, a sign) changes E at O(1) J and breaks it by orders of magnitude.
  const LagrangianDoublePendulum derived(unevenParams(false));
  const JointDoublePendulum hand(unevenParams(false));
  State initial;
  initial.q = (Vector(2) << 1.9, -0.6).finished();
  initial.v = (Vector(2) << 0.0, 2.0).finished();
  const auto maxEnergyError = [&](double dt) {
    SimulationOptions options;
    options.integrator = Integrator::Rk4;
    options.dt = dt;
    options.steps = std::lround(4.0 / dt);
    const double e0 = derived.totalEnergy(initial.q, initial.v, 0.0);
    double worst = 0.0;
    const Summary summary =
        simulate(derived, initial, options, [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
          worst = std::max(worst, std::abs(derived.totalEnergy(q, v, t) - e0));
        });
    REQUIRE(summary.ok());
    return worst;
  };
  const double coarse = maxEnergyError(2e-3);
  const double fine = maxEnergyError(1e-3);
  INFO("max |dE| at dt 2e-3: " << coarse << " J, at dt 1e-3: " << fine << " J");
  CHECK(fine < 2e-7);
  CHECK(coarse / fine > 8.0);  // fourth order: 16 expected; > 8 rules out a first-order error

  // The derived and the hand-derived model integrate to the same trajectory.
  SimulationOptions options;
  options.integrator = Integrator::Rk4;
  options.dt = 1e-3;
  options.steps = 1000;
  std::vector<Vector> hand_q;
  simulate(hand, initial, options, [&](double, ConstVectorRef q, ConstVectorRef, ConstVectorRef) { hand_q.push_back(q); });
  std::size_t index = 0;
  double worst = 0.0;
  simulate(derived, initial, options, [&](double, ConstVectorRef q, ConstVectorRef, ConstVectorRef) {
    worst = std::max(worst, maxAbs(q - hand_q.at(index++)));
  });
  CHECK(index == hand_q.size());
  CHECK(worst < 1e-10);
}
