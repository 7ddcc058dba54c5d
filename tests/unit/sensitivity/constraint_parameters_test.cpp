// Forward sensitivities for parameters inside φ (ParametricSystem::constraintParameterTangent(),
// AutoDiffParametricSystem's φ(q, t, p)): a pendulum in Cartesian coordinates whose length L is
// a parameter, against closed forms (the exact statics hanging at rest, and the exact scaling of
// a swinging pendulum with L and g), and a two-link chain with a driven pivot (lengths and the
// driver's amplitude in φ) against central differences, on ida_ggl, ida_index1 and cvode_bdf.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>

#include "kktdae/autodiff/autodiff_parametric_system.hpp"
#include "kktdae/models/pendulum_chain.hpp"
#include "kktdae/models/spring_slider_crank.hpp"
#include "kktdae/sensitivity/sensitivity.hpp"

using namespace kktdae;
using Catch::Contains;

namespace {

/// A point mass m on a rod of length L about the origin, q = (x, y), gravity −g ŷ, with
/// φ = (x² + y² − L²)/(2L): J = q/L is a unit row on the circle, so λ is the rod's force
/// (λ = −m g hanging at rest, whatever L), and J, γ = |q̇|²/L and φ all depend on L.
/// p = (L, g).
class LengthPendulum final : public AutoDiffParametricSystem<LengthPendulum> {
 public:
  static constexpr double kMass = 1.5;
  LengthPendulum() : AutoDiffParametricSystem(2, 1, {"L", "g"}, (Vector(2) << 1.2, 9.81).finished()) {}

  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  template <typename S>
  void M(ConstVectorRefOf<S>, ConstVectorRefOf<S>, MatrixRefOf<S> out) const {
    out.setZero();
    out(0, 0) = out(1, 1) = S(kMass);
  }
  template <typename S>
  void h(ConstVectorRefOf<S>, ConstVectorRefOf<S>, const S&, ConstVectorRefOf<S> p, VectorRefOf<S> out) const {
    out[0] = S(0.0);
    out[1] = kMass * p[1];
  }
  template <typename S>
  void phi(ConstVectorRefOf<S> q, const S&, ConstVectorRefOf<S> p, VectorRefOf<S> out) const {
    out[0] = (q[0] * q[0] + q[1] * q[1] - p[0] * p[0]) / (2.0 * p[0]);
  }
  std::string name() const override { return "length_pendulum"; }
  double potentialEnergy(ConstVectorRef q, double) const override { return kMass * parameterValues()[1] * q[1]; }

  /// At angle θ from the downward vertical, at rest.
  State at(double angle) const {
    const double L = parameterValues()[0];
    State s;
    s.t = 0.0;
    s.q = (Vector(2) << L * std::sin(angle), -L * std::cos(angle)).finished();
    s.v = Vector::Zero(2);
    return s;
  }
};

/// Two point masses on rods of lengths L1, L2 from a pivot driven along x as A sin(Ω t):
/// q = (x1, y1, x2, y2), φ₁ = |r₁ − pivot(t)|² − L1², φ₂ = (|r₂ − r₁|² − L2²)/(2 L2). The
/// amplitude A enters J, γ and ∂φ/∂t, the lengths φ (and L2 also J and γ). p = (L1, L2, A).
class DrivenLengthChain final : public AutoDiffParametricSystem<DrivenLengthChain> {
 public:
  DrivenLengthChain()
      : AutoDiffParametricSystem(4, 2, {"L1", "L2", "A"}, (Vector(3) << 1.0, 0.7, 0.15).finished()) {}

  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  bool isTimeDependent() const override { return true; }
  template <typename S>
  void M(ConstVectorRefOf<S>, ConstVectorRefOf<S>, MatrixRefOf<S> out) const {
    out.setZero();
    out(0, 0) = out(1, 1) = S(kMass1);
    out(2, 2) = out(3, 3) = S(kMass2);
  }
  template <typename S>
  void h(ConstVectorRefOf<S>, ConstVectorRefOf<S>, const S&, ConstVectorRefOf<S>, VectorRefOf<S> out) const {
    out[0] = out[2] = S(0.0);
    out[1] = S(kMass1 * kGravity);
    out[3] = S(kMass2 * kGravity);
  }
  template <typename S>
  void phi(ConstVectorRefOf<S> q, const S& t, ConstVectorRefOf<S> p, VectorRefOf<S> out) const {
    using std::sin;
    const S dx1 = q[0] - p[2] * sin(kOmega * t), dx2 = q[2] - q[0], dy2 = q[3] - q[1];
    out[0] = dx1 * dx1 + q[1] * q[1] - p[0] * p[0];
    out[1] = (dx2 * dx2 + dy2 * dy2 - p[1] * p[1]) / (2.0 * p[1]);
  }
  std::string name() const override { return "driven_length_chain"; }
  double potentialEnergy(ConstVectorRef q, double) const override {
    return kGravity * (kMass1 * q[1] + kMass2 * q[3]);
  }

  /// Both links at the given angles from the downward vertical, at rest (the pivot is at the
  /// origin at t = 0; the projection gives the velocity the moving pivot needs).
  State at(double angle1, double angle2) const {
    const Vector p = parameterValues();
    State s;
    s.t = 0.0;
    const double x1 = p[0] * std::sin(angle1), y1 = -p[0] * std::cos(angle1);
    s.q = (Vector(4) << x1, y1, x1 + p[1] * std::sin(angle2), y1 - p[1] * std::cos(angle2)).finished();
    s.v = Vector::Zero(4);
    return s;
  }

 private:
  static constexpr double kMass1 = 1.0, kMass2 = 0.8, kGravity = 9.81, kOmega = 2.0;
};

/// The slider-crank declaring (wrongly) that its φ depends on p, without the derivatives.
class ClaimsParametricConstraints final : public ParametricSystem {
 public:
  std::string name() const override { return "claims_parametric_constraints"; }
  int nq() const override { return model_.nq(); }
  int nc() const override { return model_.nc(); }
  MassStructure massStructure() const override { return model_.massStructure(); }
  void massMatrix(ConstVectorRef q, MatrixRef M) const override { model_.massMatrix(q, M); }
  void massDiagonal(ConstVectorRef q, VectorRef d) const override { model_.massDiagonal(q, d); }
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override { model_.bias(q, v, t, h); }
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override { model_.constraint(q, t, phi); }
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override {
    model_.constraintJacobian(q, t, J);
  }
  void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const override {
    model_.constraintBias(q, v, t, gamma);
  }
  double potentialEnergy(ConstVectorRef q, double t) const override { return model_.potentialEnergy(q, t); }
  int np() const override { return model_.np(); }
  std::string parameterName(int i) const override { return model_.parameterName(i); }
  Vector parameterValues() const override { return model_.parameterValues(); }
  std::unique_ptr<ParametricSystem> withParameterValues(ConstVectorRef) const override {
    return std::make_unique<ClaimsParametricConstraints>();
  }
  void dynamicsParameterJacobian(ConstVectorRef q, ConstVectorRef v, ConstVectorRef a, double t,
                                 MatrixRef D) const override {
    model_.dynamicsParameterJacobian(q, v, a, t, D);
  }
  void termsTangent(ConstVectorRef q, ConstVectorRef v, double t, ConstVectorRef dq, ConstVectorRef dv,
                    ModelTermsTangent& out) const override {
    model_.termsTangent(q, v, t, dq, dv, out);
  }
  bool constraintsDependOnParameters() const override { return true; }
  State initialState() const { return model_.initialState(); }

 private:
  SpringSliderCrank model_;
};

/// A short adaptive run of `integrator` at rtol = atol = `tolerance`, output at the end only;
/// cvode_* and ida_index1 with Baumgarte gains α = β = 10 (the ODE needs them to stay on φ = 0).
SimulationOptions lengthRun(Integrator integrator, double end_time, double tolerance) {
  SimulationOptions options;
  options.integrator = integrator;
  options.end_time = end_time;
  options.dt = end_time;
  options.adaptive.rtol = options.adaptive.atol = tolerance;
  if (integrator != Integrator::IdaGgl) options.stabilization = Stabilization::baumgarte(10.0, 10.0);
  return options;
}

}  // namespace

TEST_CASE("constraint parameters: the AD derivatives of a phi(q, t, p) against closed forms and central differences",
          "[sensitivity][autodiff]") {
  const LengthPendulum pendulum;
  CHECK(pendulum.constraintsDependOnParameters());
  CHECK_FALSE(SpringSliderCrank().constraintsDependOnParameters());
  // Closed forms at (q, v) with L = 1.2: ∂φ/∂L = −|q|²/(2L²) − 1/2, ∂J/∂L = −qᵀ/L²,
  // ∂γ/∂L = −|v|²/L² (γ = |v|²/L), ∂(∂φ/∂t)/∂L = 0; nothing depends on g.
  const Vector q = (Vector(2) << 0.5, -1.3).finished(), v = (Vector(2) << 0.8, 0.4).finished();
  const double L = 1.2;
  Matrix P(1, 2), dJ(1, 2);
  Vector dgamma(1), dphi_t(1);
  pendulum.constraintParameterJacobian(q, 0.0, P);
  CHECK(std::abs(P(0, 0) - (-q.squaredNorm() / (2.0 * L * L) - 0.5)) < 1e-15);
  CHECK(P(0, 1) == 0.0);
  ConstraintParameterTangent tangent{dJ, dgamma, dphi_t};
  pendulum.constraintParameterTangent(q, v, 0.3, 0, tangent);
  CHECK((dJ.row(0).transpose() + q / (L * L)).cwiseAbs().maxCoeff() < 1e-15);
  CHECK(std::abs(dgamma[0] + v.squaredNorm() / (L * L)) < 1e-14);
  CHECK(dphi_t[0] == 0.0);
  pendulum.constraintParameterTangent(q, v, 0.3, 1, tangent);
  CHECK(dJ.isZero(0.0));
  CHECK(dgamma.isZero(0.0));
  CHECK_THROWS_WITH(pendulum.constraintParameterTangent(q, v, 0.3, 2, tangent), Contains("asked for 2"));

  // The chain, at a generic point: every derivative O(step²) from central differences.
  const DrivenLengthChain chain;
  const Vector qc = (Vector(4) << 0.4, -0.9, 0.9, -1.3).finished();
  const Vector vc = (Vector(4) << 0.7, -0.2, -0.5, 0.9).finished();
  const Vector ac = (Vector(4) << 0.3, 1.1, -0.6, 0.2).finished();
  const Vector dq = (Vector(4) << 0.2, -0.5, 0.3, 0.1).finished();
  const Vector dv = (Vector(4) << -0.6, 0.4, 0.8, -0.3).finished();
  for (const double step : {1e-3, 1e-4}) {
    const ParameterDerivativeCheck check = checkParameterDerivatives(chain, qc, vc, ac, 0.7, dq, dv, step);
    WARN("driven chain, step " << step << ": D " << check.dynamics_parameter_error << ", dphi/dp "
                                << check.constraint_parameter_error << ", d(J, gamma, phi_t)/dp "
                                << check.constraint_tangent_error << ", tangent " << check.tangent_error);
    // O(step²): measured ∂φ/∂p 8.5e-7 and the constraint terms' ∂/∂p 2.0e-6 at step 1e-3, 100
    // times less at 1e-4 (D is zero: the parameters are in φ only; the tangent along (dq, dv)
    // is exact to rounding, φ being quadratic in q).
    CHECK(check.dynamics_parameter_error == 0.0);  // exact zeros on both sides: M and h hold no p
    CHECK(check.constraint_parameter_error < 10.0 * step * step);
    CHECK(check.constraint_tangent_error < 10.0 * step * step);
    CHECK(check.tangent_error < 10.0 * step * step);
  }
  // The pendulum's φ is a rational function of L: its differences' error is O(step²) too.
  const ParameterDerivativeCheck check = checkParameterDerivatives(pendulum, q, v, v, 0.0, dq.head(2), dv.head(2), 1e-4);
  INFO("pendulum: dphi/dp " << check.constraint_parameter_error << ", d(J, gamma, phi_t)/dp "
                            << check.constraint_tangent_error);
  CHECK(check.constraint_parameter_error < 1e-7);
  CHECK(check.constraint_tangent_error < 1e-7);
  CHECK(check.constraint_tangent_error > 0.0);  // the differences are not exact: the check compared something
}

TEST_CASE("constraint parameters: a model claiming phi(p) without its derivatives is refused before the run",
          "[sensitivity]") {
  const ClaimsParametricConstraints model;
  SimulationOptions options = lengthRun(Integrator::IdaGgl, 0.1, 1e-6);
  CHECK_THROWS_WITH(computeSensitivities(model, model.initialState(), options, SensitivityOptions{}),
                    Contains("claims_parametric_constraints") && Contains("constraintParameterJacobian"));
  Matrix dJ(2, 3);
  Vector dgamma(2), dphi_t(2);
  ConstraintParameterTangent tangent{dJ, dgamma, dphi_t};
  CHECK_THROWS_WITH(model.constraintParameterTangent(Vector::Zero(3), Vector::Zero(3), 0.0, 0, tangent),
                    Contains("constraintParameterTangent"));
}

TEST_CASE("constraint parameters: a pendulum hanging at rest has dq/dL = (0, -1) and dlambda/dL = 0, exactly",
          "[sensitivity][sundials]") {
  // Statics: q = (0, −L), λ = −m g for every L: s_q = (0, −1), s_v = 0, s_λ = 0 along L, and
  // along g s_q = s_v = 0, s_λ = −m. The start is projected onto the circle of radius L ± δ, so
  // s(0) = (0, −1) comes from the projection's derivative, and nothing moves after.
  const LengthPendulum pendulum;
  for (const Integrator integrator : {Integrator::IdaGgl, Integrator::IdaIndex1, Integrator::CvodeBdf}) {
    INFO(toString(integrator));
    const SensitivityResult r =
        computeSensitivities(pendulum, pendulum.at(0.0), lengthRun(integrator, 0.5, 1e-8), SensitivityOptions{});
    INFO(r.summary.briefReport());
    REQUIRE(r.summary.ok());
    const Matrix& s = r.sensitivities.back();
    INFO("s at t = 0.5\n" << s);
    Matrix expected = Matrix::Zero(5, 2);
    expected(1, 0) = -1.0;
    expected(4, 1) = -LengthPendulum::kMass;
    const double lambda_error = std::abs(r.states.back()[4] + LengthPendulum::kMass * 9.81);
    const double error = (s - expected).cwiseAbs().maxCoeff();
    WARN(toString(integrator) << " hanging at rest: |lambda + m g| " << lambda_error << ", max |s - exact| " << error);
    CHECK(lambda_error < 1e-9);
    CHECK(error < 1e-9);
  }
}

TEST_CASE("constraint parameters: a swinging pendulum's sensitivities to L and g follow its exact scaling",
          "[sensitivity][sundials]") {
  // From rest at angle θ₀ the motion is q(t; L, g) = L f(t √(g/L)) for one f (the start is moved
  // radially by the projection, so θ₀ stays), whatever the amplitude. Differentiating,
  //   ∂q/∂L = q/L − t q̇/(2L),   ∂q̇/∂L = q̇/(2L) − t q̈/(2L),
  //   ∂q/∂g = t q̇/(2g),         ∂q̇/∂g = q̇/(2g) + t q̈/(2g),
  // with q̈ = (Jᵀλ − h)/m from the run's own state and physical λ, at every output. Measured at
  // rtol 1e-9 over 1 s (max |s| 3.2): within 7.4e-9 (ida_ggl), 9.3e-9 (ida_index1), 8.9e-8
  // (cvode_bdf) and 3.5e-8 (cvode_adams); the bound is 5.6 times the largest.
  const LengthPendulum pendulum;
  const double L = 1.2, g = 9.81, m = LengthPendulum::kMass, end = 1.0;
  for (const Integrator integrator :
       {Integrator::IdaGgl, Integrator::IdaIndex1, Integrator::CvodeBdf, Integrator::CvodeAdams}) {
    INFO(toString(integrator));
    SimulationOptions options = lengthRun(integrator, end, 1e-9);
    options.dt = 0.25;  // s recorded at t = 0, 0.25, …, 1 (s(0) from the projection's derivative)
    SensitivityOptions recorded;
    recorded.record_trajectory = true;
    const SensitivityResult r = computeSensitivities(pendulum, pendulum.at(1.0), options, recorded);
    INFO(r.summary.briefReport());
    REQUIRE(r.summary.ok());
    REQUIRE(r.times.size() == 5);
    double error = 0.0, largest = 0.0;
    for (std::size_t k = 0; k < r.times.size(); ++k) {
      const double t = r.times[k];
      const Vector& y = r.states[k];
      const Vector q = y.head(2), v = y.segment(2, 2);
      const Vector a = (q / L * y[4] - Vector((Vector(2) << 0.0, m * g).finished())) / m;
      Matrix expected(4, 2);
      expected.col(0) << q / L - t * v / (2.0 * L), v / (2.0 * L) - t * a / (2.0 * L);
      expected.col(1) << t * v / (2.0 * g), v / (2.0 * g) + t * a / (2.0 * g);
      const Matrix& s = r.sensitivities[k];
      INFO("t = " << t << "\nforward\n" << s.topRows(4) << "\nscaling\n" << expected);
      error = std::max(error, (s.topRows(4) - expected).cwiseAbs().maxCoeff());
      largest = std::max(largest, expected.cwiseAbs().maxCoeff());
      if (k == 0) CHECK((s.topRows(4) - expected).cwiseAbs().maxCoeff() < 1e-15);  // the start: exact
    }
    WARN(toString(integrator) << " swinging from 1 rad: max |s - scaling| " << error << " (max |s| " << largest
                              << ", " << r.summary.steps << " steps)");
    CHECK(error < 5e-7);
  }
}

TEST_CASE("constraint parameters: a driven two-link chain's sensitivities to its lengths and amplitude, lambda rows included",
          "[sensitivity][sundials]") {
  // Forward at rtol 1e-9 against a forward ida_ggl run at 1e-12 (the reference), and central
  // differences (δ = ∛rtol = 1e-3 of each parameter, error O(δ²) plus the runs' noise divided by
  // 2δ), every row of s at t = 1 s (max |s| 2.5 in the q, v rows, 7.6 in the λ rows). Measured:
  // forward within 2.3e-8 to 5.1e-8 (q, v) and 9.7e-8 to 1.8e-7 (the physical λ), central
  // differences within 1.8e-5 and 7.5e-5; dG/dp (G = ∫ T dt, dG/dp about 3) within 1.1e-7 and
  // 2.1e-5. The bounds are 4 to 11 times the largest.
  const DrivenLengthChain chain;
  const State start = chain.at(0.6, 1.1);
  SensitivityOptions forward;
  forward.integrand = kineticEnergyIntegrand(chain);  // G = ∫ T dt, with the physical λ in the rows
  const SensitivityResult reference = computeSensitivities(chain, start, lengthRun(Integrator::IdaGgl, 1.0, 1e-12), forward);
  REQUIRE(reference.summary.ok());
  const Matrix& s_ref = reference.sensitivities.back();
  const double scale_q = s_ref.topRows(8).cwiseAbs().maxCoeff(), scale_lambda = s_ref.bottomRows(2).cwiseAbs().maxCoeff();
  for (const Integrator integrator : {Integrator::IdaGgl, Integrator::IdaIndex1, Integrator::CvodeBdf}) {
    INFO(toString(integrator));
    const SimulationOptions options = lengthRun(integrator, 1.0, 1e-9);
    SensitivityOptions differences = forward;
    differences.method = SensitivityMethod::CentralDifferences;
    const SensitivityResult f = computeSensitivities(chain, start, options, forward);
    const SensitivityResult d = computeSensitivities(chain, start, options, differences);
    INFO(f.summary.briefReport() << "\n" << d.summary.briefReport());
    REQUIRE(f.summary.ok());
    REQUIRE(d.summary.ok());
    const Matrix& s_f = f.sensitivities.back();
    const Matrix& s_d = d.sensitivities.back();
    INFO("reference\n" << s_ref << "\nforward\n" << s_f << "\ncentral differences\n" << s_d);
    INFO("largest |s|: q, v rows " << scale_q << ", lambda rows " << scale_lambda);
    WARN(toString(integrator) << " driven chain at t = 1 s, against the reference: forward "
                              << (s_f - s_ref).topRows(8).cwiseAbs().maxCoeff() << " (q, v rows), "
                              << (s_f - s_ref).bottomRows(2).cwiseAbs().maxCoeff() << " (lambda rows); central differences "
                              << (s_d - s_ref).topRows(8).cwiseAbs().maxCoeff() << ", "
                              << (s_d - s_ref).bottomRows(2).cwiseAbs().maxCoeff() << "; max |s| " << scale_q << ", "
                              << scale_lambda << "; dG/dp forward "
                              << (f.cost_gradient - reference.cost_gradient).cwiseAbs().maxCoeff()
                              << ", central differences "
                              << (d.cost_gradient - reference.cost_gradient).cwiseAbs().maxCoeff() << "; "
                              << f.summary.steps << " steps forward");
    CHECK((s_f - s_ref).topRows(8).cwiseAbs().maxCoeff() < 5e-7);
    CHECK((s_f - s_ref).bottomRows(2).cwiseAbs().maxCoeff() < 2e-6);
    CHECK((s_d - s_ref).topRows(8).cwiseAbs().maxCoeff() < 1.5e-4);
    CHECK((s_d - s_ref).bottomRows(2).cwiseAbs().maxCoeff() < 5e-4);
    // The parameters move the motion by order one: the comparisons above are not of zeros.
    CHECK(scale_q > 1.0);
    CHECK(scale_lambda > 1.0);
    INFO("dG/dp: reference " << reference.cost_gradient.transpose() << ", forward " << f.cost_gradient.transpose()
                             << ", central differences " << d.cost_gradient.transpose());
    CHECK((f.cost_gradient - reference.cost_gradient).cwiseAbs().maxCoeff() < 5e-7);
    CHECK((d.cost_gradient - reference.cost_gradient).cwiseAbs().maxCoeff() < 1.5e-4);
  }
}

TEST_CASE("constraint parameters: a chain released from given angles moves its start with its lengths as "
          "initial_state_parameter_jacobian says",
          "[sensitivity][sundials]") {
  // The start is built from the angles: q₀ = at(θ₁, θ₂) at the lengths (L1, L2), so
  // ∂q₀/∂L1 = (sin θ₁, −cos θ₁, sin θ₁, −cos θ₁) and ∂q₀/∂L2 = (0, 0, sin θ₂, −cos θ₂); the
  // velocity is the projection of rest. The reference differentiates what the user means: runs
  // of the model at L ± δ from at(θ₁, θ₂) of that model (ida_index1, rtol 1e-12, δ = 1e-4: error
  // O(δ²) + 1e-12/δ ≈ 1e-8; not ida_ggl, which at rtol 1e-12 fails to converge near t = 1 s on
  // one shifted model). Measured: forward with the Jacobian within 6.4e-8 of it on every q, v row at
  // t = 1 s (largest entry 2.3), central differences within 2.8e-6; without the Jacobian (the
  // projection of the start alone: the least kinetic-energy move) the L1 column is 0.88 away.
  constexpr double kAngle1 = 0.6, kAngle2 = 1.1;
  const DrivenLengthChain chain;
  const State start = chain.at(kAngle1, kAngle2);
  Matrix dependence = Matrix::Zero(8, 3);
  dependence.col(0).head(4) << std::sin(kAngle1), -std::cos(kAngle1), std::sin(kAngle1), -std::cos(kAngle1);
  dependence.col(1).head(4) << 0.0, 0.0, std::sin(kAngle2), -std::cos(kAngle2);

  const double delta = 1e-4;
  const SimulationOptions reference_run = lengthRun(Integrator::IdaIndex1, 1.0, 1e-12);
  Matrix reference = Matrix::Zero(8, 2);
  for (int i = 0; i < 2; ++i) {
    Vector final_states[2];
    for (int side = 0; side < 2; ++side) {
      Vector p = chain.parameterValues();
      p[i] += side == 0 ? delta : -delta;
      const std::unique_ptr<ParametricSystem> shifted = chain.withParameterValues(p);
      const auto& shifted_chain = dynamic_cast<const DrivenLengthChain&>(*shifted);
      const SensitivityResult run =
          computeSensitivities(shifted_chain, shifted_chain.at(kAngle1, kAngle2), reference_run, SensitivityOptions{});
      INFO(run.summary.briefReport());
      REQUIRE(run.summary.ok());
      final_states[side] = run.states.back().head(8);
    }
    reference.col(i) = (final_states[0] - final_states[1]) / (2.0 * delta);
  }

  const SimulationOptions options = lengthRun(Integrator::IdaGgl, 1.0, 1e-10);
  SensitivityOptions with_dependence;
  with_dependence.initial_state_parameter_jacobian = dependence;
  with_dependence.record_trajectory = true;  // s(0) too
  const SensitivityResult forward = computeSensitivities(chain, start, options, with_dependence);
  SensitivityOptions differences = with_dependence;
  differences.method = SensitivityMethod::CentralDifferences;
  const SensitivityResult central = computeSensitivities(chain, start, options, differences);
  const SensitivityResult projected_only = computeSensitivities(chain, start, options, SensitivityOptions{});
  REQUIRE(forward.summary.ok());
  REQUIRE(central.summary.ok());
  REQUIRE(projected_only.summary.ok());
  const Matrix s_forward = forward.sensitivities.back().topLeftCorner(8, 2);
  const Matrix s_central = central.sensitivities.back().topLeftCorner(8, 2);
  const Matrix s_projected = projected_only.sensitivities.back().topLeftCorner(8, 2);
  INFO("reference\n" << reference << "\nforward\n" << s_forward << "\ncentral differences\n" << s_central
                     << "\nprojection only\n" << s_projected);
  WARN("chain from given angles at t = 1 s: forward " << (s_forward - reference).cwiseAbs().maxCoeff()
                                                      << ", central differences "
                                                      << (s_central - reference).cwiseAbs().maxCoeff()
                                                      << ", projection only (L1) "
                                                      << (s_projected - reference).col(0).cwiseAbs().maxCoeff());
  CHECK(reference.cwiseAbs().maxCoeff() > 1.0);
  CHECK((s_forward - reference).cwiseAbs().maxCoeff() < 2e-7);
  CHECK((s_central - reference).cwiseAbs().maxCoeff() < 1e-4);
  CHECK((s_projected - reference).col(0).cwiseAbs().maxCoeff() > 0.05);
  // s(0): the given columns where they are consistent already (the lengths' position columns are).
  REQUIRE(forward.times.front() == 0.0);
  CHECK((forward.sensitivities.front().topLeftCorner(4, 2) - dependence.topLeftCorner(4, 2)).cwiseAbs().maxCoeff() <
        1e-14);
}

TEST_CASE("constraint parameters: initial_state_parameter_jacobian of the wrong shape or not finite is refused",
          "[sensitivity]") {
  const DrivenLengthChain chain;
  SensitivityOptions options;
  options.initial_state_parameter_jacobian = Matrix::Zero(4, 3);
  CHECK_THROWS_WITH(computeSensitivities(chain, chain.at(0.1, 0.2), lengthRun(Integrator::IdaGgl, 0.1, 1e-6), options),
                    Contains("must be 2nq x np = 8 x 3") && Contains("got 4 x 3"));
  options.initial_state_parameter_jacobian = Matrix::Zero(8, 3);
  options.initial_state_parameter_jacobian(2, 1) = std::nan("");
  CHECK_THROWS_WITH(options.validate(), Contains("initial_state_parameter_jacobian has a non-finite entry"));
}

TEST_CASE("constraint parameters: a chain's sensitivities to its lengths follow the exact scaling of the chain",
          "[sensitivity][sundials]") {
  // A chain hanging from the origin, released from rest straight out at a tilt: scaling every
  // length by s gives the motion q(t; s) = s f(t/√s), so the lengths' columns combined as
  // Σ_k L_k ∂/∂L_k must equal ∂/∂s at s = 1: (q − t q̇/2, q̇/2 − t q̈/2), with q̈ = M⁻¹(Jᵀλ − h)
  // from the run's own state and physical λ. The straight start needs no initial-state Jacobian:
  // lengthening link j moves every particle past it along the chain, which is what the
  // projection's least kinetic-energy move does too. Only the lengths are asked for
  // (SensitivityOptions::parameters). Measured at rtol 1e-10 over 1 s (max entry 7.2): within
  // 1.8e-8 (ida_ggl) and 4.5e-8 (cvode_bdf); the error is the runs' (cvode_bdf: 3.2e-7, 4.5e-8,
  // 6.0e-9 at rtol 1e-9, 1e-10, 1e-11).
  PendulumChainParams params;
  params.masses = {1.0, 0.6, 0.8};
  params.lengths = {0.5, 0.7, 0.4};
  const PendulumChain chain(params);
  const int nq = chain.nq(), nc = chain.nc();
  for (const Integrator integrator : {Integrator::IdaGgl, Integrator::CvodeBdf}) {
    INFO(toString(integrator));
    SimulationOptions options = lengthRun(integrator, 1.0, 1e-10);
    options.dt = 0.25;
    SensitivityOptions lengths;
    lengths.parameters = {"lengths[0]", "lengths[1]", "lengths[2]"};
    lengths.record_trajectory = true;
    const SensitivityResult r = computeSensitivities(chain, chain.initialState(0.3), options, lengths);
    INFO(r.summary.briefReport());
    REQUIRE(r.summary.ok());
    REQUIRE(r.column_names == lengths.parameters);
    REQUIRE(r.times.size() == 5);
    Vector M(nq), h(nq);
    Matrix J(nc, nq);
    double error = 0.0, largest = 0.0;
    for (std::size_t k = 0; k < r.times.size(); ++k) {
      const double t = r.times[k];
      const Vector& y = r.states[k];
      const Vector q = y.head(nq), v = y.segment(nq, nq), lambda = y.tail(nc);
      chain.massDiagonal(q, M);
      chain.bias(q, v, t, h);
      chain.constraintJacobian(q, t, J);
      const Vector a = (J.transpose() * lambda - h).cwiseQuotient(M);
      Vector expected(2 * nq);
      expected << q - 0.5 * t * v, 0.5 * v - 0.5 * t * a;
      const Vector combined = r.sensitivities[k].topRows(2 * nq) * r.parameters;  // Σ L_k s_Lk
      INFO("t = " << t << "\ncombined " << combined.transpose() << "\nscaling  " << expected.transpose());
      error = std::max(error, (combined - expected).cwiseAbs().maxCoeff());
      largest = std::max(largest, expected.cwiseAbs().maxCoeff());
    }
    WARN(toString(integrator) << " chain of 3 from a tilt: max |sum L s_L - scaling| " << error << " (max "
                              << largest << ", " << r.summary.steps << " steps)");
    CHECK(largest > 1.0);
    CHECK(error < 3e-7);
  }
}
