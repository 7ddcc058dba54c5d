// CVODE on the stabilized ODE y = (q, v), ẏ = (v, q̈(t, q, v)) with q̈ from the KKT solve.
#include <cvodes/cvodes.h>
#include <cvodes/cvodes_ls.h>
#include <cvodes/cvodes_proj.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_spgmr.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "../simulate/run_recorder.hpp"
#include "kktdae/core/checks.hpp"
#include "initial_state.hpp"
#include "newton_matrices.hpp"
#include "sundials_events.hpp"
#include "sundials_support.hpp"

namespace kktdae::detail {
namespace {

namespace sd = sundials;

struct CvodeProblem {
  AccelerationFunction* f = nullptr;
  const ConstrainedSystem* system = nullptr;
  const ProjectionOptions* projection_options = nullptr;
  ProjectionWorkspace* projection_ws = nullptr;
  State projected;  ///< scratch for the projection (sized once)
  RunRecorder* recorder = nullptr;
  int nq = 0;
  long rhs_evaluations = 0;
  /// The worst condition estimate of the right-hand side's KKT solves: Summary::min_rcond, since
  /// the outputs solve only when an observer reads λ there.
  double min_rcond = std::numeric_limits<double>::infinity();
  std::string projection_failure;  ///< why the last projection failed, if one did
  /// The first KKT failure that ended the run, with its time (empty status Ok if none).
  KktResult failure;
  double failure_time = 0.0;
  bool model_threw = false;  ///< the failure is an exception from the model or controller
  bool interrupted = false;  ///< the right-hand side found SimulationOptions::interrupt set
  sd::ErrorLog log;
  CvodeDenseJacobian* jacobian = nullptr;  ///< the analytic dense Jacobian, when chosen
  Vector acceleration;                     ///< scratch for the Jacobian's KKT solve (nq)
  SundialsEvents* events = nullptr;  ///< SimulationOptions::events (sundials_events.hpp)
};

/// Records an exception from the model (or controller) as the run's failure: exceptions must not
/// unwind through SUNDIALS' C frames.
int recordException(CvodeProblem& problem, double t, const std::exception& error) {
  problem.failure.status = KktStatus::NonFinite;
  problem.failure.message = std::string("the model or its controller threw: ") + error.what();
  problem.failure_time = t;
  problem.model_threw = true;
  return -1;
}

int rightHandSideUnguarded(sunrealtype t, N_Vector y, N_Vector ydot, void* data);

int rightHandSide(sunrealtype t, N_Vector y, N_Vector ydot, void* data) {
  try {
    return rightHandSideUnguarded(t, y, ydot, data);
  } catch (const std::exception& error) {
    return recordException(*static_cast<CvodeProblem*>(data), t, error);
  }
}

int rightHandSideUnguarded(sunrealtype t, N_Vector y, N_Vector ydot, void* data) {
  auto& problem = *static_cast<CvodeProblem*>(data);
  ++problem.rhs_evaluations;
  // Polled here, not only between outputs: one output interval can be the whole run.
  if (problem.recorder->interruptRequested()) {
    problem.interrupted = true;
    return -1;  // unrecoverable: CVode returns at once
  }
  // Sticky: once the model failed at a finite state the run is over. Without this, a failure
  // that starts at some time t* lets CVODE creep toward t* with ever smaller successful steps.
  if (!problem.failure.ok()) return -1;
  const auto state = sd::view(y);
  auto derivative = sd::view(ydot);
  const auto q = state.head(problem.nq);
  const auto v = state.tail(problem.nq);
  derivative.head(problem.nq) = v;
  const KktResult result = problem.f->evaluate(t, q, v, derivative.tail(problem.nq));
  if (result.ok()) {
    if (result.rcond < problem.min_rcond) problem.min_rcond = result.rcond;  // NaN (no estimate) never is
    return 0;
  }
  // A non-finite trial state means the step was too bold: let CVODE retry smaller. Anything
  // else (singular KKT, a model returning NaN at a finite state) ends the run.
  const bool trial_blew_up = !q.allFinite() || !v.allFinite();
  if (!trial_blew_up) {
    problem.failure = result;
    problem.failure_time = t;
  }
  return trial_blew_up ? 1 : -1;
}

/// ∂f/∂y from the model's derivatives. The KKT solve at y gives the q̈ and λ the derivatives are
/// taken at (CVODE's fy is f at y too, but λ would be the last right-hand side's, not y's).
int denseJacobian(sunrealtype t, N_Vector y, N_Vector, SUNMatrix jac, void* data, N_Vector, N_Vector,
                  N_Vector) try {
  auto& problem = *static_cast<CvodeProblem*>(data);
  if (!problem.failure.ok()) return -1;
  const auto state = sd::view(y);
  const auto q = state.head(problem.nq);
  const auto v = state.tail(problem.nq);
  const KktResult result = problem.f->evaluate(t, q, v, problem.acceleration);
  if (!result.ok()) return 1;  // recoverable: CVODE retries with a smaller step
  if (!problem.jacobian->assemble(t, q, v, problem.acceleration, problem.f->lambda(), SUNDenseMatrix_Data(jac))) {
    return 1;
  }
  return 0;
} catch (const std::exception& error) {
  return recordException(*static_cast<CvodeProblem*>(data), t, error);
}

/// CVODE's projection hook: corr = Π(y) − y, Π the M-orthogonal projection onto φ = 0 and
/// J q̇ + ∂φ/∂t = 0. CVODE calls it after every accepted step and keeps integrating from Π(y).
int projectState(sunrealtype t, N_Vector ycur, N_Vector corr, sunrealtype, N_Vector, void* data) try {
  auto& problem = *static_cast<CvodeProblem*>(data);
  const auto y = sd::view(ycur);
  auto correction = sd::view(corr);
  problem.projected.t = t;
  problem.projected.q = y.head(problem.nq);
  problem.projected.v = y.tail(problem.nq);
  const ProjectionReport report =
      projectToManifold(*problem.system, problem.projected, *problem.projection_options, *problem.projection_ws);
  if (!report.converged) {
    problem.projection_failure = report.message;
    return 1;  // recoverable: CVODE retries with a smaller step
  }
  problem.recorder->countProjection(report);
  correction.head(problem.nq) = problem.projected.q - y.head(problem.nq);
  correction.tail(problem.nq) = problem.projected.v - y.tail(problem.nq);
  return 0;
} catch (const std::exception& error) {
  return recordException(*static_cast<CvodeProblem*>(data), t, error);
}

int eventRoots(sunrealtype t, N_Vector y, sunrealtype* gout, void* data) {
  return cvodeEventRoots(*static_cast<CvodeProblem*>(data)->events, t, y, gout);
}

void fillStatistics(void* memory, const CvodeProblem& problem, Summary& summary) {
  summary.kkt_solves = problem.f->solves();
  summary.rhs_evaluations = problem.rhs_evaluations;
  summary.min_rcond = std::min(summary.min_rcond, problem.min_rcond);
  if (problem.jacobian != nullptr) summary.newton_model_evaluations = problem.jacobian->evaluations();
  if (memory == nullptr) return;
  long value = 0;
  if (CVodeGetNumSteps(memory, &value) >= 0) summary.steps = value;
  if (summary.integrator == Integrator::CvodeBdf) {  // Adams has no linear solver to ask
    if (CVodeGetNumJacEvals(memory, &value) >= 0) summary.jacobian_evaluations = value;
    if (CVodeGetNumLinSolvSetups(memory, &value) >= 0) summary.linear_solver_setups = value;
  }
  if (CVodeGetNumErrTestFails(memory, &value) >= 0) summary.error_test_failures = value;
  if (CVodeGetNumNonlinSolvConvFails(memory, &value) >= 0) summary.convergence_failures = value;
  sunrealtype last_step = 0.0;
  if (CVodeGetLastStep(memory, &last_step) >= 0) summary.last_step = last_step;
}

}  // namespace

Summary simulateCvode(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options,
                      const Observer& observer) {
  const int nq = system.nq();
  const AdaptiveOptions& adaptive = options.adaptive;
  RunRecorder recorder(system, options, observer, initial);
  Summary& summary = recorder.summary();
  AccelerationFunction f(system, options.stabilization, options.kkt, options.controller);
  PhysicalMultiplier physical(system, options);
  recorder.attach(f, [&](Summary& counted) { counted.observation_kkt_solves = physical.solveCount(); });
  ProjectionWorkspace projection_ws(system, options.kkt);
  CvodeProblem problem;
  problem.f = &f;
  problem.system = &system;
  problem.projection_options = &options.projection;
  problem.projection_ws = &projection_ws;
  problem.projected = initial;
  problem.recorder = &recorder;
  problem.nq = nq;
  SundialsEvents events(system, options, physical.eventLaw(), summary);
  problem.events = &events;

  State start = initial;
  Vector qdd(nq);
  KktResult kkt;
  std::string terms_failure;  // why the output's constraint terms failed, if they did
  if (auto ended = startAdaptiveRun(system, options, recorder, f, physical, start, qdd, false, "")) return *ended;

  // Declared in creation order so that destruction runs in reverse: solver memory first,
  // then its solvers, matrix and vectors, the context last.
  sd::Context context;
  sd::EmptyClonePool empty_clones(2 * nq, context);  // the difference-quotient Jacobian's column views
  sd::VectorPtr y = sd::makeVector(2 * nq, context);
  empty_clones.installOn(y.get());
  sd::VectorPtr tolerances;
  std::unique_ptr<CvodeDenseJacobian> jacobian;  // outlives the solver that calls it
  sd::MatrixPtr matrix;
  sd::LinearSolverPtr linear_solver;
  sd::NonlinearSolverPtr nonlinear_solver;
  const bool bdf = options.integrator == Integrator::CvodeBdf;
  sd::CvodeMemoryPtr memory(CVodeCreate(bdf ? CV_BDF : CV_ADAMS, context));
  try {
    if (!memory) throw sd::SetupError("CVodeCreate failed");
    sd::checkCvode(CVodeSetErrHandlerFn(memory.get(), &sd::routeErrorMessage, &problem.log), "CVodeSetErrHandlerFn");
    auto y0 = sd::view(y.get());
    y0 << start.q, start.v;
    sd::checkCvode(CVodeInit(memory.get(), &rightHandSide, start.t, y.get()), "CVodeInit");
    sd::checkCvode(CVodeSetUserData(memory.get(), &problem), "CVodeSetUserData");
    if (adaptive.atol_per_component.size() > 0) {
      tolerances = sd::makeVector(2 * nq, context);
      sd::view(tolerances.get()) = adaptive.atol_per_component;
      sd::checkCvode(CVodeSVtolerances(memory.get(), adaptive.rtol, tolerances.get()), "CVodeSVtolerances");
    } else {
      sd::checkCvode(CVodeSStolerances(memory.get(), adaptive.rtol, adaptive.atol), "CVodeSStolerances");
    }
    const NewtonLinearSolver requested = adaptive.linear_solver;
    if (bdf && requested == NewtonLinearSolver::Sparse) {
      throw sd::SetupError("cvode_bdf has no sparse linear solver: its Newton matrix is dense (q̈ depends on every q "
                           "through (J M⁻¹ Jᵀ)⁻¹); use krylov or dense");
    }
    const bool krylov = requested == NewtonLinearSolver::Krylov ||
                        (requested == NewtonLinearSolver::Auto && f.workspace().sparse);
    if (bdf && krylov) {
      // Matrix-free: CVODE's difference-quotient J·v costs one right-hand side (one KKT solve).
      linear_solver.reset(SUNLinSol_SPGMR(y.get(), SUN_PREC_NONE, adaptive.krylov_dimension, context));
      if (!linear_solver) throw sd::SetupError("SUNLinSol_SPGMR allocation failed");
      sd::checkCvode(CVodeSetLinearSolver(memory.get(), linear_solver.get(), nullptr), "CVodeSetLinearSolver");
      summary.linear_solver = "krylov";
    } else if (bdf) {
      matrix.reset(SUNDenseMatrix(2 * nq, 2 * nq, context));
      linear_solver.reset(SUNLinSol_Dense(y.get(), matrix.get(), context));
      if (!matrix || !linear_solver) throw sd::SetupError("dense matrix or linear solver allocation failed");
      sd::checkCvode(CVodeSetLinearSolver(memory.get(), linear_solver.get(), matrix.get()), "CVodeSetLinearSolver");
      summary.linear_solver = "dense";
      if (adaptive.newton_matrix == NewtonMatrix::Analytic) {
        const std::string why_not = analyticNewtonUnsupported(options.stabilization);
        if (why_not.empty()) {
          jacobian = std::make_unique<CvodeDenseJacobian>(system, options.stabilization, options.controller);
          problem.jacobian = jacobian.get();
          problem.acceleration = Vector::Zero(nq);
          sd::checkCvode(CVodeSetJacFn(memory.get(), &denseJacobian), "CVodeSetJacFn");
        } else {
          summary.notes += "difference-quotient Newton matrix: " + why_not + ". ";
        }
      }
    } else {
      nonlinear_solver.reset(SUNNonlinSol_FixedPoint(y.get(), 0, context));
      if (!nonlinear_solver) throw sd::SetupError("SUNNonlinSol_FixedPoint failed");
      sd::checkCvode(CVodeSetNonlinearSolver(memory.get(), nonlinear_solver.get()), "CVodeSetNonlinearSolver");
    }
    if (options.stabilization.project_after_step) {
      sd::checkCvode(CVodeSetProjFn(memory.get(), &projectState), "CVodeSetProjFn");
      // Our projection does not map CVODE's error estimate; tell CVODE not to expect it.
      sd::checkCvode(CVodeSetProjErrEst(memory.get(), SUNFALSE), "CVodeSetProjErrEst");
    }
    sd::checkCvode(CVodeSetMaxNumSteps(memory.get(), adaptive.max_steps), "CVodeSetMaxNumSteps");
    if (adaptive.max_step > 0.0) sd::checkCvode(CVodeSetMaxStep(memory.get(), adaptive.max_step), "CVodeSetMaxStep");
    if (adaptive.initial_step > 0.0) {
      sd::checkCvode(CVodeSetInitStep(memory.get(), adaptive.initial_step), "CVodeSetInitStep");
    }
    if (events.active()) initCvodeEvents(memory.get(), events, &eventRoots);
  } catch (const sd::SetupError& error) {
    fillStatistics(memory.get(), problem, summary);
    return recorder.finish(RunStatus::SolverFailure, std::string("CVODE setup failed: ") + error.what());
  }

  const auto state = sd::view(y.get());
  const long steps = options.gridSteps(initial.t);
  try {
  for (long k = 1; k <= steps; ++k) {
    recorder.beginStep(k);
    if (recorder.interruptRequested()) {
      fillStatistics(memory.get(), problem, summary);
      return recorder.finishInterrupted();
    }
    const double t_out = options.gridTime(initial.t, k);
    if (adaptive.stop_at_outputs) {
      const int stop = CVodeSetStopTime(memory.get(), t_out);
      if (stop < 0) {
        fillStatistics(memory.get(), problem, summary);
        return recorder.finish(RunStatus::SolverFailure, "CVodeSetStopTime(" + formatDouble(t_out) + ") returned " +
                                                             sd::cvodeFlagName(stop));
      }
    }
    sunrealtype t_reached = summary.t_final;
    int flag = CVode(memory.get(), t_out, y.get(), &t_reached, CV_NORMAL);
    while (flag == CV_ROOT_RETURN) {  // an event inside the interval: fire it, go on to t_out
      if (cvodeRootReturned(memory.get(), events, k, t_reached, y.get())) {
        fillStatistics(memory.get(), problem, summary);
        return events.runner.finishStopped(recorder);
      }
      // A root within round-off of t_out is the output: asking CVODE again for t_out would
      // return the same root (its exact zero at troot lies beyond tout's distance).
      if (cvodeRootAtOutput(memory.get(), t_reached, t_out)) break;
      flag = CVode(memory.get(), t_out, y.get(), &t_reached, CV_NORMAL);
    }
    if (flag < 0 && problem.interrupted) {
      fillStatistics(memory.get(), problem, summary);
      sunrealtype t_current = t_reached;
      if (CVodeGetCurrentTime(memory.get(), &t_current) < 0) t_current = t_reached;
      return recorder.finishInterrupted(t_current);
    }
    if (flag < 0 && !events.failure.empty()) {
      fillStatistics(memory.get(), problem, summary);
      summary.failed_step = k;
      return recorder.finish(RunStatus::ModelError, events.failure + " (CVODE's root function, output interval " +
                                                        std::to_string(k) + ")");
    }
    if (flag < 0) {
      const sd::ErrorLog log = problem.log;  // before the statistics calls can add to it
      fillStatistics(memory.get(), problem, summary);
      sunrealtype t_current = t_reached;
      if (CVodeGetCurrentTime(memory.get(), &t_current) < 0) t_current = t_reached;
      std::string message = sd::solverFailureMessage("CVode", sd::cvodeFlagName(flag), t_current, summary.last_step,
                                                     t_out, {problem.failure, problem.failure_time}, log);
      summary.failed_step = k;
      RunStatus status = problem.model_threw      ? RunStatus::ModelError
                         : problem.failure.ok() ? RunStatus::SolverFailure
                                                : RunStatus::KktFailure;
      if (problem.failure.ok() && !problem.projection_failure.empty()) {
        status = RunStatus::ProjectionFailure;
        message += "; last projection failure: " + problem.projection_failure;
      }
      return recorder.finish(status, message);
    }
    const auto q = state.head(nq);
    const auto v = state.tail(nq);
    const bool observed = k % options.observe_every == 0 || k == steps;
    // λ at the output state is for the observer alone: the recorder's ‖φ‖∞ and ‖φ̇‖∞ and the
    // divergence rule read φ, J and φ̇ only, which need no KKT solve (about 60 % of a
    // right-hand side's cost on seed 002's circle, once per output) and none of the other terms
    // (the next right-hand side evaluates and checks them at the state it is asked for).
    const bool needs_lambda = observed && recorder.hasObserver();
    // The physical multiplier, where the run's own solve (with its Baumgarte feedback) is not it,
    // comes from a solve of its own; the run's is then not needed.
    const bool own_solve = needs_lambda && !physical.solves();
    if (own_solve) {
      kkt = f.evaluate(t_reached, q, v, qdd);
      if (!kkt.ok()) {
        fillStatistics(memory.get(), problem, summary);
        summary.failed_step = k;
        return recorder.finish(RunStatus::KktFailure, "KKT solve failed (" + std::string(toString(kkt.status)) +
                                                          ") at the output t = " + formatDouble(t_reached) + " s: " +
                                                          kkt.message + describeRows(kkt.offending_rows));
      }
    } else if (!f.evaluateConstraintTerms(t_reached, q, v, terms_failure)) {
      fillStatistics(memory.get(), problem, summary);
      summary.failed_step = k;
      return recorder.finish(RunStatus::KktFailure, "model terms failed at the output t = " +
                                                        formatDouble(t_reached) + " s: " + terms_failure);
    }
    if (const DivergenceVerdict verdict = recorder.divergence(t_reached, q, v, f.workspace());
        verdict != DivergenceVerdict::Plausible) {
      fillStatistics(memory.get(), problem, summary);
      return recorder.finishDiverged(t_reached, verdict, q, v, f.workspace());
    }
    const Vector* lambda = &f.lambda();
    if (needs_lambda && physical.solves()) {
      lambda = physical.solve(t_reached, q, v, terms_failure);
      if (lambda == nullptr) {
        fillStatistics(memory.get(), problem, summary);
        summary.failed_step = k;
        return recorder.finish(RunStatus::KktFailure, "at the output t = " + formatDouble(t_reached) + " s: " +
                                                          terms_failure);
      }
    }
    const double rcond = own_solve ? kkt.rcond : std::nan("");
    if (observed) {  // without an observer, λ is never read
      recorder.observe(t_reached, q, v, *lambda, f.workspace(), rcond);
    } else {
      recorder.track(t_reached, f.workspace(), std::nan(""));
    }
  }
  } catch (const std::exception& error) {  // from the observer or the output-state solve
    fillStatistics(memory.get(), problem, summary);
    return recorder.abort(error);
  }
  fillStatistics(memory.get(), problem, summary);
  return recorder.finish(RunStatus::Success, "");
}

}  // namespace kktdae::detail
