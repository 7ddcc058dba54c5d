// The analytic Newton matrices (lib/src/sundials/newton_matrices.hpp) against central
// differences of IDA's residual and CVODE's right-hand side, written out here from the model's
// own calls; then whole runs with AdaptiveOptions::newton_matrix Analytic and
// DifferenceQuotient side by side.
#include <catch2/catch.hpp>

#include <random>

#include "../../../lib/src/sundials/newton_matrices.hpp"
#include "support/test_models.hpp"

using namespace kktdae;

namespace {

/// u = −k q₀ − d v₁ + sin t: a controller that depends on q, v and t.
const Controller kController = [](double t, ConstVectorRef q, ConstVectorRef v, VectorRef u) {
  u[0] = -2.0 * q[0] - 0.7 * v[1] + std::sin(t);
};

struct Case {
  std::string label;
  std::unique_ptr<ConstrainedSystem> system;
  Controller controller;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  testing::JointDoublePendulum::Params slot;
  slot.rotating_slot = true;
  out.push_back({"joint double pendulum, rotating slot, controller",
                 std::make_unique<testing::JointDoublePendulum>(slot), kController});
  out.push_back({"four-bar", std::make_unique<FourBar>(), Controller{}});
  out.push_back({"Andrews' squeezer", std::make_unique<AndrewsSqueezer>(), Controller{}});
  out.push_back({"2-link 3D pendulum chain", std::make_unique<PendulumChain>(PendulumChainParams::uniform(2)),
                 Controller{}});
  return out;
}

Vector randomVector(std::mt19937& rng, int n, double offset = 0.0) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  Vector x(n);
  for (int i = 0; i < n; ++i) x[i] = offset + uniform(rng);
  return x;
}

/// ida_run.cpp's residual, independently: index-1 with Baumgarte (α, β), or GGL.
Vector idaResidual(const ConstrainedSystem& s, const Controller& controller, bool ggl, double alpha, double beta,
                   double t, const Vector& y, const Vector& yp) {
  const int nq = s.nq(), nc = s.nc(), nu = s.nu();
  const Vector q = y.head(nq), v = y.segment(nq, nq), lambda = y.segment(2 * nq, nc);
  const Vector qd = yp.head(nq), vd = yp.segment(nq, nq);
  Matrix M(nq, nq), J(nc, nq), S(nu, nq);
  Vector h(nq), gamma(nc), phi(nc), phi_t(nc), u = Vector::Zero(nu);
  s.massMatrix(q, M);
  s.bias(q, v, t, h);
  s.constraint(q, t, phi);
  s.constraintJacobian(q, t, J);
  s.constraintTimeDerivative(q, t, phi_t);
  s.constraintBias(q, v, t, gamma);
  if (nu > 0) s.inputMap(q, t, S);
  if (controller) controller(t, q, v, u);
  Vector F(y.size());
  F.head(nq) = qd - v;
  F.segment(nq, nq) = M * vd + h - J.transpose() * lambda;
  if (nu > 0) F.segment(nq, nq) -= S.transpose() * u;
  const Vector phi_dot = J * v + phi_t;
  if (ggl) {
    const Vector mu = y.tail(nc);
    F.head(nq) += J.transpose() * mu;
    F.segment(2 * nq, nc) = phi_dot;
    F.tail(nc) = phi;
  } else {
    F.tail(nc) = J * vd + gamma + 2.0 * alpha * phi_dot + beta * beta * phi;
  }
  return F;
}

/// ‖A − B‖∞ ≤ tol · max(1, ‖B‖∞).
bool close(const Matrix& A, const Matrix& B, double tol) {
  const double scale = std::max(1.0, B.cwiseAbs().rowwise().sum().maxCoeff());
  return (A - B).cwiseAbs().rowwise().sum().maxCoeff() <= tol * scale;
}

}  // namespace

TEST_CASE("IDA's analytic Newton matrix equals central differences of the residual", "[sundials][newton_matrix]") {
  std::mt19937 rng(3);
  for (const Case& c : cases()) {
    const ConstrainedSystem& s = *c.system;
    for (const bool ggl : {false, true}) {
      INFO(c.label << (ggl ? ", GGL" : ", index-1 with Baumgarte"));
      const double alpha = ggl ? 0.0 : 5.0, beta = ggl ? 0.0 : 7.0;
      const Stabilization stabilization = ggl ? Stabilization::none() : Stabilization::baumgarte(alpha, beta);
      const int n = 2 * s.nq() + (ggl ? 2 : 1) * s.nc();
      Vector y = randomVector(rng, n), yp = randomVector(rng, n);
      y.head(s.nq()).array() += 0.5;
      const double t = 0.21, cj = 37.0;  // a Newton coefficient of a step ~0.03
      detail::IdaDenseNewton newton(s, ggl, stabilization, c.controller);
      Matrix G(n, n);
      newton.assemble(t, y.data(), yp.data(), cj, G.data());
      Matrix reference(n, n);
      const double h = 1e-6;
      for (int j = 0; j < n; ++j) {
        Vector yplus = y, yminus = y, ypplus = yp, ypminus = yp;
        yplus[j] += h;
        yminus[j] -= h;
        ypplus[j] += h;
        ypminus[j] -= h;
        reference.col(j) = (idaResidual(s, c.controller, ggl, alpha, beta, t, yplus, yp) -
                            idaResidual(s, c.controller, ggl, alpha, beta, t, yminus, yp)) / (2 * h) +
                           cj * (idaResidual(s, c.controller, ggl, alpha, beta, t, y, ypplus) -
                                 idaResidual(s, c.controller, ggl, alpha, beta, t, y, ypminus)) / (2 * h);
      }
      INFO("max deviation " << (G - reference).cwiseAbs().maxCoeff());
      CHECK(close(G, reference, 1e-6));
      CHECK(newton.evaluations() > 0);
    }
  }
}

TEST_CASE("CVODE's analytic Jacobian equals central differences of the stabilized right-hand side",
          "[sundials][newton_matrix]") {
  std::mt19937 rng(5);
  for (const Case& c : cases()) {
    const ConstrainedSystem& s = *c.system;
    INFO(c.label);
    const int nq = s.nq();
    const Stabilization stabilization = Stabilization::baumgarte(4.0, 6.0);
    AccelerationFunction f(s, stabilization, KktOptions{}, c.controller);
    Vector q = randomVector(rng, nq, 0.5), v = randomVector(rng, nq), a(nq);
    const double t = 0.13;
    REQUIRE(f.evaluate(t, q, v, a).ok());
    detail::CvodeDenseJacobian jacobian(s, stabilization, c.controller);
    Matrix analytic(2 * nq, 2 * nq);
    REQUIRE(jacobian.assemble(t, q, v, a, f.lambda(), analytic.data()));
    auto rhs = [&](const Vector& qq, const Vector& vv) {
      Vector out(2 * nq), acc(nq);
      REQUIRE(f.evaluate(t, qq, vv, acc).ok());
      out << vv, acc;
      return out;
    };
    Matrix reference(2 * nq, 2 * nq);
    const double h = 1e-6;
    for (int j = 0; j < 2 * nq; ++j) {
      Vector qp = q, qm = q, vp = v, vm = v;
      if (j < nq) {
        qp[j] += h;
        qm[j] -= h;
      } else {
        vp[j - nq] += h;
        vm[j - nq] -= h;
      }
      reference.col(j) = (rhs(qp, vp) - rhs(qm, vm)) / (2 * h);
    }
    INFO("max deviation " << (analytic - reference).cwiseAbs().maxCoeff());
    CHECK(close(analytic, reference, 1e-6));
  }
}

TEST_CASE("Analytic and difference-quotient Newton matrices give the same runs, the analytic one with fewer residuals",
          "[sundials][newton_matrix]") {
  testing::JointDoublePendulum::Params params;  // unconstrained, general M, controlled
  const testing::JointDoublePendulum joint(params);
  const PendulumChain chain(PendulumChainParams::uniform(2));
  struct Run {
    const ConstrainedSystem* system;
    State start;
    Controller controller;
  };
  State joint_start;
  joint_start.t = 0.0;
  joint_start.q = Vector::Constant(2, 0.4);
  joint_start.v = Vector::Zero(2);
  const Run runs[] = {{&joint, joint_start, kController}, {&chain, chain.initialState(0.3), Controller{}}};
  for (const Run& run : runs) {
    for (Integrator integrator : {Integrator::CvodeBdf, Integrator::IdaIndex1, Integrator::IdaGgl}) {
      INFO(run.system->name() << ", " << toString(integrator));
      SimulationOptions options;
      options.integrator = integrator;
      options.dt = 0.05;
      options.steps = 20;
      options.adaptive.rtol = 1e-8;
      options.adaptive.atol = 1e-10;
      options.adaptive.linear_solver = NewtonLinearSolver::Dense;
      options.controller = run.controller;
      if (integrator == Integrator::IdaIndex1) options.stabilization = Stabilization::baumgarte(5.0, 5.0);
      Vector final_state[2];
      Summary summary[2];
      for (int k = 0; k < 2; ++k) {
        options.adaptive.newton_matrix = k == 0 ? NewtonMatrix::Analytic : NewtonMatrix::DifferenceQuotient;
        summary[k] = simulate(*run.system, run.start, options, [&](double, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
          final_state[k].resize(2 * q.size());
          final_state[k] << q, v;
        });
        INFO(summary[k].briefReport());
        REQUIRE(summary[k].ok());
      }
      // Both runs meet rtol 1e-8 over 1 s: their difference is of the order of the tolerance.
      CHECK((final_state[0] - final_state[1]).lpNorm<Eigen::Infinity>() < 1e-5);
      CHECK(summary[0].newton_model_evaluations > 0);
      CHECK(summary[1].newton_model_evaluations == 0);
      CHECK(summary[0].rhs_evaluations < summary[1].rhs_evaluations);
    }
  }
}
