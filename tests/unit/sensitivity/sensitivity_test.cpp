// Forward sensitivities through IDAS (sensitivity.hpp) on the IDAS slider-crank, against the
// independent reference of the issue tracker (DOP853 at rtol 1e-13 and an index-1 KKT + RK4 +
// projection run): G = ∫₀¹⁰ T dt, dG/dk, dG/dc and the final position; forward against
// central differences (both integrators, λ's sensitivities included); what is refused.
#include <catch2/catch.hpp>

#include <cmath>

#include "kktdae/kkt/solve_accelerations.hpp"
#include "kktdae/models/spring_slider_crank.hpp"
#include "kktdae/sensitivity/sensitivity.hpp"

using namespace kktdae;
using Catch::Contains;

namespace {

constexpr double kReferenceG = 3.336606799483;
constexpr double kReferenceDgDk = 0.333448105;   // ± 2e-9
constexpr double kReferenceDgDc = -0.363754034;  // ± 1e-9

SimulationOptions sliderCrankRun(Integrator integrator, double rtol) {
  SimulationOptions options;
  options.integrator = integrator;
  options.end_time = 10.0;
  options.dt = 0.1;
  options.adaptive.rtol = rtol;
  options.adaptive.atol = rtol;
  return options;
}

SensitivityOptions kineticEnergyCost(const ConstrainedSystem& model, SensitivityMethod method) {
  SensitivityOptions sensitivity;
  sensitivity.method = method;
  sensitivity.integrand = kineticEnergyIntegrand(model);
  return sensitivity;
}

double relative(double value, double reference) { return std::abs(value - reference) / std::abs(reference); }

/// λ of the KKT solve at (t, q, v) with `law` (none: the physical multiplier).
Vector kktLambda(const ConstrainedSystem& model, double t, const Vector& q, const Vector& v,
                 const Stabilization& law = Stabilization::none()) {
  KktWorkspace ws(model);
  const KktResult kkt = solveAccelerations(model, t, q, v, Vector(), law, KktOptions{}, ws);
  REQUIRE(kkt.ok());
  return ws.lambda;
}

/// cvode_bdf's Baumgarte gains in these tests: the app's default (apps/sensitivity/main.cpp).
constexpr double kCvodeGain = 10.0;

/// The same run as `reference` (tighter) by `integrator` at rtol = atol = 1e-10 (cvode_bdf with
/// gains kCvodeGain), by the forward method and by central differences, both on reference's grid.
struct BothMethods {
  SensitivityResult forward, differences;
};
BothMethods sliderCrankBothMethods(const SpringSliderCrank& model, const SimulationOptions& reference_run,
                                   const SensitivityResult& reference, Integrator integrator,
                                   const SensitivityOptions& forward) {
  SimulationOptions options = reference_run;
  options.integrator = integrator;
  options.adaptive.rtol = options.adaptive.atol = 1e-10;
  if (integrator == Integrator::CvodeBdf) options.stabilization = Stabilization::baumgarte(kCvodeGain, kCvodeGain);
  SensitivityOptions differences = forward;
  differences.method = SensitivityMethod::CentralDifferences;
  BothMethods both{computeSensitivities(model, model.initialState(), options, forward),
                   computeSensitivities(model, model.initialState(), options, differences)};
  INFO(both.forward.summary.briefReport() << "\n" << both.differences.summary.briefReport());
  REQUIRE(both.forward.summary.ok());
  REQUIRE(both.differences.summary.ok());
  REQUIRE(both.forward.times == reference.times);
  REQUIRE(both.differences.times == reference.times);
  return both;
}

}  // namespace

TEST_CASE("sensitivity: ida_ggl forward meets the slider-crank reference at rtol 1e-10", "[sensitivity][sundials]") {
  const SpringSliderCrank model;
  const SensitivityResult result =
      computeSensitivities(model, model.initialState(), sliderCrankRun(Integrator::IdaGgl, 1e-10),
                           kineticEnergyCost(model, SensitivityMethod::Forward));
  INFO(result.summary.briefReport());
  REQUIRE(result.summary.ok());
  CHECK(result.summary.runs == 1);
  CHECK(result.summary.sensitivity_residual_evaluations > 0);
  CHECK(relative(result.cost, kReferenceG) < 1e-8);
  // 1e-8 relative plus the reference's own uncertainty.
  CHECK(std::abs(result.costDerivative("k") - kReferenceDgDk) < 1e-8 * std::abs(kReferenceDgDk) + 2e-9);
  CHECK(std::abs(result.costDerivative("c") - kReferenceDgDc) < 1e-8 * std::abs(kReferenceDgDc) + 1e-9);
  REQUIRE(result.times.size() == 1);
  CHECK(result.times.back() == 10.0);
  const Vector& y = result.states.back();
  CHECK(relative(y[0], 1.2756758487) < 1e-8);
  CHECK(relative(y[1], 1.0235785590) < 1e-8);
  CHECK(relative(y[2], -0.4988130492) < 1e-8);
}

TEST_CASE("sensitivity: s(t), lambda rows included, against a tight run of the other formulation and central differences",
          "[sensitivity][sundials]") {
  // Measured at rtol 1e-10 against ida_index1 at 1e-12 over t = 1, 2, 3 s: forward within
  // 5e-10 (q, v rows; ida_index1 2.6e-9, cvode_bdf 2.8e-9) and 7.3e-9 (the physical λ's rows,
  // exact derivatives of the KKT solve at the state; ida_ggl 1.0e-9, cvode_bdf 3.9e-9; IDAS's own
  // λ, not error-controlled, was 6e-8 off); central differences within 3e-6 and 6.7e-6 on
  // ida_*: their runs take different steps, and their difference divides that noise by
  // 2δ ≈ 9e-4 (cvode_bdf's, 1.1e-8: its runs at p ± δ took the same steps). The bounds are 4 to
  // 20 times those.
  const SpringSliderCrank model;
  SimulationOptions tight = sliderCrankRun(Integrator::IdaIndex1, 1e-12);
  tight.end_time = 3.0;
  tight.dt = 1.0;
  SensitivityOptions forward = kineticEnergyCost(model, SensitivityMethod::Forward);
  forward.record_trajectory = true;
  const SensitivityResult reference = computeSensitivities(model, model.initialState(), tight, forward);
  REQUIRE(reference.summary.ok());
  REQUIRE(reference.times.size() == 4);
  // The start does not depend on p; λ(0) does, through the spring's tension (s_λ, the last rows).
  CHECK(reference.sensitivities.front().topRows(6).isZero(0.0));
  CHECK(reference.sensitivities.front().bottomRows(2).col(0).cwiseAbs().maxCoeff() > 1e-3);
  for (const Integrator integrator : {Integrator::IdaGgl, Integrator::IdaIndex1, Integrator::CvodeBdf}) {
    INFO(toString(integrator));
    const auto [f, d] = sliderCrankBothMethods(model, tight, reference, integrator, forward);
    CHECK(d.summary.runs == 5);
    for (std::size_t k = 0; k < f.times.size(); ++k) {
      const Matrix& s_ref = reference.sensitivities[k];
      const Matrix& s_f = f.sensitivities[k];
      const Matrix& s_d = d.sensitivities[k];
      INFO("t = " << f.times[k] << "\nreference\n" << s_ref << "\nforward\n" << s_f << "\ncentral differences\n" << s_d);
      CHECK((s_f - s_ref).topRows(6).cwiseAbs().maxCoeff() < 1e-8);
      CHECK((s_f - s_ref).bottomRows(2).cwiseAbs().maxCoeff() < 3e-8);
      CHECK((s_d - s_ref).topRows(6).cwiseAbs().maxCoeff() < 2e-5);
      CHECK((s_d - s_ref).bottomRows(2).cwiseAbs().maxCoeff() < 5e-5);
    }
    CHECK((f.cost_gradient - reference.cost_gradient).cwiseAbs().maxCoeff() < 1e-8);
    CHECK((d.cost_gradient - reference.cost_gradient).cwiseAbs().maxCoeff() < 1e-5);
    CHECK(std::abs(f.cost - d.cost) < 1e-8);
  }
}

TEST_CASE("sensitivity: along initial-state directions, projected onto the manifolds' tangent spaces", "[sensitivity][sundials]") {
  // Measured at rtol 1e-10 against ida_index1 at 1e-12 (t = 0…3 s, all four columns): forward
  // within 5.8e-9 (q, v) and 1.1e-8 (the physical λ; IDAS's own was 5e-8 off), dG within 3.9e-9,
  // on ida_ggl, ida_index1 and cvode_bdf; central differences (the start moved by ±δ and
  // projected back) within 3e-6, 6.7e-6 and 4.8e-6. The bounds are 5 to 10 times those.
  const SpringSliderCrank model;
  SensitivityOptions forward = kineticEnergyCost(model, SensitivityMethod::Forward);
  forward.record_trajectory = true;
  InitialStateDirection angle{"crank_angle0", Vector::Zero(3), Vector::Zero(3)};
  angle.dq[0] = 1.0;  // off the tangent space: the slider and rod must follow
  InitialStateDirection rate{"crank_rate0", Vector::Zero(3), Vector::Zero(3)};
  rate.dv[0] = 1.0;
  forward.initial_state = {angle, rate};
  SimulationOptions tight = sliderCrankRun(Integrator::IdaIndex1, 1e-12);
  tight.end_time = 3.0;
  tight.dt = 1.0;
  const SensitivityResult reference = computeSensitivities(model, model.initialState(), tight, forward);
  INFO(reference.summary.briefReport());
  REQUIRE(reference.summary.ok());
  CHECK(reference.column_names == std::vector<std::string>{"k", "c", "crank_angle0", "crank_rate0"});
  // At θ = π/2, ψ = asin(−a): J = [a 1 −a; 0 0 −cos ψ]. The mass-metric projection of δθ = 1
  // keeps δψ = 0 and moves the slider by δx = −a δθ, scaled to (0.8, −0.4, 0) with M = diag(1, 1, 2).
  const Matrix& d = reference.initial_directions;
  CHECK((d.col(0) - (Vector(6) << 0.8, -0.4, 0, 0, 0, 0).finished()).cwiseAbs().maxCoeff() < 1e-15);
  CHECK((d.col(1) - (Vector(6) << 0, 0, 0, 0.8, -0.4, 0).finished()).cwiseAbs().maxCoeff() < 1e-15);
  CHECK(reference.sensitivities.front().block(0, 2, 6, 2) == d);
  for (const Integrator integrator : {Integrator::IdaGgl, Integrator::IdaIndex1, Integrator::CvodeBdf}) {
    INFO(toString(integrator));
    const auto [f, c] = sliderCrankBothMethods(model, tight, reference, integrator, forward);
    CHECK(c.summary.runs == 9);
    for (std::size_t k = 0; k < f.times.size(); ++k) {
      const Matrix s_ref = reference.sensitivities[k].rightCols(2);
      const Matrix s_f = f.sensitivities[k].rightCols(2);
      const Matrix s_c = c.sensitivities[k].rightCols(2);
      INFO("t = " << f.times[k] << "\nreference\n" << s_ref << "\nforward\n" << s_f << "\ncentral differences\n" << s_c);
      CHECK((s_f - s_ref).topRows(6).cwiseAbs().maxCoeff() < 3e-8);
      CHECK((s_f - s_ref).bottomRows(2).cwiseAbs().maxCoeff() < 1e-7);
      CHECK((s_c - s_ref).topRows(6).cwiseAbs().maxCoeff() < 2e-5);
      CHECK((s_c - s_ref).bottomRows(2).cwiseAbs().maxCoeff() < 5e-5);
    }
    CHECK(std::abs(f.costDerivative("crank_rate0") - reference.costDerivative("crank_rate0")) < 1e-8);
    CHECK((f.cost_gradient - reference.cost_gradient).cwiseAbs().maxCoeff() < 1e-8);
    CHECK((c.cost_gradient - reference.cost_gradient).cwiseAbs().maxCoeff() < 3e-5);
  }
  SensitivityOptions clash = forward;
  clash.initial_state[1].name = "k";
  CHECK_THROWS_WITH(computeSensitivities(model, model.initialState(), tight, clash),
                    Contains("initial_state[1].name 'k' repeats"));
  SensitivityOptions short_direction = forward;
  short_direction.initial_state[0].dv = Vector::Zero(2);
  CHECK_THROWS_WITH(computeSensitivities(model, model.initialState(), tight, short_direction),
                    Contains("initial_state[0].dv") && Contains("2"));
}

TEST_CASE("sensitivity: runs it cannot differentiate are refused before they start, naming why", "[sensitivity]") {
  const SpringSliderCrank model;
  const SensitivityOptions sensitivity = kineticEnergyCost(model, SensitivityMethod::Forward);
  SimulationOptions options = sliderCrankRun(Integrator::IdaGgl, 1e-6);
  Event stop;
  stop.name = "slider_at_one";
  stop.action = EventAction::Stop;
  stop.g = [](double, ConstVectorRef q, ConstVectorRef, ConstVectorRef, Vector& g) { g[0] = q[1] - 1.0; };
  options.events.push_back(stop);
  CHECK_THROWS_WITH(computeSensitivities(model, model.initialState(), options, sensitivity),
                    Contains("stop event 'slider_at_one'") && Contains("jump conditions"));
  options.events.clear();
  options.integrator = Integrator::Rk4;
  CHECK_THROWS_WITH(computeSensitivities(model, model.initialState(), options, sensitivity),
                    Contains("rk4 is not supported"));
  options.integrator = Integrator::CvodeBdf;
  options.stabilization = Stabilization::projection();
  CHECK_THROWS_WITH(computeSensitivities(model, model.initialState(), options, sensitivity),
                    Contains("projection after steps") && Contains("CVODES"));
  options.stabilization = Stabilization::none();
  options.adaptive.linear_solver = NewtonLinearSolver::Krylov;
  CHECK_THROWS_WITH(computeSensitivities(model, model.initialState(), options, sensitivity),
                    Contains("linear_solver krylov"));
  options.adaptive.linear_solver = NewtonLinearSolver::Auto;
  options.integrator = Integrator::IdaIndex1;
  SensitivityOptions half = sensitivity;
  half.integrand.gradient = nullptr;
  CHECK_THROWS_WITH(computeSensitivities(model, model.initialState(), options, half), Contains("value and gradient"));
  SensitivityOptions bad_step = sensitivity;
  bad_step.difference_step = 0.5;
  CHECK_THROWS_WITH(computeSensitivities(model, model.initialState(), options, bad_step),
                    Contains("difference_step") && Contains("0.5"));
  CHECK_THROWS_WITH(parseSensitivityMethod("adjoint"), Contains("'adjoint'") && Contains("forward or fd"));
}

TEST_CASE("sensitivity: cvode_bdf forward on the stabilized ODE meets the slider-crank reference at rtol 1e-10",
          "[sensitivity][sundials]") {
  const SpringSliderCrank model;
  SimulationOptions options = sliderCrankRun(Integrator::CvodeBdf, 1e-10);
  options.dt = 10.0;
  options.stabilization = Stabilization::baumgarte(kCvodeGain, kCvodeGain);
  const SensitivityResult result =
      computeSensitivities(model, model.initialState(), options, kineticEnergyCost(model, SensitivityMethod::Forward));
  INFO(result.summary.briefReport());
  REQUIRE(result.summary.ok());
  CHECK(result.summary.runs == 1);
  CHECK(result.summary.sensitivity_residual_evaluations > 0);
  CHECK(result.summary.jacobian_evaluations > 0);
  // Measured: G 3.2e-9, dG/dk 5.7e-8, dG/dc 4.3e-9 relative, (θ, x, ψ) within 2.3e-9: BDF's global
  // error at rtol 1e-10 is about 20 times IDAS's here (docs/sensitivities.md); the bounds are 3 to
  // 5 times the measured errors, plus the reference's own uncertainty.
  CHECK(relative(result.cost, kReferenceG) < 1e-8);
  CHECK(std::abs(result.costDerivative("k") - kReferenceDgDk) < 2e-7 * std::abs(kReferenceDgDk) + 2e-9);
  CHECK(std::abs(result.costDerivative("c") - kReferenceDgDc) < 2e-8 * std::abs(kReferenceDgDc) + 1e-9);
  // The constraint kept by the gains: ‖φ‖∞ 2.7e-11 at t = 10 s (6.4e-8 without them).
  CHECK(result.summary.max_constraint_residual < 3e-10);
  const Vector& y = result.states.back();
  CHECK(relative(y[0], 1.2756758487) < 1e-8);
  CHECK(relative(y[1], 1.0235785590) < 1e-8);
  CHECK(relative(y[2], -0.4988130492) < 1e-8);
  // The λ rows: the physical multiplier at the final state, by default.
  CHECK(result.observed_multiplier == ObservedMultiplier::Physical);
  const Vector lambda = kktLambda(model, 10.0, y.head(3), y.segment(3, 3));
  CHECK((y.tail(2) - lambda).cwiseAbs().maxCoeff() < 1e-12);
}

TEST_CASE("sensitivity: the physical lambda's sensitivity at the start is the KKT system's exact derivative",
          "[sensitivity][sundials]") {
  // At the start s_q = s_v = 0 for a parameter, so s_λ(0) = ∂λ/∂p; along a projected initial
  // direction s_λ(0) = ∂λ/∂q δq + ∂λ/∂v δv. Both against central differences of the KKT solve
  // itself (step 1e-5: O(1e-10) truncation), for every integrator: no integration error enters.
  const SpringSliderCrank model;
  State start = model.initialState();
  start.v << 1.0, -0.5, 0.0;  // J v = 0 at θ = π/2 (J = [a 1 −a; 0 0 −cos ψ]): moving, consistent
  SensitivityOptions sensitivity;
  sensitivity.record_trajectory = true;
  InitialStateDirection angle{"crank_angle0", Vector::Zero(3), Vector::Zero(3)};
  angle.dq[0] = 1.0;
  InitialStateDirection rate{"rod_rate0", Vector::Zero(3), Vector::Zero(3)};
  rate.dv << 0.3, 0.0, 1.0;
  sensitivity.initial_state = {angle, rate};
  const double h = 1e-5;
  const Vector p = model.parameterValues();
  for (const Integrator integrator : {Integrator::IdaGgl, Integrator::IdaIndex1, Integrator::CvodeBdf}) {
    INFO(toString(integrator));
    SimulationOptions options = sliderCrankRun(integrator, 1e-8);
    options.end_time = options.dt = 0.01;
    if (integrator == Integrator::CvodeBdf) options.stabilization = Stabilization::baumgarte(kCvodeGain, kCvodeGain);
    const SensitivityResult r = computeSensitivities(model, start, options, sensitivity);
    INFO(r.summary.briefReport());
    REQUIRE(r.summary.ok());
    REQUIRE(r.times.size() == 2);
    const Matrix& s0 = r.sensitivities.front();
    CHECK((r.states.front().tail(2) - kktLambda(model, 0.0, start.q, start.v)).cwiseAbs().maxCoeff() < 1e-13);
    for (int i = 0; i < 2; ++i) {
      Vector p_plus = p, p_minus = p;
      p_plus[i] += h;
      p_minus[i] -= h;
      const Vector expected = (kktLambda(*model.withParameterValues(p_plus), 0.0, start.q, start.v) -
                               kktLambda(*model.withParameterValues(p_minus), 0.0, start.q, start.v)) /
                              (2.0 * h);
      INFO("parameter " << r.column_names[i] << ": " << s0.col(i).tail(2).transpose() << " vs " << expected.transpose());
      CHECK(expected.cwiseAbs().maxCoeff() > 1e-2);
      CHECK((s0.col(i).tail(2) - expected).cwiseAbs().maxCoeff() < 1e-9);
    }
    for (int j = 0; j < 2; ++j) {
      const Vector d = r.initial_directions.col(j);
      const Vector expected = (kktLambda(model, 0.0, start.q + h * d.head(3), start.v + h * d.tail(3)) -
                               kktLambda(model, 0.0, start.q - h * d.head(3), start.v - h * d.tail(3))) /
                              (2.0 * h);
      INFO("direction " << r.column_names[2 + j] << ": " << s0.col(2 + j).tail(2).transpose() << " vs "
                        << expected.transpose());
      CHECK(expected.cwiseAbs().maxCoeff() > 1e-2);
      CHECK((s0.col(2 + j).tail(2) - expected).cwiseAbs().maxCoeff() < 1e-9);
    }
  }
}

TEST_CASE("sensitivity: the lambda rows follow observed_multiplier as simulate() does", "[sensitivity][sundials]") {
  // With Baumgarte gains the method's own λ carries the feedback 2αφ̇ + β²φ; the physical one is
  // the solve without it at the same state. Both with their sensitivities against central
  // differences of the same choice.
  const SpringSliderCrank model;
  const Stabilization gains = Stabilization::baumgarte(kCvodeGain, kCvodeGain);
  for (const Integrator integrator : {Integrator::IdaIndex1, Integrator::CvodeBdf}) {
    INFO(toString(integrator));
    SimulationOptions options = sliderCrankRun(integrator, 1e-6);
    options.end_time = options.dt = 2.0;
    options.stabilization = gains;
    options.observed_multiplier = ObservedMultiplier::Method;
    SensitivityOptions forward = kineticEnergyCost(model, SensitivityMethod::Forward);
    const SensitivityResult method = computeSensitivities(model, model.initialState(), options, forward);
    options.observed_multiplier = ObservedMultiplier::Physical;
    const SensitivityResult physical = computeSensitivities(model, model.initialState(), options, forward);
    REQUIRE(method.summary.ok());
    REQUIRE(physical.summary.ok());
    CHECK(method.observed_multiplier == ObservedMultiplier::Method);
    const Vector& y = physical.states.back();
    REQUIRE(y.head(6) == method.states.back().head(6));  // the same run; only the λ rows differ
    const Vector q = y.head(3), v = y.segment(3, 3);
    CHECK((y.tail(2) - kktLambda(model, 2.0, q, v)).cwiseAbs().maxCoeff() < 1e-12);
    if (integrator == Integrator::CvodeBdf) {  // the stabilized solve's λ at the state
      CHECK((method.states.back().tail(2) - kktLambda(model, 2.0, q, v, gains)).cwiseAbs().maxCoeff() < 1e-12);
    }
    // The feedback is not zero at rtol 1e-6: the two λ differ.
    CHECK((method.states.back().tail(2) - y.tail(2)).cwiseAbs().maxCoeff() > 1e-12);
    CHECK(method.cost == physical.cost);  // g = T does not read λ
  }
}

TEST_CASE("sensitivity: an integrand of lambda reads the reported lambda and differentiates it exactly",
          "[sensitivity][sundials]") {
  // g = ½ λᵀλ, the squared reaction force: dG/dp needs s_λ, the physical λ's exact tangent on
  // both integrators. Against central differences of the same G at rtol 1e-10 over [0, 2] s
  // (measured: within 1.2e-8 relative on ida_index1, 4.2e-9 on cvode_bdf; forward is within
  // 3.4e-9 of ida_index1 at rtol 1e-12). The bound is 8 times the larger.
  const SpringSliderCrank model;
  SensitivityOptions forward;
  forward.integrand.value = [](double, ConstVectorRef, ConstVectorRef, ConstVectorRef lambda, ConstVectorRef) {
    return 0.5 * lambda.squaredNorm();
  };
  forward.integrand.gradient = [](double, ConstVectorRef, ConstVectorRef, ConstVectorRef lambda, ConstVectorRef,
                                  VectorRef g_q, VectorRef g_v, VectorRef g_lambda, VectorRef g_p) {
    g_q.setZero();
    g_v.setZero();
    g_lambda = lambda;
    g_p.setZero();
  };
  SensitivityOptions differences = forward;
  differences.method = SensitivityMethod::CentralDifferences;
  for (const Integrator integrator : {Integrator::IdaIndex1, Integrator::CvodeBdf}) {
    INFO(toString(integrator));
    SimulationOptions options = sliderCrankRun(integrator, 1e-10);
    options.end_time = options.dt = 2.0;
    options.stabilization = Stabilization::baumgarte(kCvodeGain, kCvodeGain);
    const SensitivityResult f = computeSensitivities(model, model.initialState(), options, forward);
    const SensitivityResult d = computeSensitivities(model, model.initialState(), options, differences);
    INFO(f.summary.briefReport() << "\n" << d.summary.briefReport() << "\nforward " << f.cost_gradient.transpose()
                                 << "\ncentral differences " << d.cost_gradient.transpose());
    REQUIRE(f.summary.ok());
    REQUIRE(d.summary.ok());
    CHECK(f.cost_gradient.cwiseAbs().minCoeff() > 1e-3);
    CHECK((f.cost_gradient - d.cost_gradient).cwiseAbs().maxCoeff() < 1e-7 * f.cost_gradient.cwiseAbs().maxCoeff());
    // The method's own λ (with the gains' feedback) gives another G, and its own dG/dp.
    options.observed_multiplier = ObservedMultiplier::Method;
    const SensitivityResult m = computeSensitivities(model, model.initialState(), options, forward);
    REQUIRE(m.summary.ok());
    CHECK(m.cost != f.cost);
  }
}
