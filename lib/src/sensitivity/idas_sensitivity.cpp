// Forward sensitivities through IDAS (sensitivity.hpp). The DAE is ida_run.cpp's,
//
//   index-1:  y = (q, v, λ)      F = ( q̇ − v,  M v̇ + h − Jᵀλ,  J v̇ + γ + 2α(J v + ∂φ/∂t) + β²φ )
//   GGL:      y = (q, v, λ, μ)   F = ( q̇ − v + Jᵀμ,  M v̇ + h − Jᵀλ,  J v + ∂φ/∂t,  φ )
//
// and column i of s = ∂y/∂p solves F_y sᵢ + F_ẏ ṡᵢ + ∂F/∂pᵢ = 0. Along s = (s_q, s_v, s_λ, s_μ)
// the model's tangent (δM, δh, δJ, δγ, δ(∂φ/∂t) along (s_q, s_v)) gives F_y s exactly:
//
//   q rows:  ṡ_q − s_v (+ δJᵀμ + Jᵀ s_μ)
//   v rows:  δM v̇ + M ṡ_v + δh − δJᵀλ − Jᵀ s_λ + ∂r/∂pᵢ
//   index-1: δJ v̇ + J ṡ_v + δγ + 2α(δJ v + J s_v + δ(∂φ/∂t)) + β² J s_q
//   GGL:     δJ v + J s_v + δ(∂φ/∂t)   and   J s_q
//
// and, when φ depends on p, ∂F/∂pᵢ has constraint parts too (Jᵢ = ∂J/∂pᵢ, γᵢ = ∂γ/∂pᵢ,
// φ_tᵢ = ∂(∂φ/∂t)/∂pᵢ, φᵢ = ∂φ/∂pᵢ: ParametricSystem::constraintParameterTangent()):
//
//   q rows (GGL): + Jᵢᵀμ          v rows: − Jᵢᵀλ
//   index-1: + Jᵢ v̇ + γᵢ + 2α(Jᵢ v + φ_tᵢ) + β² φᵢ
//   GGL:     + Jᵢ v + φ_tᵢ   and   + φᵢ
//
// The Newton matrix is ida_run.cpp's analytic one (IdaDenseNewton); IDAS reuses it for the
// sensitivity corrector.
#include <idas/idas.h>
#include <idas/idas_ls.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <Eigen/LU>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <optional>

#include "../sundials/newton_matrices.hpp"
#include "kktdae/core/checks.hpp"
#include "sensitivity_runs.hpp"

namespace kktdae::detail::forward_sensitivity {
namespace {


namespace sd = sundials;

/// One IDAS run's problem data: the model, buffers sized once, counters, the first failure.
struct SensitivityProblem {
  const ParametricSystem* system = nullptr;
  CostIntegrand* cost = nullptr;  ///< null: no quadrature
  int nq = 0, nc = 0, np = 0;  ///< np parameters; the sensitivity columns past np are initial-state directions
  bool ggl = false;
  bool constraint_parameters = false;  ///< φ depends on p (ParametricSystem::constraintsDependOnParameters())
  double alpha = 0.0, beta = 0.0;  ///< Baumgarte gains of the index-1 constraint row
  Vector p;
  // Terms at the current point, and their tangent; ∂φ/∂p and one column's ∂(J, γ, ∂φ/∂t)/∂pᵢ.
  Matrix M, J, dM, dJ, D, P, dJ_dp;
  Vector h, phi, gamma, phi_t, dh, dgamma, dphi_t, no_values, dgamma_dp, dphi_t_dp;
  IdaDenseNewton* newton = nullptr;
  const std::atomic<bool>* interrupt = nullptr;  ///< SimulationOptions::interrupt, polled by the residual
  bool interrupted = false;
  long residual_evaluations = 0, sensitivity_residual_evaluations = 0, quadrature_evaluations = 0;
  std::string failure;  ///< what the model reported (non-finite terms, an exception)
  double failure_time = 0.0;
  sd::ErrorLog log;

  explicit SensitivityProblem(const ParametricSystem& s)
      : system(&s), nq(s.nq()), nc(s.nc()), np(s.np()), constraint_parameters(s.constraintsDependOnParameters()),
        p(s.parameterValues()), M(nq, nq), J(nc, nq), dM(nq, nq), dJ(nc, nq), D(nq, np), P(nc, np),
        dJ_dp(nc, nq), h(nq), phi(nc), gamma(nc), phi_t(nc), dh(nq), dgamma(nc), dphi_t(nc), dgamma_dp(nc),
        dphi_t_dp(nc) {}

  /// ∂J/∂pᵢ, ∂γ/∂pᵢ, ∂(∂φ/∂t)/∂pᵢ at (q, v, t) into dJ_dp, dgamma_dp, dphi_t_dp.
  void constraintParameterColumn(ConstVectorRef q, ConstVectorRef v, double t, int i) {
    ConstraintParameterTangent out{dJ_dp, dgamma_dp, dphi_t_dp};
    system->constraintParameterTangent(q, v, t, i, out);
  }

  /// M, h, φ, J, γ, ∂φ/∂t at (q, v, t); false (with the failure noted) when one is not finite.
  bool evaluate(double t, ConstVectorRef q, ConstVectorRef v) {
    ModelTermsOutput out{h, phi, J, no_values, gamma, phi_t};
    system->evaluateTerms(q, v, t, out);
    system->massMatrix(q, M);
    if (h.allFinite() && phi.allFinite() && J.allFinite() && gamma.allFinite() && phi_t.allFinite() &&
        M.allFinite()) {
      return true;
    }
    if (failure.empty()) {
      failure = system->name() + "'s terms are not finite at t = " + formatDouble(t) + " s";
      failure_time = t;
    }
    return false;
  }
};

/// Runs a model callback; an exception is recorded (it must not cross IDAS's C frames).
template <typename Body>
int guarded(SensitivityProblem& problem, double t, const char* where, Body body) {
  try {
    return body();
  } catch (const std::exception& error) {
    if (problem.failure.empty()) {
      problem.failure = std::string("the model threw in the ") + where + ": " + error.what();
      problem.failure_time = t;
    }
    return -1;
  }
}

int residual(sunrealtype t, N_Vector yy, N_Vector yp, N_Vector rr, void* data) {
  auto& p = *static_cast<SensitivityProblem*>(data);
  return guarded(p, t, "residual", [&] {
    ++p.residual_evaluations;
    if (p.interrupt != nullptr && p.interrupt->load(std::memory_order_relaxed)) {
      p.interrupted = true;
      return -1;  // unrecoverable: IDASolve returns at once
    }
    const auto y = sd::view(yy);
    const auto y_dot = sd::view(yp);
    auto r = sd::view(rr);
    const int nq = p.nq, nc = p.nc;
    const auto q = y.head(nq), v = y.segment(nq, nq), lambda = y.segment(2 * nq, nc);
    if (!y.allFinite()) return 1;  // a trial iterate blew up: recoverable, IDAS cuts the step
    if (!p.evaluate(t, q, v)) return -1;
    const auto v_dot = y_dot.segment(nq, nq);
    r.head(nq) = y_dot.head(nq) - v;
    r.segment(nq, nq).noalias() = p.M * v_dot + p.h - p.J.transpose() * lambda;
    if (p.ggl) {
      r.head(nq).noalias() += p.J.transpose() * y.segment(2 * nq + nc, nc);
      r.segment(2 * nq, nc).noalias() = p.J * v + p.phi_t;
      r.segment(2 * nq + nc, nc) = p.phi;
    } else {
      r.segment(2 * nq, nc).noalias() =
          p.J * v_dot + p.gamma + 2.0 * p.alpha * (p.J * v + p.phi_t) + p.beta * p.beta * p.phi;
    }
    return 0;
  });
}

int sensitivityResidual(int ns, sunrealtype t, N_Vector yy, N_Vector yp, N_Vector, N_Vector* yS, N_Vector* ypS,
                        N_Vector* rS, void* data, N_Vector, N_Vector, N_Vector) {
  auto& p = *static_cast<SensitivityProblem*>(data);
  return guarded(p, t, "sensitivity residual", [&] {
    ++p.sensitivity_residual_evaluations;
    const int nq = p.nq, nc = p.nc;
    const auto y = sd::view(yy);
    const auto y_dot = sd::view(yp);
    const auto q = y.head(nq), v = y.segment(nq, nq), lambda = y.segment(2 * nq, nc);
    const auto v_dot = y_dot.segment(nq, nq);
    if (!p.evaluate(t, q, v)) return -1;
    p.system->dynamicsParameterJacobian(q, v, v_dot, t, p.D);
    if (p.constraint_parameters) p.system->constraintParameterJacobian(q, t, p.P);
    for (int i = 0; i < ns; ++i) {
      const auto s = sd::view(yS[i]);
      const auto s_dot = sd::view(ypS[i]);
      auto r = sd::view(rS[i]);
      const auto s_q = s.head(nq), s_v = s.segment(nq, nq), s_lambda = s.segment(2 * nq, nc);
      ModelTermsTangent tangent{p.dM, p.dh, p.dJ, p.dgamma, p.dphi_t};
      p.system->termsTangent(q, v, t, s_q, s_v, tangent);
      r.head(nq) = s_dot.head(nq) - s_v;
      r.segment(nq, nq).noalias() = p.dM * v_dot + p.M * s_dot.segment(nq, nq) + p.dh -
                                    p.dJ.transpose() * lambda - p.J.transpose() * s_lambda;
      if (i < p.np) r.segment(nq, nq) += p.D.col(i);
      if (p.ggl) {
        const auto mu = y.segment(2 * nq + nc, nc);
        r.head(nq).noalias() += p.dJ.transpose() * mu + p.J.transpose() * s.segment(2 * nq + nc, nc);
        r.segment(2 * nq, nc).noalias() = p.dJ * v + p.J * s_v + p.dphi_t;
        r.segment(2 * nq + nc, nc).noalias() = p.J * s_q;
      } else {
        r.segment(2 * nq, nc).noalias() = p.dJ * v_dot + p.J * s_dot.segment(nq, nq) + p.dgamma +
                                          2.0 * p.alpha * (p.dJ * v + p.J * s_v + p.dphi_t) +
                                          p.beta * p.beta * (p.J * s_q);
      }
      if (i < p.np && p.constraint_parameters) {
        p.constraintParameterColumn(q, v, t, i);
        r.segment(nq, nq).noalias() -= p.dJ_dp.transpose() * lambda;
        if (p.ggl) {
          r.head(nq).noalias() += p.dJ_dp.transpose() * y.segment(2 * nq + nc, nc);
          r.segment(2 * nq, nc).noalias() += p.dJ_dp * v;
          r.segment(2 * nq, nc) += p.dphi_t_dp;
          r.segment(2 * nq + nc, nc) += p.P.col(i);
        } else {
          r.segment(2 * nq, nc).noalias() += p.dJ_dp * v_dot + 2.0 * p.alpha * (p.dJ_dp * v);
          r.segment(2 * nq, nc) += p.dgamma_dp + 2.0 * p.alpha * p.dphi_t_dp + p.beta * p.beta * p.P.col(i);
        }
      }
      if (!r.allFinite()) return 1;
    }
    return 0;
  });
}

int quadrature(sunrealtype t, N_Vector yy, N_Vector, N_Vector rQ, void* data) {
  auto& p = *static_cast<SensitivityProblem*>(data);
  return guarded(p, t, "integrand", [&] {
    ++p.quadrature_evaluations;
    const auto y = sd::view(yy);
    double g = 0.0;
    if (!p.cost->value(t, y.head(p.nq), y.segment(p.nq, p.nq), y.segment(2 * p.nq, p.nc), g, p.failure)) {
      p.failure_time = t;
      return -1;
    }
    N_VGetArrayPointer(rQ)[0] = g;
    return std::isfinite(g) ? 0 : 1;
  });
}

int quadratureSensitivity(int ns, sunrealtype t, N_Vector yy, N_Vector, N_Vector* yS, N_Vector*, N_Vector,
                          N_Vector* rQS, void* data, N_Vector, N_Vector, N_Vector) {
  auto& p = *static_cast<SensitivityProblem*>(data);
  return guarded(p, t, "integrand's gradient", [&] {
    const int nq = p.nq, nc = p.nc;
    const auto y = sd::view(yy);
    if (!p.cost->gradient(t, y.head(nq), y.segment(nq, nq), y.segment(2 * nq, nc), p.failure)) {
      p.failure_time = t;
      return -1;
    }
    for (int i = 0; i < ns; ++i) {
      const auto s = sd::view(yS[i]);
      N_VGetArrayPointer(rQS[i])[0] = p.cost->column(s.head(nq), s.segment(nq, nq), s.segment(2 * nq, nc), i);
    }
    return 0;
  });
}

int newtonMatrix(sunrealtype t, sunrealtype c, N_Vector yy, N_Vector yp, N_Vector, SUNMatrix G, void* data, N_Vector,
                 N_Vector, N_Vector) {
  auto& p = *static_cast<SensitivityProblem*>(data);
  return guarded(p, t, "Newton matrix", [&] {
    p.newton->assemble(t, N_VGetArrayPointer(yy), N_VGetArrayPointer(yp), c, SUNDenseMatrix_Data(G));
    return 0;
  });
}

}  // namespace

/// One IDAS run of `system` from the consistent `start` (q̈ = qdd, λ), with a sensitivity system
/// per column of `initial_sensitivities` when `with_sensitivities`. Counters go into `summary`;
/// returns false (status and message set) when the run failed.
bool runIdas(const ParametricSystem& system, const State& start, ConstVectorRef qdd, ConstVectorRef lambda,
             const SimulationOptions& options, const SensitivityOptions& sensitivity, bool with_sensitivities,
             const Matrix& initial_sensitivities, RunOutput& output, SensitivitySummary& summary) {
  const int nq = system.nq(), nc = system.nc(), np = system.np();
  const int ns = static_cast<int>(initial_sensitivities.cols());  // sensitivity columns
  const bool ggl = options.integrator == Integrator::IdaGgl;
  const int n = 2 * nq + (ggl ? 2 : 1) * nc, ny = 2 * nq + nc;
  const AdaptiveOptions& adaptive = options.adaptive;
  const Stabilization stabilization = ggl ? Stabilization::none() : options.stabilization;
  SensitivityProblem problem(system);
  problem.ggl = ggl;
  problem.alpha = stabilization.kind == Stabilization::Kind::Baumgarte ? stabilization.alpha : 0.0;
  problem.beta = stabilization.kind == Stabilization::Kind::Baumgarte ? stabilization.beta : 0.0;
  const bool with_quadrature = static_cast<bool>(sensitivity.integrand.value);
  ReportedMultiplier reported(system, options);
  std::optional<CostIntegrand> cost;
  if (with_quadrature) problem.cost = &cost.emplace(sensitivity.integrand, reported, system);
  IdaDenseNewton newton(system, ggl, stabilization, options.controller);
  problem.newton = &newton;
  problem.interrupt = options.interrupt;
  ++summary.runs;

  sd::Context context;
  sd::VectorPtr yy = sd::makeVector(n, context), yp = sd::makeVector(n, context);
  sd::VectorPtr id = sd::makeVector(n, context), tolerances = sd::makeVector(n, context);
  sd::VectorPtr yQ = sd::makeVector(1, context);
  sd::MatrixPtr matrix;
  sd::LinearSolverPtr linear_solver;
  std::unique_ptr<VectorArray> yS, ypS, yQS;
  sd::IdaMemoryPtr memory(IDACreate(context));
  const double t0 = start.t;
  const double t_end = options.gridTime(t0, options.gridSteps(t0));
  auto collect = [&](void* mem) {
    if (mem == nullptr) return;
    long value = 0;
    if (IDAGetNumSteps(mem, &value) >= 0) summary.steps += value;
    if (IDAGetNumJacEvals(mem, &value) >= 0) summary.jacobian_evaluations += value;
    if (IDAGetNumErrTestFails(mem, &value) >= 0) summary.error_test_failures += value;
    if (IDAGetNumNonlinSolvConvFails(mem, &value) >= 0) summary.convergence_failures += value;
    summary.residual_evaluations += problem.residual_evaluations;
    summary.sensitivity_residual_evaluations += problem.sensitivity_residual_evaluations;
    summary.quadrature_evaluations += problem.quadrature_evaluations;
  };
  try {
    if (!memory) throw sd::SetupError("IDACreate failed");
    sd::checkIda(IDASetErrHandlerFn(memory.get(), &sd::routeErrorMessage, &problem.log), "IDASetErrHandlerFn");
    auto y0 = sd::view(yy.get());
    auto yp0 = sd::view(yp.get());
    y0.head(nq) = start.q;
    y0.segment(nq, nq) = start.v;
    y0.segment(2 * nq, nc) = lambda;
    yp0.head(nq) = start.v;
    yp0.segment(nq, nq) = qdd;
    auto differential = sd::view(id.get());
    differential.setZero();
    differential.head(2 * nq).setOnes();
    sd::checkIda(IDAInit(memory.get(), &residual, t0, yy.get(), yp.get()), "IDAInit");
    sd::checkIda(IDASetUserData(memory.get(), &problem), "IDASetUserData");
    sd::checkIda(IDASetId(memory.get(), id.get()), "IDASetId");
    // λ and μ stay out of the error test, as in ida_run.cpp (and so do their sensitivities),
    // but not out of the Newton convergence test: see SensitivityOptions::multiplier_atol.
    sd::checkIda(IDASetSuppressAlg(memory.get(), SUNTRUE), "IDASetSuppressAlg");
    auto atol = sd::view(tolerances.get());
    atol.setConstant(adaptive.atol);
    if (adaptive.atol_per_component.size() > 0) atol.head(2 * nq) = adaptive.atol_per_component;
    atol.tail(n - 2 * nq).setConstant(sensitivity.multiplier_atol > 0.0 ? sensitivity.multiplier_atol
                                                                      : std::max(adaptive.atol, 1e-11));
    sd::checkIda(IDASVtolerances(memory.get(), adaptive.rtol, tolerances.get()), "IDASVtolerances");
    matrix.reset(SUNDenseMatrix(n, n, context));
    if (!matrix) throw sd::SetupError("SUNDenseMatrix allocation failed");
    linear_solver.reset(SUNLinSol_Dense(yy.get(), matrix.get(), context));
    if (!linear_solver) throw sd::SetupError("SUNLinSol_Dense allocation failed");
    sd::checkIda(IDASetLinearSolver(memory.get(), linear_solver.get(), matrix.get()), "IDASetLinearSolver");
    sd::checkIda(IDASetJacFn(memory.get(), &newtonMatrix), "IDASetJacFn");
    sd::checkIda(IDASetMaxNumSteps(memory.get(), adaptive.max_steps), "IDASetMaxNumSteps");
    if (adaptive.max_step > 0.0) sd::checkIda(IDASetMaxStep(memory.get(), adaptive.max_step), "IDASetMaxStep");
    // ida_run.cpp's first step for GGL (its comment says why).
    const double initial_step = adaptive.initial_step > 0.0 ? adaptive.initial_step : (ggl ? 1e-4 * options.dt : 0.0);
    if (initial_step > 0.0) sd::checkIda(IDASetInitStep(memory.get(), initial_step), "IDASetInitStep");
    sd::checkIda(IDASetStopTime(memory.get(), t_end), "IDASetStopTime");

    if (with_quadrature) {
      sd::checkIda(IDAQuadInit(memory.get(), &quadrature, yQ.get()), "IDAQuadInit");
      sd::checkIda(IDAQuadSStolerances(memory.get(), adaptive.rtol, adaptive.atol), "IDAQuadSStolerances");
      sd::checkIda(IDASetQuadErrCon(memory.get(), SUNTRUE), "IDASetQuadErrCon");
    }
    if (with_sensitivities) {
      yS = std::make_unique<VectorArray>(ns, yy.get());
      ypS = std::make_unique<VectorArray>(ns, yy.get());
      // Consistent initial sensitivities. Column j starts at its (s_q, s_v) (computeSensitivities():
      // zero for a parameter unless φ depends on p, a projected initial direction otherwise);
      // s_μ = 0, ṡ_q = s_v, and ṡ_v, s_λ solve the KKT system differentiated along the column,
      //     [M −Jᵀ; J 0] [ṡ_v; s_λ] = −[δM q̈ + δh − δJᵀλ + ∂r/∂pⱼ − Jⱼᵀλ;
      //                                 δJ q̈ + δγ + 2α δφ̇ + β² J s_q + Jⱼ q̈ + γⱼ + 2α(Jⱼ q̇ + φ_tⱼ) + β² φⱼ],
      // the tangent δ· taken along (s_q, s_v), δφ̇ = δJ q̇ + J s_v + δ(∂φ/∂t), and the p-derivatives
      // (subscript j, the file comment's) only for a parameter whose φ depends on it.
      if (!problem.evaluate(t0, start.q, start.v)) throw sd::SetupError(problem.failure);
      system.dynamicsParameterJacobian(start.q, start.v, qdd, t0, problem.D);
      if (problem.constraint_parameters) system.constraintParameterJacobian(start.q, t0, problem.P);
      Matrix kkt = Matrix::Zero(nq + nc, nq + nc);
      kkt.topLeftCorner(nq, nq) = problem.M;
      kkt.topRightCorner(nq, nc) = -problem.J.transpose();
      kkt.bottomLeftCorner(nc, nq) = problem.J;
      Matrix rhs = Matrix::Zero(nq + nc, ns);
      rhs.topLeftCorner(nq, np) = -problem.D;
      for (int j = 0; j < ns; ++j) {
        const Vector s_q = initial_sensitivities.col(j).head(nq), s_v = initial_sensitivities.col(j).tail(nq);
        sd::view(yS->vectors[j]).head(2 * nq) = initial_sensitivities.col(j);
        sd::view(ypS->vectors[j]).head(nq) = s_v;
        if (!initial_sensitivities.col(j).isZero(0.0)) {
          ModelTermsTangent tangent{problem.dM, problem.dh, problem.dJ, problem.dgamma, problem.dphi_t};
          system.termsTangent(start.q, start.v, t0, s_q, s_v, tangent);
          rhs.col(j).head(nq) -= problem.dM * qdd + problem.dh - problem.dJ.transpose() * lambda;
          rhs.col(j).tail(nc) -= problem.dJ * qdd + problem.dgamma +
                                 2.0 * problem.alpha * (problem.dJ * start.v + problem.J * s_v + problem.dphi_t) +
                                 problem.beta * problem.beta * (problem.J * s_q);
        }
        if (j < np && problem.constraint_parameters) {
          problem.constraintParameterColumn(start.q, start.v, t0, j);
          rhs.col(j).head(nq) += problem.dJ_dp.transpose() * lambda;
          rhs.col(j).tail(nc) -= problem.dJ_dp * qdd + problem.dgamma_dp +
                                 2.0 * problem.alpha * (problem.dJ_dp * start.v + problem.dphi_t_dp) +
                                 problem.beta * problem.beta * problem.P.col(j);
        }
      }
      const Matrix solution = kkt.fullPivLu().solve(rhs);
      if (!solution.allFinite()) throw sd::SetupError("the initial sensitivities' KKT system is singular");
      for (int i = 0; i < ns; ++i) {
        sd::view(ypS->vectors[i]).segment(nq, nq) = solution.col(i).head(nq);
        sd::view(yS->vectors[i]).segment(2 * nq, nc) = solution.col(i).tail(nc);
      }
      // Staggered: the (linear) sensitivity systems are corrected after the state has converged,
      // with its Newton matrix. The simultaneous corrector failed to converge on ida_index1 at
      // every tolerance tried (IDA_CONV_FAIL near t = 1.2 s on the slider-crank, rtol 1e-8…1e-11).
      sd::checkIda(IDASensInit(memory.get(), ns, IDA_STAGGERED, &sensitivityResidual, yS->vectors, ypS->vectors),
                   "IDASensInit");
      Vector scale = Vector::Ones(ns);  // an initial direction is as large as the user made it
      for (int i = 0; i < np; ++i) {
        if (problem.p[i] != 0.0) scale[i] = std::abs(problem.p[i]);
      }
      sd::checkIda(IDASetSensParams(memory.get(), nullptr, scale.data(), nullptr), "IDASetSensParams");
      sd::checkIda(IDASensEEtolerances(memory.get()), "IDASensEEtolerances");
      sd::checkIda(IDASetSensErrCon(memory.get(), SUNTRUE), "IDASetSensErrCon");
      if (with_quadrature) {
        yQS = std::make_unique<VectorArray>(ns, yQ.get());
        sd::checkIda(IDAQuadSensInit(memory.get(), &quadratureSensitivity, yQS->vectors), "IDAQuadSensInit");
        sd::checkIda(IDAQuadSensEEtolerances(memory.get()), "IDAQuadSensEEtolerances");
        sd::checkIda(IDASetQuadSensErrCon(memory.get(), SUNTRUE), "IDASetQuadSensErrCon");
      }
    }
  } catch (const sd::SetupError& error) {
    collect(memory.get());
    summary.status = RunStatus::SolverFailure;
    summary.message = std::string("IDAS setup failed: ") + error.what();
    return false;
  }

  // y and s at an output, with the reported λ (ReportedMultiplier) in their λ rows.
  auto record = [&](double t) {
    Matrix s;
    if (with_sensitivities) {
      s.resize(ny, ns);
      for (int i = 0; i < ns; ++i) s.col(i) = sd::view(yS->vectors[i]).head(ny);
    }
    std::string failure;
    if (reported.record(t, sd::view(yy.get()).head(ny), with_sensitivities ? &s : nullptr, np, output, failure)) {
      return true;
    }
    collect(memory.get());
    summary.status = RunStatus::KktFailure;
    summary.message = "the observed multiplier at the output t = " + formatDouble(t) + " s: " + failure;
    return false;
  };
  if (sensitivity.record_trajectory && !record(t0)) return false;  // with the start's sensitivities set above
  const long steps = sensitivity.record_trajectory ? options.gridSteps(t0) : 1;
  for (long k = 1; k <= steps; ++k) {
    const double t_out = sensitivity.record_trajectory ? options.gridTime(t0, k) : t_end;
    sunrealtype t_reached = t0;
    const int flag = IDASolve(memory.get(), t_out, &t_reached, yy.get(), yp.get(), IDA_NORMAL);
    if (flag < 0) {
      const sd::ErrorLog log = problem.log;
      collect(memory.get());
      sunrealtype t_current = t_reached, last_step = 0.0;
      if (IDAGetCurrentTime(memory.get(), &t_current) < 0) t_current = t_reached;
      IDAGetLastStep(memory.get(), &last_step);
      if (problem.interrupted) {
        summary.status = RunStatus::Interrupted;
        summary.message = "interrupted at t = " + formatDouble(t_current) + " s";
        return false;
      }
      summary.status = problem.failure.empty() ? RunStatus::SolverFailure : RunStatus::ModelError;
      summary.message = "IDASolve failed with " + sd::idaFlagName(flag) + " at t = " + formatDouble(t_current) +
                        " s (last step " + formatDouble(last_step) + " s, next output " + formatDouble(t_out) +
                        " s): " + (problem.failure.empty() ? log.last_message : problem.failure);
      return false;
    }
    if (with_sensitivities) {
      sunrealtype t_sens = t_reached;
      sd::checkIda(IDAGetSens(memory.get(), &t_sens, yS->vectors), "IDAGetSens");
    }
    if ((sensitivity.record_trajectory || k == steps) && !record(t_reached)) return false;
  }
  if (with_quadrature) {
    sunrealtype t_quad = t_end;
    if (IDAGetQuad(memory.get(), &t_quad, yQ.get()) < 0) {
      collect(memory.get());
      summary.status = RunStatus::SolverFailure;
      summary.message = "IDAGetQuad failed at t = " + formatDouble(t_end) + " s";
      return false;
    }
    output.cost = N_VGetArrayPointer(yQ.get())[0];
    if (with_sensitivities) {
      if (IDAGetQuadSens(memory.get(), &t_quad, yQS->vectors) < 0) {
        collect(memory.get());
        summary.status = RunStatus::SolverFailure;
        summary.message = "IDAGetQuadSens failed at t = " + formatDouble(t_end) + " s";
        return false;
      }
      output.cost_gradient.resize(ns);
      for (int i = 0; i < ns; ++i) output.cost_gradient[i] = N_VGetArrayPointer(yQS->vectors[i])[0];
    }
  }
  collect(memory.get());
  return true;
}


}  // namespace kktdae::detail::forward_sensitivity
