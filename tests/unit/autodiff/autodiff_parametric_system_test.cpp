// AutoDiffParametricSystem (autodiff_parametric_system.hpp): the IDAS slider-crank written once
// over a template scalar, its derivatives against SpringSliderCrank's hand-written ones and
// against central differences; a double pendulum in joint angles (M depends on q and on the
// masses) through checkParameterDerivatives; one sensitivity run of each against the other.
#include <catch2/catch.hpp>

#include <cmath>

#include "kktdae/autodiff/autodiff_parametric_system.hpp"
#include "kktdae/models/spring_slider_crank.hpp"
#include "kktdae/sensitivity/sensitivity.hpp"

using namespace kktdae;
using Catch::Contains;

namespace {

/// SpringSliderCrank (spring_slider_crank.hpp) with p = (k, c, J1, m2, J2): the same formulas,
/// written once; its masses are parameters too, so M depends on p.
class AdParamSliderCrank final : public AutoDiffParametricSystem<AdParamSliderCrank> {
 public:
  /// p = (k, c, J1, m2, J2), or (k, c) alone with the example's J1 = m2 = 1, J2 = 2.
  explicit AdParamSliderCrank(bool masses_too = true)
      : AutoDiffParametricSystem(3, 2, masses_too ? std::vector<std::string>{"k", "c", "J1", "m2", "J2"}
                                                  : std::vector<std::string>{"k", "c"},
                                 masses_too ? Vector((Vector(5) << 1.0, 1.0, 1.0, 1.0, 2.0).finished())
                                            : Vector(Vector::Ones(2))) {}

  template <typename S>
  void M(ConstVectorRefOf<S>, ConstVectorRefOf<S> p, MatrixRefOf<S> out) const {
    out.setZero();
    const bool masses_too = p.size() == 5;
    out(0, 0) = masses_too ? p[2] : S(1.0);
    out(1, 1) = masses_too ? p[3] : S(1.0);
    out(2, 2) = masses_too ? p[4] : S(2.0);
  }

  template <typename S>
  void h(ConstVectorRefOf<S> q, ConstVectorRefOf<S> v, const S&, ConstVectorRefOf<S> p, VectorRefOf<S> out) const {
    using std::cos;
    using std::sin;
    using std::sqrt;
    const double a = 0.5, free_length = 1.0, force = 1.0;
    const S s1 = sin(q[0]), c1 = cos(q[0]), s2 = sin(q[2]), c2 = cos(q[2]);
    const S s21 = s2 * c1 - c2 * s1, c21 = c2 * c1 + s2 * s1;
    const S x = q[1];
    const S l = sqrt(x * x - x * (c2 + a * c1) + (1.0 + a * a) / 4.0 + a * c21 / 2.0);
    const S grad[3] = {(a * x * s1 + a * s21 / 2.0) / (2.0 * l), (2.0 * x - (c2 + a * c1)) / (2.0 * l),
                       (x * s2 - a * s21 / 2.0) / (2.0 * l)};
    const S l_dot = grad[0] * v[0] + grad[1] * v[1] + grad[2] * v[2];
    const S tension = p[0] * (l - free_length) + p[1] * l_dot;
    for (int i = 0; i < 3; ++i) out[i] = tension * grad[i];
    out[1] -= force;
    out[2] += force * s2;
  }

  template <typename S>
  void phi(ConstVectorRefOf<S> q, const S&, VectorRefOf<S> out) const {
    using std::cos;
    using std::sin;
    out[0] = q[1] - cos(q[2]) - 0.5 * cos(q[0]);
    out[1] = -sin(q[2]) - 0.5 * sin(q[0]);
  }

  std::string name() const override { return "ad_param_slider_crank"; }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  double potentialEnergy(ConstVectorRef, double) const override { return 0.0; }
  void validateParameterValues(ConstVectorRef p) const override {
    for (int i = 2; i < p.size(); ++i) {
      if (!(p[i] > 0.0)) throw std::invalid_argument("ad_param_slider_crank: " + parameterName(i) + " must be > 0");
    }
  }
};

/// A double pendulum in joint angles (θ₁, θ₂), links l₁ = 1, l₂ = 0.7, point masses m₁, m₂,
/// gravity g, joint dampers c, its tip held on the moving line x = 0.3 sin t; p = (m₁, m₂, g, c).
class AdParamDoublePendulum final : public AutoDiffParametricSystem<AdParamDoublePendulum> {
 public:
  AdParamDoublePendulum()
      : AutoDiffParametricSystem(2, 1, {"m1", "m2", "g", "c"}, (Vector(4) << 1.0, 0.5, 9.81, 0.2).finished()) {}

  template <typename S>
  void M(ConstVectorRefOf<S> q, ConstVectorRefOf<S> p, MatrixRefOf<S> out) const {
    using std::cos;
    out(0, 0) = (p[0] + p[1]) * l1 * l1;
    out(0, 1) = p[1] * l1 * l2 * cos(q[0] - q[1]);
    out(1, 0) = out(0, 1);
    out(1, 1) = p[1] * l2 * l2;
  }

  template <typename S>
  void h(ConstVectorRefOf<S> q, ConstVectorRefOf<S> v, const S&, ConstVectorRefOf<S> p, VectorRefOf<S> out) const {
    using std::sin;
    const S coupling = p[1] * l1 * l2 * sin(q[0] - q[1]);
    out[0] = coupling * v[1] * v[1] + (p[0] + p[1]) * p[2] * l1 * sin(q[0]) + p[3] * (2.0 * v[0] - v[1]);
    out[1] = -coupling * v[0] * v[0] + p[1] * p[2] * l2 * sin(q[1]) + p[3] * (v[1] - v[0]);
  }

  template <typename S>
  void phi(ConstVectorRefOf<S> q, const S& t, VectorRefOf<S> out) const {
    using std::sin;
    out[0] = l1 * sin(q[0]) + l2 * sin(q[1]) - 0.3 * sin(t);
  }

  std::string name() const override { return "ad_param_double_pendulum"; }
  double potentialEnergy(ConstVectorRef, double) const override { return 0.0; }

 private:
  static constexpr double l1 = 1.0, l2 = 0.7;
};

}  // namespace

TEST_CASE("AutoDiffParametricSystem: the slider-crank's derivatives equal the hand-written model's", "[autodiff][sensitivity]") {
  const SpringSliderCrank hand;
  const AdParamSliderCrank ad;
  const Vector q = (Vector(3) << 1.1, 0.93, -0.41).finished();
  const Vector v = (Vector(3) << 0.7, -0.3, 0.25).finished();
  const Vector a = (Vector(3) << -0.2, 0.4, 1.3).finished();
  const Vector dq = (Vector(3) << 0.3, -0.8, 0.5).finished();
  const Vector dv = (Vector(3) << -1.1, 0.2, 0.6).finished();
  Matrix D_hand(3, 2), D_ad(3, 5);
  hand.dynamicsParameterJacobian(q, v, a, 0.0, D_hand);
  ad.dynamicsParameterJacobian(q, v, a, 0.0, D_ad);
  CHECK((D_ad.leftCols(2) - D_hand).cwiseAbs().maxCoeff() < 1e-14);
  // ∂(M a)/∂(J1, m2, J2) = diag(a).
  CHECK((D_ad.rightCols(3) - Matrix(a.asDiagonal())).cwiseAbs().maxCoeff() == 0.0);

  Matrix dM_h(3, 3), dJ_h(2, 3), dM_a(3, 3), dJ_a(2, 3);
  Vector dh_h(3), dg_h(2), dt_h(2), dh_a(3), dg_a(2), dt_a(2);
  ModelTermsTangent th{dM_h, dh_h, dJ_h, dg_h, dt_h}, ta{dM_a, dh_a, dJ_a, dg_a, dt_a};
  hand.termsTangent(q, v, 0.0, dq, dv, th);
  ad.termsTangent(q, v, 0.0, dq, dv, ta);
  CHECK(dM_a.isZero(0.0));
  CHECK((dh_a - dh_h).cwiseAbs().maxCoeff() < 1e-14);
  CHECK((dJ_a - dJ_h).cwiseAbs().maxCoeff() < 1e-15);
  CHECK((dg_a - dg_h).cwiseAbs().maxCoeff() < 1e-14);
  CHECK(dt_a.isZero(0.0));

  const ParameterDerivativeCheck check = checkParameterDerivatives(ad, q, v, a, 0.0, dq, dv);
  CHECK(check.dynamics_parameter_error < 1e-9);
  CHECK(check.constraint_parameter_error == 0.0);
  CHECK(check.tangent_error < 1e-8);
}

TEST_CASE("AutoDiffParametricSystem: M(q, p), a moving constraint and dampers pass checkParameterDerivatives",
          "[autodiff][sensitivity]") {
  const AdParamDoublePendulum model;
  const Vector q = (Vector(2) << 0.4, -0.9).finished(), v = (Vector(2) << 1.3, -0.6).finished();
  const Vector a = (Vector(2) << 0.5, 2.0).finished(), dq = (Vector(2) << 0.7, 0.2).finished();
  const Vector dv = (Vector(2) << -0.4, 1.1).finished();
  Matrix dM(2, 2), dJ(1, 2);
  Vector dh(2), dg(1), dt(1);
  ModelTermsTangent tangent{dM, dh, dJ, dg, dt};
  model.termsTangent(q, v, 1.2, dq, dv, tangent);
  // Closed forms: δM₀₁ = −m₂ l₁ l₂ sin(θ₁ − θ₂)(δθ₁ − δθ₂), δ(∂φ/∂t) = 0 (φ_t = −0.3 cos t).
  CHECK(std::abs(dM(0, 1) - (-0.5 * 0.7 * std::sin(0.4 + 0.9) * (0.7 - 0.2))) < 1e-15);
  CHECK(dt.isZero(0.0));
  // δJ = (−l₁ sin θ₁ δθ₁, −l₂ sin θ₂ δθ₂).
  CHECK(std::abs(dJ(0, 0) + std::sin(0.4) * 0.7) < 1e-15);
  CHECK(std::abs(dJ(0, 1) + 0.7 * std::sin(-0.9) * 0.2) < 1e-15);
  for (const double step : {1e-3, 1e-4}) {
    const ParameterDerivativeCheck check = checkParameterDerivatives(model, q, v, a, 1.2, dq, dv, step);
    INFO("step " << step << ": D " << check.dynamics_parameter_error << ", tangent " << check.tangent_error);
    // O(step²) with constants of order one: 1e-3 gives about 1e-7.
    CHECK(check.dynamics_parameter_error < 10.0 * step * step);
    CHECK(check.tangent_error < 10.0 * step * step);
  }
  Vector bad = model.parameterValues();
  bad[2] = std::nan("");
  CHECK_THROWS_WITH(model.withParameterValues(bad), Contains("parameter g") && Contains("nan"));
  CHECK_THROWS_WITH(model.withParameterValues(Vector(2)), Contains("4 parameters") && Contains("2 values"));
  CHECK_THROWS_WITH(model.parameterIndex("L"), Contains("m1, m2, g, c"));
}

TEST_CASE("AutoDiffParametricSystem: the slider-crank's sensitivities equal the hand-written model's",
          "[autodiff][sensitivity][sundials]") {
  const SpringSliderCrank hand;
  const AdParamSliderCrank ad_kc(false), ad;
  SimulationOptions options;
  options.integrator = Integrator::IdaGgl;
  options.end_time = 2.0;
  options.dt = 1.0;
  options.adaptive.rtol = options.adaptive.atol = 1e-8;
  SensitivityOptions sensitivity;
  sensitivity.integrand = kineticEnergyIntegrand(hand);
  const SensitivityResult r_hand = computeSensitivities(hand, hand.initialState(), options, sensitivity);
  sensitivity.integrand = kineticEnergyIntegrand(ad_kc);
  const SensitivityResult r_kc = computeSensitivities(ad_kc, hand.initialState(), options, sensitivity);
  REQUIRE(r_hand.summary.ok());
  REQUIRE(r_kc.summary.ok());
  // The same equations with the same parameters, evaluated in another order: the same steps, and
  // s equal but for rounding.
  INFO(r_hand.summary.briefReport() << "\n" << r_kc.summary.briefReport());
  CHECK(r_kc.summary.steps == r_hand.summary.steps);
  CHECK((r_kc.sensitivities.back() - r_hand.sensitivities.back()).cwiseAbs().maxCoeff() < 1e-11);
  CHECK(std::abs(r_kc.cost_gradient[0] - r_hand.cost_gradient[0]) < 1e-11);
  sensitivity.integrand = kineticEnergyIntegrand(ad);
  sensitivity.record_trajectory = true;
  const SensitivityResult r_ad = computeSensitivities(ad, hand.initialState(), options, sensitivity);
  REQUIRE(r_ad.summary.ok());
  // The masses' columns against central differences (fd: ∛rtol steps, error about rtol^(2/3)).
  sensitivity.method = SensitivityMethod::CentralDifferences;
  const SensitivityResult r_fd = computeSensitivities(ad, hand.initialState(), options, sensitivity);
  REQUIRE(r_fd.summary.ok());
  const Matrix diff = r_ad.sensitivities.back() - r_fd.sensitivities.back();
  INFO("forward\n" << r_ad.sensitivities.back() << "\ncentral differences\n" << r_fd.sensitivities.back());
  CHECK(diff.topRows(6).cwiseAbs().maxCoeff() < 1e-4);
  CHECK((r_ad.cost_gradient - r_fd.cost_gradient).cwiseAbs().maxCoeff() < 1e-4);
}
