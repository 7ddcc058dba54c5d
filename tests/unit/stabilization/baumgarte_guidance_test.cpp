// recommendBaumgarte for the adaptive integrators (stabilization/baumgarte_guidance.hpp): CVODE's
// gain follows the motion's rate capped by the error test's step; ida_index1's ω·h̄ grows with the
// radians the motion turns over the run up to its cap, and is one over the step without a
// horizon; neither falls as the tolerance tightens, and no gain is given where none applies
// (docs/notes/baumgarte-adaptive-gains.md).
#include <catch2/catch.hpp>

#include "kktdae/kktdae.hpp"

using namespace kktdae;
using Catch::Matchers::Contains;

TEST_CASE("adaptive guidance: cvode's omega is the motion rate, capped at the stiffness cap over the mean step",
          "[stabilization][errdyn]") {
  for (Integrator integrator : {Integrator::CvodeBdf, Integrator::CvodeAdams}) {
    BaumgarteGuidanceOptions options;
    options.motion_rate = 3.7;
    const auto free = recommendBaumgarte(integrator, 0.01, options);
    CHECK(free.omega == 3.7);
    CHECK(free.stabilization.alpha == free.stabilization.beta);
    options.mean_step = 0.01;  // Ω·h = 0.037: below every cap
    CHECK(recommendBaumgarte(integrator, 0.01, options).omega == 3.7);
    CHECK(recommendBaumgarte(integrator, 0.01, options).dt_omega == Approx(0.037));
    options.mean_step = 1.0;  // Ω·h = 3.7: above every cap
    const auto capped = recommendBaumgarte(integrator, 0.01, options);
    CHECK(capped.omega == Approx(adaptiveStiffnessCap(integrator) / 1.0));
    CHECK_THAT(capped.reasoning, Contains("capped"));
  }
  // The implicit Baumgarte row of ida_index1 tolerates a stiffer gain than CVODE's ODE.
  CHECK(adaptiveStiffnessCap(Integrator::IdaIndex1) > adaptiveStiffnessCap(Integrator::CvodeBdf));
}

TEST_CASE("adaptive guidance: ida_index1's omega*h is kIdaIndex1OmegaStepPerRadian per radian over the run, capped",
          "[stabilization][errdyn]") {
  BaumgarteGuidanceOptions options;
  options.motion_rate = 3.7;
  options.mean_step = 0.01;
  options.horizon = 2.0;  // Ω·T = 7.4 radians
  const auto r = recommendBaumgarte(Integrator::IdaIndex1, 0.5, options);
  CHECK(r.dt_omega == Approx(kIdaIndex1OmegaStepPerRadian * 7.4));
  CHECK(r.omega == Approx(kIdaIndex1OmegaStepPerRadian * 7.4 / 0.01));
  CHECK(r.stabilization.alpha == Approx(r.omega));  // ζ = 1
  CHECK_THAT(r.reasoning, Contains("radian"));
  options.zeta = 0.5;
  CHECK(recommendBaumgarte(Integrator::IdaIndex1, 0.5, options).stabilization.alpha == Approx(0.5 * r.omega));
  options.zeta = 1.0;
  // Proportional to the radians below the cap: twice the horizon or twice the rate, twice omega.
  options.horizon = 4.0;
  CHECK(recommendBaumgarte(Integrator::IdaIndex1, 0.5, options).omega == Approx(2.0 * r.omega));
  options.horizon = 2.0;
  options.motion_rate = 7.4;
  CHECK(recommendBaumgarte(Integrator::IdaIndex1, 0.5, options).omega == Approx(2.0 * r.omega));
  // Never falls as the run grows, and stops at the stiffness cap over the mean step, where the
  // error test starts failing nearly every step (from 3 / 0.019 ≈ 158 radians on).
  options.motion_rate = 3.7;
  double previous = 0.0;
  bool capped = false;
  for (double horizon : {0.01, 0.1, 1.0, 10.0, 42.0, 43.0, 100.0, 1e4}) {
    options.horizon = horizon;
    const auto g = recommendBaumgarte(Integrator::IdaIndex1, 0.5, options);
    CHECK(g.omega >= previous);
    CHECK(g.dt_omega <= adaptiveStiffnessCap(Integrator::IdaIndex1));
    if (kIdaIndex1OmegaStepPerRadian * 3.7 * horizon > adaptiveStiffnessCap(Integrator::IdaIndex1)) {
      CHECK(g.omega == Approx(adaptiveStiffnessCap(Integrator::IdaIndex1) / 0.01));
      CHECK_THAT(g.reasoning, Contains("capped"));
      capped = true;
    } else {
      CHECK(g.omega == Approx(kIdaIndex1OmegaStepPerRadian * 3.7 * horizon / 0.01));
      CHECK(g.omega > previous);
    }
    previous = g.omega;
  }
  CHECK(capped);
}

TEST_CASE("adaptive guidance: ida_index1 without a horizon takes kIdaIndex1OmegaStep over the mean step, "
          "without a step the motion rate",
          "[stabilization][errdyn]") {
  BaumgarteGuidanceOptions options;
  options.motion_rate = 3.7;
  options.mean_step = 0.01;
  const auto r = recommendBaumgarte(Integrator::IdaIndex1, 0.5, options);
  CHECK(r.omega == Approx(kIdaIndex1OmegaStep / 0.01));
  CHECK(r.dt_omega == Approx(kIdaIndex1OmegaStep));
  CHECK_THAT(r.reasoning, Contains("mean step"));
  // No motion rate is needed once the mean step is known (a horizon without it changes nothing);
  // without the step, omega = Omega.
  options.motion_rate = 0.0;
  CHECK(recommendBaumgarte(Integrator::IdaIndex1, 0.5, options).omega == Approx(r.omega));
  options.horizon = 2.0;
  CHECK(recommendBaumgarte(Integrator::IdaIndex1, 0.5, options).omega == Approx(r.omega));
  options.motion_rate = 3.7;
  options.mean_step = 0.0;
  const auto fallback = recommendBaumgarte(Integrator::IdaIndex1, 0.5, options);
  CHECK(fallback.omega == 3.7);
  CHECK_THAT(fallback.reasoning, Contains("mean step unknown"));
  options.motion_rate = 0.0;
  CHECK_THROWS_WITH(recommendBaumgarte(Integrator::IdaIndex1, 0.5, options), Contains("motion_rate"));
  options.motion_rate = 3.7;
  options.mean_step = 0.01;
  options.horizon = -1.0;
  CHECK_THROWS_WITH(recommendBaumgarte(Integrator::IdaIndex1, 0.5, options), Contains("horizon"));
}

TEST_CASE("adaptive guidance: omega never falls as the tolerance tightens (measured mean steps)",
          "[stabilization][errdyn]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const State start = chain.initialState(0.3);
  for (Integrator integrator : {Integrator::CvodeBdf, Integrator::IdaIndex1}) {
    // cvode_bdf: a motion rate fast enough for the cap to bind at the loose tolerances and not
    // at the tight. ida_index1 follows 0.019 * Omega * T / mean step at every tolerance.
    BaumgarteGuidanceOptions options;
    options.motion_rate = 40.0 * adaptiveStiffnessCap(integrator);
    options.horizon = 2.0;  // cvode ignores it; ida_index1 takes its radians, 240 here: capped
    if (integrator == Integrator::IdaIndex1) options.motion_rate = 3.7;  // 7.4 radians: not capped
    double previous_step = std::numeric_limits<double>::infinity(), previous_omega = 0.0;
    bool capped = false, free = false;
    for (double tolerance : {1e-3, 1e-5, 1e-7, 1e-10}) {
      const MotionTimeScale scale = measureMotionTimeScale(chain, start, 2.0, integrator, tolerance);
      REQUIRE(scale.summary.ok());
      CHECK(scale.mean_step < previous_step);  // the error test's steps shrink...
      options.mean_step = scale.mean_step;
      const double omega = recommendBaumgarte(integrator, 0.01, options).omega;
      CHECK(omega >= previous_omega);  // ...so the gain never falls
      if (integrator == Integrator::IdaIndex1) {
        CHECK(omega > previous_omega);  // it rises with every tightening
        CHECK(omega == Approx(kIdaIndex1OmegaStepPerRadian * 7.4 / scale.mean_step));
      } else {
        BaumgarteGuidanceOptions without = options;
        without.horizon = 0.0;
        CHECK(recommendBaumgarte(integrator, 0.01, without).omega == omega);
      }
      (omega < options.motion_rate ? capped : free) = true;
      previous_step = scale.mean_step;
      previous_omega = omega;
    }
    if (integrator == Integrator::CvodeBdf) {
      CHECK(capped);
      CHECK(free);
    }
  }
}

TEST_CASE("adaptive guidance: refuses what has no gain or no time scale", "[stabilization][errdyn]") {
  BaumgarteGuidanceOptions options;
  options.motion_rate = 3.0;
  CHECK_THROWS_WITH(recommendBaumgarte(Integrator::IdaGgl, 0.01, options), Contains("ida_ggl"));
  CHECK_THROWS_WITH(recommendBaumgarte(Integrator::Rattle, 0.01, options), Contains("rattle"));
  CHECK_THROWS_WITH(recommendBaumgarte(Integrator::CvodeBdf, 0.01), Contains("motion_rate"));
  options.mean_step = -1.0;
  CHECK_THROWS_WITH(recommendBaumgarte(Integrator::CvodeBdf, 0.01, options), Contains("mean_step"));
  CHECK_THROWS_WITH(adaptiveStiffnessCap(Integrator::Rk4), Contains("rk4"));
  // A fixed-step integrator still needs its step.
  CHECK_THROWS_WITH(recommendBaumgarte(Integrator::Rk4, 0.0), Contains("dt"));
}

TEST_CASE("fixed-step guidance: a measured limit replaces the closed form under the safety factor",
          "[stabilization][errdyn]") {
  BaumgarteGuidanceOptions options;
  options.measured_limit = 0.6;
  const auto semi = recommendBaumgarte(Integrator::SemiImplicitEuler, 0.005, options);
  CHECK(semi.dt_omega_limit == 0.6);
  CHECK(semi.dt_omega == Approx(0.3));
  CHECK_THAT(semi.reasoning, Contains("measured"));
  options.measured_limit = 0.15;  // below twice RK4's gentle 0.1: half the limit wins
  CHECK(recommendBaumgarte(Integrator::Rk4, 0.005, options).dt_omega == Approx(0.075));
}
