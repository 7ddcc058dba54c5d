// Forward sensitivities through CVODES on cvode_run.cpp's stabilized index-1 ODE,
//
//   y = (q, v),   ẏ = f(t, y, p) = (v, a),   [M −Jᵀ; J 0](a; λ) = (−h; −γ − 2αφ̇ − β²φ),
//
// whose sensitivity column (s_q, s_v) along pᵢ (or along an initial direction) obeys
// ṡ = (s_v, δa), δa the KKT system's exact tangent (kkt_tangent.hpp): δφ = J s_q and
// δφ̇ = δJ v + J s_v + δ(∂φ/∂t) in the feedback, ∂r/∂pᵢ in the dynamics (and the constraint
// terms' own ∂/∂pᵢ when φ depends on p). The state's right-hand
// side is the run's own (AccelerationFunction, as simulate() solves it); the sensitivities'
// solves once per call at CVODES's y and reuses that LU for every column. The Newton matrix is
// cvode_run.cpp's analytic ∂f/∂y, which CVODES's staggered corrector reuses for s.
#include <cvodes/cvodes.h>
#include <cvodes/cvodes_ls.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include <atomic>
#include <cmath>
#include <memory>
#include <optional>

#include "../sundials/newton_matrices.hpp"
#include "kktdae/core/checks.hpp"
#include "kktdae/integrators/acceleration_function.hpp"
#include "sensitivity_runs.hpp"

namespace kktdae::detail::forward_sensitivity {
namespace {

namespace sd = sundials;

/// One CVODES run's problem data: the model, the solves, counters, the first failure.
struct CvodesProblem {
  int nq = 0, np = 0;
  AccelerationFunction* f = nullptr;   ///< the state's right-hand side
  KktTangent* kkt = nullptr;           ///< the sensitivities' (the run's law)
  CostIntegrand* cost = nullptr;       ///< null: no quadrature
  CvodeDenseJacobian* jacobian = nullptr;  ///< the analytic Newton matrix, when chosen
  Vector acceleration, dlambda;        ///< scratch, sized once
  const std::atomic<bool>* interrupt = nullptr;
  bool interrupted = false;
  long rhs_evaluations = 0, sensitivity_rhs_evaluations = 0, quadrature_evaluations = 0;
  std::string failure;  ///< what ended the run (a failed solve, an exception)
  double failure_time = 0.0;
  sd::ErrorLog log;

  /// Records the first failure; −1 tells CVODES to stop.
  int fail(double t, const std::string& what) {
    if (failure.empty()) {
      failure = what;
      failure_time = t;
    }
    return -1;
  }
};

/// Runs a model callback; an exception is recorded (it must not cross CVODES's C frames).
template <typename Body>
int guardedCvodes(CvodesProblem& problem, double t, const char* where, Body body) {
  try {
    return body();
  } catch (const std::exception& error) {
    return problem.fail(t, std::string("the model threw in the ") + where + ": " + error.what());
  }
}

int cvodesRightHandSide(sunrealtype t, N_Vector yy, N_Vector ydot, void* data) {
  auto& p = *static_cast<CvodesProblem*>(data);
  return guardedCvodes(p, t, "right-hand side", [&] {
    ++p.rhs_evaluations;
    if (p.interrupt != nullptr && p.interrupt->load(std::memory_order_relaxed)) {
      p.interrupted = true;
      return -1;
    }
    if (!p.failure.empty()) return -1;  // sticky, as in cvode_run.cpp
    const auto y = sd::view(yy);
    auto derivative = sd::view(ydot);
    const auto q = y.head(p.nq), v = y.tail(p.nq);
    derivative.head(p.nq) = v;
    const KktResult result = p.f->evaluate(t, q, v, derivative.tail(p.nq));
    if (result.ok()) return 0;
    if (!y.allFinite()) return 1;  // a trial state blew up: recoverable, CVODES cuts the step
    return p.fail(t, "KKT solve failed (" + std::string(toString(result.status)) + ") at t = " + formatDouble(t) +
                         " s: " + result.message);
  });
}

int cvodesSensitivityRightHandSide(int ns, sunrealtype t, N_Vector yy, N_Vector, N_Vector* yS, N_Vector* ySdot,
                                   void* data, N_Vector, N_Vector) {
  auto& p = *static_cast<CvodesProblem*>(data);
  return guardedCvodes(p, t, "sensitivity right-hand side", [&] {
    ++p.sensitivity_rhs_evaluations;
    const auto y = sd::view(yy);
    if (!y.allFinite()) return 1;
    std::string failure;
    if (!p.kkt->evaluate(t, y.head(p.nq), y.tail(p.nq), failure)) return p.fail(t, failure);
    for (int i = 0; i < ns; ++i) {
      const auto s = sd::view(yS[i]);
      auto s_dot = sd::view(ySdot[i]);
      s_dot.head(p.nq) = s.tail(p.nq);
      p.kkt->tangent(s.head(p.nq), s.tail(p.nq), i < p.np ? i : -1, s_dot.tail(p.nq), p.dlambda);
      if (!s_dot.allFinite()) return 1;
    }
    return 0;
  });
}

int cvodesQuadrature(sunrealtype t, N_Vector yy, N_Vector rQ, void* data) {
  auto& p = *static_cast<CvodesProblem*>(data);
  return guardedCvodes(p, t, "integrand", [&] {
    ++p.quadrature_evaluations;
    const auto y = sd::view(yy);
    double g = 0.0;
    std::string failure;
    if (!p.cost->value(t, y.head(p.nq), y.tail(p.nq), Vector(), g, failure)) return p.fail(t, failure);
    N_VGetArrayPointer(rQ)[0] = g;
    return std::isfinite(g) ? 0 : 1;
  });
}

int cvodesQuadratureSensitivity(int ns, sunrealtype t, N_Vector yy, N_Vector* yS, N_Vector, N_Vector* rQS,
                                void* data, N_Vector, N_Vector) {
  auto& p = *static_cast<CvodesProblem*>(data);
  return guardedCvodes(p, t, "integrand's gradient", [&] {
    const auto y = sd::view(yy);
    std::string failure;
    if (!p.cost->gradient(t, y.head(p.nq), y.tail(p.nq), Vector(), failure)) return p.fail(t, failure);
    for (int i = 0; i < ns; ++i) {
      const auto s = sd::view(yS[i]);
      N_VGetArrayPointer(rQS[i])[0] = p.cost->column(s.head(p.nq), s.tail(p.nq), Vector(), i);
    }
    return 0;
  });
}

/// ∂f/∂y from the model's derivatives at y's own KKT solve (cvode_run.cpp's denseJacobian).
int cvodesJacobian(sunrealtype t, N_Vector yy, N_Vector, SUNMatrix jac, void* data, N_Vector, N_Vector, N_Vector) {
  auto& p = *static_cast<CvodesProblem*>(data);
  return guardedCvodes(p, t, "Newton matrix", [&] {
    if (!p.failure.empty()) return -1;
    const auto y = sd::view(yy);
    const auto q = y.head(p.nq), v = y.tail(p.nq);
    if (!p.f->evaluate(t, q, v, p.acceleration).ok()) return 1;
    return p.jacobian->assemble(t, q, v, p.acceleration, p.f->lambda(), SUNDenseMatrix_Data(jac)) ? 0 : 1;
  });
}

}  // namespace

bool runCvodes(const ParametricSystem& system, const State& start, const SimulationOptions& options,
               const SensitivityOptions& sensitivity, bool with_sensitivities, const Matrix& initial_sensitivities,
               RunOutput& output, SensitivitySummary& summary) {
  const int nq = system.nq(), nc = system.nc(), np = system.np();
  const int ns = static_cast<int>(initial_sensitivities.cols());
  const int ny = 2 * nq + nc;
  const AdaptiveOptions& adaptive = options.adaptive;
  const Stabilization& law = options.stabilization;  // Baumgarte or none (requireSupported)
  const bool baumgarte = law.kind == Stabilization::Kind::Baumgarte;
  const bool bdf = options.integrator == Integrator::CvodeBdf;
  AccelerationFunction f(system, law, options.kkt);
  KktTangent kkt(system, baumgarte ? law.alpha : 0.0, baumgarte ? law.beta : 0.0);
  ReportedMultiplier reported(system, options);
  std::optional<CostIntegrand> cost;
  const bool with_quadrature = static_cast<bool>(sensitivity.integrand.value);
  CvodesProblem problem;
  problem.nq = nq;
  problem.np = np;
  problem.f = &f;
  problem.kkt = &kkt;
  if (with_quadrature) problem.cost = &cost.emplace(sensitivity.integrand, reported, system);
  problem.acceleration = Vector::Zero(nq);
  problem.dlambda = Vector::Zero(nc);
  problem.interrupt = options.interrupt;
  ++summary.runs;

  // Declared in creation order, destroyed in reverse: solver memory first, the context last.
  sd::Context context;
  sd::VectorPtr y = sd::makeVector(2 * nq, context), tolerances, yQ = sd::makeVector(1, context);
  std::unique_ptr<VectorArray> yS, yQS;
  std::unique_ptr<CvodeDenseJacobian> jacobian;
  sd::MatrixPtr matrix;
  sd::LinearSolverPtr linear_solver;
  sd::NonlinearSolverPtr nonlinear_solver, sensitivity_solver;
  sd::CvodeMemoryPtr memory(CVodeCreate(bdf ? CV_BDF : CV_ADAMS, context));
  const double t0 = start.t;
  const double t_end = options.gridTime(t0, options.gridSteps(t0));
  auto collect = [&](void* mem) {
    summary.residual_evaluations += problem.rhs_evaluations;
    summary.sensitivity_residual_evaluations += problem.sensitivity_rhs_evaluations;
    summary.quadrature_evaluations += problem.quadrature_evaluations;
    if (mem == nullptr) return;
    long value = 0;
    if (CVodeGetNumSteps(mem, &value) >= 0) summary.steps += value;
    if (bdf && CVodeGetNumJacEvals(mem, &value) >= 0) summary.jacobian_evaluations += value;
    if (CVodeGetNumErrTestFails(mem, &value) >= 0) summary.error_test_failures += value;
    if (CVodeGetNumNonlinSolvConvFails(mem, &value) >= 0) summary.convergence_failures += value;
  };
  try {
    if (!memory) throw sd::SetupError("CVodeCreate failed");
    sd::checkCvode(CVodeSetErrHandlerFn(memory.get(), &sd::routeErrorMessage, &problem.log), "CVodeSetErrHandlerFn");
    sd::view(y.get()) << start.q, start.v;
    sd::checkCvode(CVodeInit(memory.get(), &cvodesRightHandSide, t0, y.get()), "CVodeInit");
    sd::checkCvode(CVodeSetUserData(memory.get(), &problem), "CVodeSetUserData");
    if (adaptive.atol_per_component.size() > 0) {
      tolerances = sd::makeVector(2 * nq, context);
      sd::view(tolerances.get()) = adaptive.atol_per_component;
      sd::checkCvode(CVodeSVtolerances(memory.get(), adaptive.rtol, tolerances.get()), "CVodeSVtolerances");
    } else {
      sd::checkCvode(CVodeSStolerances(memory.get(), adaptive.rtol, adaptive.atol), "CVodeSStolerances");
    }
    if (bdf) {
      matrix.reset(SUNDenseMatrix(2 * nq, 2 * nq, context));
      linear_solver.reset(SUNLinSol_Dense(y.get(), matrix.get(), context));
      if (!matrix || !linear_solver) throw sd::SetupError("dense matrix or linear solver allocation failed");
      sd::checkCvode(CVodeSetLinearSolver(memory.get(), linear_solver.get(), matrix.get()), "CVodeSetLinearSolver");
      if (adaptive.newton_matrix == NewtonMatrix::Analytic) {
        jacobian = std::make_unique<CvodeDenseJacobian>(system, law, options.controller);
        problem.jacobian = jacobian.get();
        sd::checkCvode(CVodeSetJacFn(memory.get(), &cvodesJacobian), "CVodeSetJacFn");
      }
    } else {
      nonlinear_solver.reset(SUNNonlinSol_FixedPoint(y.get(), 0, context));
      if (!nonlinear_solver) throw sd::SetupError("SUNNonlinSol_FixedPoint failed");
      sd::checkCvode(CVodeSetNonlinearSolver(memory.get(), nonlinear_solver.get()), "CVodeSetNonlinearSolver");
    }
    sd::checkCvode(CVodeSetMaxNumSteps(memory.get(), adaptive.max_steps), "CVodeSetMaxNumSteps");
    if (adaptive.max_step > 0.0) sd::checkCvode(CVodeSetMaxStep(memory.get(), adaptive.max_step), "CVodeSetMaxStep");
    if (adaptive.initial_step > 0.0) {
      sd::checkCvode(CVodeSetInitStep(memory.get(), adaptive.initial_step), "CVodeSetInitStep");
    }
    sd::checkCvode(CVodeSetStopTime(memory.get(), t_end), "CVodeSetStopTime");
    if (with_quadrature) {
      sd::checkCvode(CVodeQuadInit(memory.get(), &cvodesQuadrature, yQ.get()), "CVodeQuadInit");
      sd::checkCvode(CVodeQuadSStolerances(memory.get(), adaptive.rtol, adaptive.atol), "CVodeQuadSStolerances");
      sd::checkCvode(CVodeSetQuadErrCon(memory.get(), SUNTRUE), "CVodeSetQuadErrCon");
    }
    if (with_sensitivities) {
      // s(t0) as computeSensitivities() made it: zero for a parameter unless φ depends on p, the
      // projected direction for an initial-state column. An ODE needs nothing more to be consistent.
      yS = std::make_unique<VectorArray>(ns, y.get());
      for (int j = 0; j < ns; ++j) sd::view(yS->vectors[j]) = initial_sensitivities.col(j);
      // Staggered, as for IDAS: the linear sensitivity systems are corrected once the state has.
      sd::checkCvode(CVodeSensInit(memory.get(), ns, CV_STAGGERED, &cvodesSensitivityRightHandSide, yS->vectors),
                     "CVodeSensInit");
      if (!bdf) {  // CVODES's default sensitivity solver is Newton's, which Adams has no matrix for
        sensitivity_solver.reset(SUNNonlinSol_FixedPointSens(ns, y.get(), 0, context));
        if (!sensitivity_solver) throw sd::SetupError("SUNNonlinSol_FixedPointSens failed");
        sd::checkCvode(CVodeSetNonlinearSolverSensStg(memory.get(), sensitivity_solver.get()),
                       "CVodeSetNonlinearSolverSensStg");
      }
      Vector scale = Vector::Ones(ns);  // an initial direction is as large as the user made it
      const Vector p = system.parameterValues();
      for (int i = 0; i < np; ++i) {
        if (p[i] != 0.0) scale[i] = std::abs(p[i]);
      }
      sd::checkCvode(CVodeSetSensParams(memory.get(), nullptr, scale.data(), nullptr), "CVodeSetSensParams");
      sd::checkCvode(CVodeSensEEtolerances(memory.get()), "CVodeSensEEtolerances");
      sd::checkCvode(CVodeSetSensErrCon(memory.get(), SUNTRUE), "CVodeSetSensErrCon");
      if (with_quadrature) {
        yQS = std::make_unique<VectorArray>(ns, yQ.get());
        sd::checkCvode(CVodeQuadSensInit(memory.get(), &cvodesQuadratureSensitivity, yQS->vectors),
                       "CVodeQuadSensInit");
        sd::checkCvode(CVodeQuadSensEEtolerances(memory.get()), "CVodeQuadSensEEtolerances");
        sd::checkCvode(CVodeSetQuadSensErrCon(memory.get(), SUNTRUE), "CVodeSetQuadSensErrCon");
      }
    }
  } catch (const sd::SetupError& error) {
    collect(memory.get());
    summary.status = RunStatus::SolverFailure;
    summary.message = std::string("CVODES setup failed: ") + error.what();
    return false;
  }

  // y and s at an output: CVODES's (q, v) rows, and the reported λ with its tangent.
  auto record = [&](double t) {
    Vector state = Vector::Zero(ny);
    state.head(2 * nq) = sd::view(y.get());
    Matrix s;
    if (with_sensitivities) {
      s = Matrix::Zero(ny, ns);
      for (int i = 0; i < ns; ++i) s.col(i).head(2 * nq) = sd::view(yS->vectors[i]);
    }
    std::string failure;
    if (reported.record(t, std::move(state), with_sensitivities ? &s : nullptr, np, output, failure)) return true;
    collect(memory.get());
    summary.status = RunStatus::KktFailure;
    summary.message = "the observed multiplier at the output t = " + formatDouble(t) + " s: " + failure;
    return false;
  };
  if (sensitivity.record_trajectory && !record(t0)) return false;
  const long steps = sensitivity.record_trajectory ? options.gridSteps(t0) : 1;
  for (long k = 1; k <= steps; ++k) {
    const double t_out = sensitivity.record_trajectory ? options.gridTime(t0, k) : t_end;
    sunrealtype t_reached = t0;
    const int flag = CVode(memory.get(), t_out, y.get(), &t_reached, CV_NORMAL);
    if (flag < 0) {
      const sd::ErrorLog log = problem.log;
      collect(memory.get());
      sunrealtype t_current = t_reached, last_step = 0.0;
      if (CVodeGetCurrentTime(memory.get(), &t_current) < 0) t_current = t_reached;
      CVodeGetLastStep(memory.get(), &last_step);
      if (problem.interrupted) {
        summary.status = RunStatus::Interrupted;
        summary.message = "interrupted at t = " + formatDouble(t_current) + " s";
        return false;
      }
      summary.status = problem.failure.empty() ? RunStatus::SolverFailure : RunStatus::ModelError;
      summary.message = "CVode failed with " + sd::cvodeFlagName(flag) + " at t = " + formatDouble(t_current) +
                        " s (last step " + formatDouble(last_step) + " s, next output " + formatDouble(t_out) +
                        " s): " + (problem.failure.empty() ? log.last_message : problem.failure);
      return false;
    }
    if (with_sensitivities) {
      sunrealtype t_sens = t_reached;
      if (CVodeGetSens(memory.get(), &t_sens, yS->vectors) < 0) {
        collect(memory.get());
        summary.status = RunStatus::SolverFailure;
        summary.message = "CVodeGetSens failed at t = " + formatDouble(t_reached) + " s";
        return false;
      }
    }
    if ((sensitivity.record_trajectory || k == steps) && !record(t_reached)) return false;
  }
  if (with_quadrature) {
    sunrealtype t_quad = t_end;
    if (CVodeGetQuad(memory.get(), &t_quad, yQ.get()) < 0 ||
        (with_sensitivities && CVodeGetQuadSens(memory.get(), &t_quad, yQS->vectors) < 0)) {
      collect(memory.get());
      summary.status = RunStatus::SolverFailure;
      summary.message = "CVodeGetQuad or CVodeGetQuadSens failed at t = " + formatDouble(t_end) + " s";
      return false;
    }
    output.cost = N_VGetArrayPointer(yQ.get())[0];
    if (with_sensitivities) {
      output.cost_gradient.resize(ns);
      for (int i = 0; i < ns; ++i) output.cost_gradient[i] = N_VGetArrayPointer(yQS->vectors[i])[0];
    }
  }
  collect(memory.get());
  return true;
}

}  // namespace kktdae::detail::forward_sensitivity
