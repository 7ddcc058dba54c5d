// CVODE on the stabilized ODE y = (q, v), ẏ = (v, q̈(t, q, v)) with q̈ from the KKT solve: the
// right-hand side, its Jacobian and projection hooks, and the solver set up from the run's options.
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
#include "adaptive_solver.hpp"
#include "kktdae/core/checks.hpp"
#include "newton_matrices.hpp"
#include "sundials_events.hpp"
#include "sundials_support.hpp"

namespace kktdae::detail {
namespace {

namespace sd = sundials;

struct CvodeProblem : CallbackState {
  const ConstrainedSystem* system = nullptr;
  const ProjectionOptions* projection_options = nullptr;
  ProjectionWorkspace* projection_ws = nullptr;
  State projected;  ///< scratch for the projection (sized once)
  /// The worst condition estimate of the right-hand side's KKT solves: Summary::min_rcond, since
  /// the outputs solve only when an observer reads λ there.
  double min_rcond = std::numeric_limits<double>::infinity();
  sd::ErrorLog log;
  CvodeDenseJacobian* jacobian = nullptr;  ///< the analytic dense Jacobian, when chosen
  Vector acceleration;                     ///< scratch for the Jacobian's KKT solve (nq)
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
  ++problem.evaluations;
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

class CvodeSolver final : public AdaptiveSolver {
 public:
  CvodeSolver(const ConstrainedSystem& system, const SimulationOptions& options, AccelerationFunction& f,
              RunRecorder& recorder, SundialsEvents& events)
      : AdaptiveSolver(problem_),
        nq_(system.nq()),
        bdf_(options.integrator == Integrator::CvodeBdf),
        projection_ws_(system, options.kkt),
        empty_clones_(2 * nq_, context_),
        y_(sd::makeVector(2 * nq_, context_)),
        memory_(CVodeCreate(bdf_ ? CV_BDF : CV_ADAMS, context_)) {
    empty_clones_.installOn(y_.get());
    problem_.f = &f;
    problem_.recorder = &recorder;
    problem_.events = &events;
    problem_.nq = nq_;
    problem_.system = &system;
    problem_.projection_options = &options.projection;
    problem_.projection_ws = &projection_ws_;
  }

  /// Everything simulate() sets up, at `start`. Throws SetupError.
  void setUp(const ConstrainedSystem& system, const SimulationOptions& options, const State& start, Summary& summary) {
    const AdaptiveOptions& adaptive = options.adaptive;
    AccelerationFunction& f = *problem_.f;
    void* memory = memory_.get();
    problem_.projected = start;
    if (!memory) throw sd::SetupError("CVodeCreate failed");
    sd::checkCvode(CVodeSetErrHandlerFn(memory, &sd::routeErrorMessage, &problem_.log), "CVodeSetErrHandlerFn");
    setY(start);
    sd::checkCvode(CVodeInit(memory, &rightHandSide, start.t, y_.get()), "CVodeInit");
    sd::checkCvode(CVodeSetUserData(memory, &problem_), "CVodeSetUserData");
    if (adaptive.atol_per_component.size() > 0) {
      tolerances_ = sd::makeVector(2 * nq_, context_);
      sd::view(tolerances_.get()) = adaptive.atol_per_component;
      sd::checkCvode(CVodeSVtolerances(memory, adaptive.rtol, tolerances_.get()), "CVodeSVtolerances");
    } else {
      sd::checkCvode(CVodeSStolerances(memory, adaptive.rtol, adaptive.atol), "CVodeSStolerances");
    }
    const NewtonLinearSolver requested = adaptive.linear_solver;
    if (bdf_ && requested == NewtonLinearSolver::Sparse) {
      throw sd::SetupError("cvode_bdf has no sparse linear solver: its Newton matrix is dense (q̈ depends on every q "
                           "through (J M⁻¹ Jᵀ)⁻¹); use krylov or dense");
    }
    const bool krylov = requested == NewtonLinearSolver::Krylov ||
                        (requested == NewtonLinearSolver::Auto && f.workspace().sparse);
    if (bdf_ && krylov) {
      // Matrix-free: CVODE's difference-quotient J·v costs one right-hand side (one KKT solve).
      linear_solver_.reset(SUNLinSol_SPGMR(y_.get(), SUN_PREC_NONE, adaptive.krylov_dimension, context_));
      if (!linear_solver_) throw sd::SetupError("SUNLinSol_SPGMR allocation failed");
      sd::checkCvode(CVodeSetLinearSolver(memory, linear_solver_.get(), nullptr), "CVodeSetLinearSolver");
      summary.linear_solver = "krylov";
    } else if (bdf_) {
      matrix_.reset(SUNDenseMatrix(2 * nq_, 2 * nq_, context_));
      linear_solver_.reset(SUNLinSol_Dense(y_.get(), matrix_.get(), context_));
      if (!matrix_ || !linear_solver_) throw sd::SetupError("dense matrix or linear solver allocation failed");
      sd::checkCvode(CVodeSetLinearSolver(memory, linear_solver_.get(), matrix_.get()), "CVodeSetLinearSolver");
      summary.linear_solver = "dense";
      if (adaptive.newton_matrix == NewtonMatrix::Analytic) {
        const std::string why_not = analyticNewtonUnsupported(options.stabilization);
        if (why_not.empty()) {
          jacobian_ = std::make_unique<CvodeDenseJacobian>(system, options.stabilization, options.controller);
          problem_.jacobian = jacobian_.get();
          problem_.acceleration = Vector::Zero(nq_);
          sd::checkCvode(CVodeSetJacFn(memory, &denseJacobian), "CVodeSetJacFn");
        } else {
          summary.notes += "difference-quotient Newton matrix: " + why_not + ". ";
        }
      }
    } else {
      nonlinear_solver_.reset(SUNNonlinSol_FixedPoint(y_.get(), 0, context_));
      if (!nonlinear_solver_) throw sd::SetupError("SUNNonlinSol_FixedPoint failed");
      sd::checkCvode(CVodeSetNonlinearSolver(memory, nonlinear_solver_.get()), "CVodeSetNonlinearSolver");
    }
    if (options.stabilization.project_after_step) {
      sd::checkCvode(CVodeSetProjFn(memory, &projectState), "CVodeSetProjFn");
      // Our projection does not map CVODE's error estimate; tell CVODE not to expect it.
      sd::checkCvode(CVodeSetProjErrEst(memory, SUNFALSE), "CVodeSetProjErrEst");
    }
    sd::checkCvode(CVodeSetMaxNumSteps(memory, adaptive.max_steps), "CVodeSetMaxNumSteps");
    if (adaptive.max_step > 0.0) sd::checkCvode(CVodeSetMaxStep(memory, adaptive.max_step), "CVodeSetMaxStep");
    if (adaptive.initial_step > 0.0) {
      sd::checkCvode(CVodeSetInitStep(memory, adaptive.initial_step), "CVodeSetInitStep");
    }
    if (problem_.events->active()) initCvodeEvents(memory, *problem_.events, &eventRoots);
    t_last_ = start.t;
  }

  void restart(const State& start, ConstVectorRef, ConstVectorRef, RunRecorder& recorder,
               SundialsEvents& events) override {
    problem_.recorder = &recorder;
    problem_.events = &events;
    problem_.clear();
    problem_.min_rcond = std::numeric_limits<double>::infinity();
    setY(start);
    sd::checkCvode(CVodeReInit(memory_.get(), start.t, y_.get()), "CVodeReInit");
    t_last_ = start.t;
  }

  Eigen::Map<const Vector> q() const override { return {N_VGetArrayPointer(y_.get()), nq_}; }
  Eigen::Map<const Vector> v() const override { return {N_VGetArrayPointer(y_.get()) + nq_, nq_}; }

  const Vector* ownLambda(double t, double& rcond, std::string& failure) override {
    if (qdd_.size() != nq_) qdd_.resize(nq_);
    const auto y = sd::view(y_.get());
    const KktResult kkt = problem_.f->evaluate(t, y.head(nq_), y.tail(nq_), qdd_);
    if (!kkt.ok()) {
      failure = "KKT solve failed (" + std::string(toString(kkt.status)) + ") at the output t = " + formatDouble(t) +
                " s: " + kkt.message + describeRows(kkt.offending_rows);
      return nullptr;
    }
    rcond = kkt.rcond;
    return &problem_.f->lambda();
  }

  void fillStatistics(Summary& summary) const override {
    void* memory = memory_.get();
    summary.kkt_solves = problem_.f->solves();
    summary.rhs_evaluations = problem_.evaluations;
    summary.min_rcond = std::min(summary.min_rcond, problem_.min_rcond);
    if (problem_.jacobian != nullptr) summary.newton_model_evaluations = problem_.jacobian->evaluations();
    if (memory == nullptr) return;
    long value = 0;
    if (CVodeGetNumSteps(memory, &value) >= 0) summary.steps = value;
    if (bdf_) {  // Adams has no linear solver to ask
      if (CVodeGetNumJacEvals(memory, &value) >= 0) summary.jacobian_evaluations = value;
      if (CVodeGetNumLinSolvSetups(memory, &value) >= 0) summary.linear_solver_setups = value;
    }
    if (CVodeGetNumErrTestFails(memory, &value) >= 0) summary.error_test_failures = value;
    if (CVodeGetNumNonlinSolvConvFails(memory, &value) >= 0) summary.convergence_failures = value;
    sunrealtype last_step = 0.0;
    if (CVodeGetLastStep(memory, &last_step) >= 0) summary.last_step = last_step;
  }

 private:
  void setY(const State& start) {
    auto y0 = sd::view(y_.get());
    y0 << start.q, start.v;
  }
  int setStopTime(double t) override { return CVodeSetStopTime(memory_.get(), t); }
  int call(double t_out, bool one_step, double& t_reached) override {
    const sd::EmptyClonePool::Lending lending(empty_clones_);
    return CVode(memory_.get(), t_out, y_.get(), &t_reached, one_step ? CV_ONE_STEP : CV_NORMAL);
  }
  int rootReturn() const override { return CV_ROOT_RETURN; }
  bool rootReturned(long k, double t) override {
    return cvodeRootReturned(memory_.get(), *problem_.events, k, t, y_.get());
  }
  bool rootAtOutput(double t_root, double t_out) override { return cvodeRootAtOutput(memory_.get(), t_root, t_out); }
  double currentTime(double fallback) override {
    sunrealtype t = fallback;
    return CVodeGetCurrentTime(memory_.get(), &t) < 0 ? fallback : t;
  }
  double lastStep() override {
    sunrealtype h = 0.0;
    return CVodeGetLastStep(memory_.get(), &h) < 0 ? 0.0 : h;
  }
  const char* solverName() const override { return "CVODE"; }
  const char* callName() const override { return "CVode"; }
  std::string stopTimeCall() const override { return "CVodeSetStopTime"; }
  std::string flagName(int flag) const override { return sd::cvodeFlagName(flag); }
  std::string takeErrorLog() override { return problem_.log.last_message; }

  int nq_;
  bool bdf_;
  CvodeProblem problem_;
  ProjectionWorkspace projection_ws_;
  Vector qdd_;
  // Declared in creation order so that destruction runs in reverse: solver memory first,
  // then its solvers, matrix and vectors, the context last.
  sd::Context context_;
  sd::EmptyClonePool empty_clones_;  // the difference-quotient Jacobian's column views
  sd::VectorPtr y_;
  sd::VectorPtr tolerances_;
  std::unique_ptr<CvodeDenseJacobian> jacobian_;  // outlives the solver that calls it
  sd::MatrixPtr matrix_;
  sd::LinearSolverPtr linear_solver_;
  sd::NonlinearSolverPtr nonlinear_solver_;
  sd::CvodeMemoryPtr memory_;
};

}  // namespace

std::unique_ptr<AdaptiveSolver> makeCvodeSolver(const ConstrainedSystem& system, const SimulationOptions& options,
                                                AccelerationFunction& f, const State& start, RunRecorder& recorder,
                                                SundialsEvents& events, Summary& summary) {
  auto solver = std::make_unique<CvodeSolver>(system, options, f, recorder, events);
  try {
    solver->setUp(system, options, start, summary);
  } catch (const sd::SetupError& error) {
    throw AdaptiveSetupError(std::string("CVODE setup failed: ") + error.what());
  }
  return solver;
}

}  // namespace kktdae::detail
