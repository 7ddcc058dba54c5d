// The adaptive integrators' large-system linear solvers: IDA's sparse Newton matrix (KLU)
// against finite differences of the residual and against IDA's dense solver, and CVODE's
// matrix-free SPGMR against its dense solver.
#include <catch2/catch.hpp>

#include "../../../lib/src/sundials/ida_sparse_newton.hpp"
#include "kktdae/models/particle_system.hpp"
#include "kktdae/models/pendulum_chain.hpp"
#include "kktdae/models/spring_chain.hpp"
#include "kktdae/simulate/simulate.hpp"
#include "support/test_models.hpp"

using namespace kktdae;
using Catch::Contains;

namespace {

/// ida_run.cpp's residual written out again, independently, from the model's own calls.
Vector residual(const ConstrainedSystem& system, bool ggl, const Stabilization& stab, double t, const Vector& y,
                const Vector& y_dot) {
  const int nq = system.nq(), nc = system.nc();
  const Vector q = y.head(nq), v = y.segment(nq, nq), lambda = y.segment(2 * nq, nc);
  Vector m(nq), h(nq), phi(nc), gamma(nc);
  Matrix J(nc, nq);
  system.massDiagonal(q, m);
  system.bias(q, v, t, h);
  system.constraint(q, t, phi);
  system.constraintJacobian(q, t, J);
  system.constraintBias(q, v, t, gamma);
  Vector F(y.size());
  F.head(nq) = y_dot.head(nq) - v;
  F.segment(nq, nq) = m.cwiseProduct(y_dot.segment(nq, nq)) + h - J.transpose() * lambda;
  if (ggl) {
    F.head(nq) += J.transpose() * y.tail(nc);
    F.segment(2 * nq, nc) = J * v;
    F.tail(nc) = phi;
  } else {
    F.segment(2 * nq, nc) = J * y_dot.segment(nq, nq) + gamma + 2 * stab.alpha * (J * v) + stab.beta * stab.beta * phi;
  }
  return F;
}

/// ∂F/∂y + c ∂F/∂ẏ by central differences of residual(): the reference for IDA's Newton matrix.
Matrix residualJacobian(const ConstrainedSystem& system, bool ggl, const Stabilization& stab, double t, const Vector& y,
                        const Vector& y_dot, double c) {
  const Eigen::Index n = y.size();
  Matrix reference(n, n);
  for (Eigen::Index k = 0; k < n; ++k) {
    const double h = 1e-6;
    Vector yp = y, ym = y, dp = y_dot, dm = y_dot;
    yp[k] += h;
    ym[k] -= h;
    dp[k] += h;
    dm[k] -= h;
    reference.col(k) = (residual(system, ggl, stab, t, yp, y_dot) - residual(system, ggl, stab, t, ym, y_dot)) / (2 * h) +
                       c * (residual(system, ggl, stab, t, y, dp) - residual(system, ggl, stab, t, y, dm)) / (2 * h);
  }
  return reference;
}

Matrix denseFrom(detail::IdaSparseNewton& newton, int n, double t, const Vector& y, const Vector& y_dot, double c) {
  std::vector<sunindextype> column_start(static_cast<std::size_t>(n) + 1), row_index(static_cast<std::size_t>(newton.nonZeros()));
  std::vector<double> data(static_cast<std::size_t>(newton.nonZeros()));
  newton.copyPattern(column_start.data(), row_index.data());
  newton.assemble(t, y.data(), y_dot.data(), c, data.data());
  Matrix G = Matrix::Zero(n, n);
  for (int col = 0; col < n; ++col) {
    for (auto p = column_start[static_cast<std::size_t>(col)]; p < column_start[static_cast<std::size_t>(col) + 1]; ++p) {
      G(row_index[static_cast<std::size_t>(p)], col) = data[static_cast<std::size_t>(p)];
    }
  }
  return G;
}

}  // namespace

TEST_CASE("large solvers: IDA's sparse Newton matrix equals finite differences of the residual", "[sundials][sparse]") {
  ParticleSystemParams params = ParticleSystemParams::fromPendulumChain(PendulumChainParams::uniform(4));
  params.lines = {{3, Eigen::Vector3d(0.0, -2.0, 0.0), Eigen::Vector3d(1.0, 0.2, 0.3)}};  // a slider too
  const ParticleSystem system(params);
  const int nq = system.nq(), nc = system.nc();
  std::mt19937_64 rng(5);
  for (bool ggl : {false, true}) {
    const Stabilization stab = ggl ? Stabilization::none() : Stabilization::baumgarte(3.0, 7.0);
    detail::IdaSparseNewton newton(system, ggl, stab);
    const int n = 2 * nq + (ggl ? 2 : 1) * nc;
    const Vector y = testing::randomVector(rng, n, 1.0);
    const Vector y_dot = testing::randomVector(rng, n, 1.0);
    const double c = 37.0;
    const Matrix G = denseFrom(newton, n, 0.2, y, y_dot, c);
    const Matrix reference = residualJacobian(system, ggl, stab, 0.2, y, y_dot, c);
    INFO((ggl ? "ggl" : "index-1") << ": max |G - FD| = " << (G - reference).cwiseAbs().maxCoeff());
    // Forward differences inside the curvature blocks: O(√eps) relative.
    CHECK((G - reference).cwiseAbs().maxCoeff() < 1e-6 * (1.0 + reference.cwiseAbs().maxCoeff()));
    CHECK(newton.colors() <= 9);  // 3D chain plus a slider: a handful, independent of length
  }
}

TEST_CASE("large solvers: IDA's sparse Newton matrix with a spring chain's banded dh/dq and dh/dv equals finite "
          "differences of the residual, and sparse IDA follows dense IDA",
          "[sundials][sparse][stiff]") {
  SpringChainParams params;
  params.chain = PendulumChainParams::uniform(5, 1.0, 0.2);
  params.joint_stiffness = 50.0;
  params.joint_damping = 2.0;
  const SpringChain system(params);
  const int nq = system.nq(), nc = system.nc();
  std::mt19937_64 rng(6);
  for (bool ggl : {false, true}) {
    const Stabilization stab = ggl ? Stabilization::none() : Stabilization::baumgarte(3.0, 7.0);
    detail::IdaSparseNewton newton(system, ggl, stab);
    const int n = 2 * nq + (ggl ? 2 : 1) * nc;
    // Near the straight chain (the joint angles stay away from ±π), moving.
    Vector y = testing::randomVector(rng, n, 1.0);
    y.head(nq) = system.initialState(0.3).q + testing::randomVector(rng, nq, 0.03);
    const Vector y_dot = testing::randomVector(rng, n, 1.0);
    const double c = 37.0;
    const Matrix G = denseFrom(newton, n, 0.2, y, y_dot, c);
    const Matrix reference = residualJacobian(system, ggl, stab, 0.2, y, y_dot, c);
    INFO((ggl ? "ggl" : "index-1") << ": max |G - FD| = " << (G - reference).cwiseAbs().maxCoeff() << " of "
                                   << reference.cwiseAbs().maxCoeff());
    // Forward differences inside the curvature and band blocks: O(√eps) relative (the springs'
    // k/L² ~ 1e3 sets the scale; a missing ∂h/∂q is O(1) of it).
    CHECK((G - reference).cwiseAbs().maxCoeff() < 1e-6 * (1.0 + reference.cwiseAbs().maxCoeff()));
  }
  for (Integrator integrator : {Integrator::IdaGgl, Integrator::IdaIndex1}) {
    INFO(toString(integrator));
    SimulationOptions options;
    options.integrator = integrator;
    options.dt = 0.01;
    options.steps = 30;
    options.adaptive.rtol = 1e-8;
    options.adaptive.atol = 1e-10;
    if (integrator != Integrator::IdaGgl) options.stabilization = Stabilization::critical(10.0);
    State ends[2];
    Summary summaries[2];
    const NewtonLinearSolver solvers[] = {NewtonLinearSolver::Dense, NewtonLinearSolver::Sparse};
    for (int s = 0; s < 2; ++s) {
      options.adaptive.linear_solver = solvers[s];
      summaries[s] = simulate(system, system.initialState(0.3), options,
                              [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) { ends[s] = {t, q, v}; });
      INFO(summaries[s].message);
      REQUIRE(summaries[s].ok());
    }
    CHECK(summaries[1].linear_solver == "sparse");
    // Both solve the same problem to rtol 1e-8: 1000·rtol, the suite's rule.
    CHECK((ends[1].q - ends[0].q).lpNorm<Eigen::Infinity>() < 1e-5);
    CHECK(summaries[1].steps <= summaries[0].steps * 3 / 2);
  }
}

TEST_CASE("large solvers: sparse IDA (KLU) and matrix-free CVODE follow their dense counterparts",
          "[sundials][sparse]") {
  const PendulumChain chain(PendulumChainParams::uniform(12));
  const State initial = chain.initialState(0.3);
  struct Case {
    Integrator integrator;
    NewtonLinearSolver large;
    const char* name;
  };
  for (const Case& c : {Case{Integrator::IdaGgl, NewtonLinearSolver::Sparse, "sparse"},
                        Case{Integrator::IdaIndex1, NewtonLinearSolver::Sparse, "sparse"},
                        Case{Integrator::CvodeBdf, NewtonLinearSolver::Krylov, "krylov"}}) {
    INFO(toString(c.integrator));
    SimulationOptions options;
    options.integrator = c.integrator;
    options.dt = 0.01;
    options.steps = 50;
    options.adaptive.rtol = 1e-8;
    options.adaptive.atol = 1e-10;
    options.kkt.path = KktPath::Sparse;
    if (c.integrator != Integrator::IdaGgl) options.stabilization = Stabilization::critical(10.0);
    State dense_end, large_end;
    options.adaptive.linear_solver = NewtonLinearSolver::Dense;
    // The dense run with SUNDIALS' difference quotient: what the residual count below compares.
    options.adaptive.newton_matrix = NewtonMatrix::DifferenceQuotient;
    const Summary dense = simulate(chain, initial, options,
                                   [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) { dense_end = {t, q, v}; });
    options.adaptive.linear_solver = NewtonLinearSolver::Auto;  // the sparse path picks the large solver
    const Summary large = simulate(chain, initial, options,
                                   [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) { large_end = {t, q, v}; });
    REQUIRE(dense.ok());
    REQUIRE(large.ok());
    CHECK(dense.linear_solver == "dense");
    CHECK(large.linear_solver == c.name);
    // Both are solutions to rtol 1e-8 of the same problem: 1000·rtol, the suite's rule.
    CHECK((large_end.q - dense_end.q).lpNorm<Eigen::Infinity>() < 1e-5);
    if (c.large == NewtonLinearSolver::Sparse) {
      // IDA sizes steps partly from Newton's convergence rate, so two valid Newton matrices need
      // not give the same step sequence (measured: index-1 186 and 186 steps; GGL 295 sparse,
      // 230 dense, with the same Jacobian and failure counts). A wrong matrix would collapse the
      // steps or fail; hold the sparse run within 1.5× of the dense one's steps.
      CHECK(large.steps <= dense.steps * 3 / 2);
      CHECK(large.rhs_evaluations < dense.rhs_evaluations);  // no n residuals per Newton matrix
    }
  }
}

TEST_CASE("large solvers: wrong solver choices end the run with a clear message", "[sundials][sparse][errors]") {
  testing::JointDoublePendulum::Params p;
  const testing::JointDoublePendulum joint(p);
  SimulationOptions options;
  options.integrator = Integrator::IdaGgl;
  options.steps = 2;
  options.adaptive.linear_solver = NewtonLinearSolver::Sparse;
  Summary summary = simulate(joint, State{0.0, Vector::Constant(2, 0.3), Vector::Zero(2)}, options);
  CHECK(summary.status == RunStatus::SolverFailure);
  CHECK_THAT(summary.message, Contains("sparse Newton matrix needs") && Contains("sparse Jacobian"));

  const PendulumChain chain(PendulumChainParams::uniform(3));
  options.adaptive.linear_solver = NewtonLinearSolver::Krylov;
  summary = simulate(chain, chain.initialState(0.2), options);
  CHECK_THAT(summary.message, Contains("krylov is for cvode_bdf"));
  options.integrator = Integrator::CvodeBdf;
  options.adaptive.linear_solver = NewtonLinearSolver::Sparse;
  summary = simulate(chain, chain.initialState(0.2), options);
  CHECK_THAT(summary.message, Contains("cvode_bdf has no sparse linear solver"));
}
