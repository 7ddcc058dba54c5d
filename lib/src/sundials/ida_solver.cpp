// IDA on the constrained DAE itself, with λ (and, for GGL, μ) as algebraic unknowns.
//
//   index-1:  y = (q, v, λ)      F = ( q̇ − v,  M v̇ + h − Sᵀu − Jᵀλ,  J v̇ + γ + 2αφ̇ + β²φ )
//   GGL:      y = (q, v, λ, μ)   F = ( q̇ − v + Jᵀμ,  M v̇ + h − Sᵀu − Jᵀλ,  J v + ∂φ/∂t,  φ )
//
// GGL uses the plain (not mass-weighted) Jᵀμ correction: μ vanishes on exact solutions, so the
// weighting only changes how discretization error is pushed back, and the plain form needs no
// M⁻¹. The dense Newton matrix is assembled from the model's derivatives (IdaDenseNewton,
// newton_matrices.hpp) or, on request, IDA's own difference quotient; for large models on the
// sparse path it is IdaSparseNewton's fixed-pattern matrix factorized by KLU.
#include <idas/idas.h>
#include <idas/idas_ls.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <cmath>
#include <memory>

#include "../simulate/run_recorder.hpp"
#include "adaptive_solver.hpp"
#include "kktdae/core/checks.hpp"
#include "ida_sparse_newton.hpp"
#include "newton_matrices.hpp"
#include "sundials_events.hpp"
#include "sundials_support.hpp"

namespace kktdae::detail {
namespace {

namespace sd = sundials;

struct IdaProblem : CallbackState {
  int nc = 0;
  bool ggl = false;
  sd::ErrorLog log;
  IdaSparseNewton* newton = nullptr;  ///< the sparse Newton matrix, when KLU solves
  IdaDenseNewton* dense_newton = nullptr;  ///< the analytic dense Newton matrix, when chosen
};

/// Records an exception from the Newton matrix's model calls as the run's failure.
int newtonMatrixThrew(IdaProblem& p, double t, const std::exception& error) {
  p.failure.status = KktStatus::NonFinite;
  p.failure.message = std::string("the model threw in the Newton matrix: ") + error.what();
  p.failure_time = t;
  p.model_threw = true;
  return -1;
}

/// G = ∂F/∂y + c ∂F/∂ẏ from the model's derivatives into IDA's dense matrix.
int denseNewtonMatrix(sunrealtype t, sunrealtype c, N_Vector yy, N_Vector yp, N_Vector, SUNMatrix G, void* data,
                      N_Vector, N_Vector, N_Vector) {
  auto& p = *static_cast<IdaProblem*>(data);
  try {
    p.dense_newton->assemble(t, N_VGetArrayPointer(yy), N_VGetArrayPointer(yp), c, SUNDenseMatrix_Data(G));
    return 0;
  } catch (const std::exception& error) {
    return newtonMatrixThrew(p, t, error);
  }
}

/// G = ∂F/∂y + c ∂F/∂ẏ into the sparse matrix (SUNMatZero clears its pattern too: rewritten).
int sparseNewtonMatrix(sunrealtype t, sunrealtype c, N_Vector yy, N_Vector yp, N_Vector, SUNMatrix G, void* data,
                       N_Vector, N_Vector, N_Vector) {
  auto& p = *static_cast<IdaProblem*>(data);
  try {
    p.newton->copyPattern(SUNSparseMatrix_IndexPointers(G), SUNSparseMatrix_IndexValues(G));
    p.newton->assemble(t, N_VGetArrayPointer(yy), N_VGetArrayPointer(yp), c, SUNSparseMatrix_Data(G));
    return 0;
  } catch (const std::exception& error) {
    return newtonMatrixThrew(p, t, error);
  }
}

int residualUnguarded(sunrealtype t, N_Vector yy, N_Vector yp, N_Vector rr, void* data);

/// Exceptions from the model must not unwind through IDA's C frames: record and fail.
int residual(sunrealtype t, N_Vector yy, N_Vector yp, N_Vector rr, void* data) {
  try {
    return residualUnguarded(t, yy, yp, rr, data);
  } catch (const std::exception& error) {
    auto& p = *static_cast<IdaProblem*>(data);
    p.failure.status = KktStatus::NonFinite;
    p.failure.message = std::string("the model or its controller threw: ") + error.what();
    p.failure_time = t;
    p.model_threw = true;
    return -1;
  }
}

int residualUnguarded(sunrealtype t, N_Vector yy, N_Vector yp, N_Vector rr, void* data) {
  auto& p = *static_cast<IdaProblem*>(data);
  ++p.evaluations;
  // Polled here, not only between outputs: one output interval can be the whole run.
  if (p.recorder->interruptRequested()) {
    p.interrupted = true;
    return -1;  // unrecoverable: IDASolve returns at once
  }
  if (!p.failure.ok()) return -1;  // sticky, as in CVODE's right-hand side
  const auto y = sd::view(yy);
  const auto y_dot = sd::view(yp);
  auto r = sd::view(rr);
  const auto q = y.head(p.nq);
  const auto v = y.segment(p.nq, p.nq);
  const auto lambda = y.segment(2 * p.nq, p.nc);
  const KktResult terms = p.f->evaluateTerms(t, q, v);
  if (!terms.ok()) {
    const bool trial_blew_up = !y.allFinite();
    if (!trial_blew_up) {
      p.failure = terms;
      p.failure_time = t;
    }
    return trial_blew_up ? 1 : -1;
  }
  const KktWorkspace& ws = p.f->workspace();
  const auto q_dot = y_dot.head(p.nq);
  const auto v_dot = y_dot.segment(p.nq, p.nq);

  auto r_q = r.head(p.nq);
  r_q = q_dot - v;
  auto r_v = r.segment(p.nq, p.nq);
  if (ws.mass_structure == MassStructure::General) {
    r_v.noalias() = ws.M * v_dot;
  } else {
    r_v = ws.mass_diagonal.cwiseProduct(v_dot);
  }
  r_v -= ws.force;

  // The same products on either path: J dense, or J in the sparse constraint space.
  auto jacobianProducts = [&](const auto& J) {
    if (p.ggl) r_q.noalias() += J.transpose() * y.segment(2 * p.nq + p.nc, p.nc);
    r_v.noalias() -= J.transpose() * lambda;
    if (!p.ggl) {
      auto r_c = r.segment(2 * p.nq, p.nc);
      r_c.noalias() = J * v_dot;
      r_c -= ws.constraint_target;  // J v̇ + γ + 2αφ̇ + β²φ
    }
  };
  if (ws.sparse) {
    jacobianProducts(ws.constraint_space->J);
  } else {
    jacobianProducts(ws.J);
  }
  if (p.ggl) {
    r.segment(2 * p.nq, p.nc) = ws.phi_dot;
    r.segment(2 * p.nq + p.nc, p.nc) = ws.phi;
  }
  return 0;
}

int eventRoots(sunrealtype t, N_Vector yy, N_Vector, sunrealtype* gout, void* data) {
  return idaEventRoots(*static_cast<IdaProblem*>(data)->events, t, yy, gout);
}

class IdaSolver final : public AdaptiveSolver {
 public:
  IdaSolver(const ConstrainedSystem& system, const SimulationOptions& options, AccelerationFunction& f,
            RunRecorder& recorder, SundialsEvents& events)
      : AdaptiveSolver(problem_),
        nq_(system.nq()),
        nc_(system.nc()),
        ggl_(options.integrator == Integrator::IdaGgl),
        n_(2 * nq_ + (ggl_ ? 2 : 1) * nc_),
        empty_clones_(n_, context_),
        yy_(sd::makeVector(n_, context_)),
        yp_(sd::makeVector(n_, context_)),
        id_(sd::makeVector(n_, context_)),
        memory_(IDACreate(context_)) {
    empty_clones_.installOn(yy_.get());
    empty_clones_.installOn(yp_.get());
    problem_.f = &f;
    problem_.recorder = &recorder;
    problem_.events = &events;
    problem_.nq = nq_;
    problem_.nc = nc_;
    problem_.ggl = ggl_;
  }

  /// Everything simulate() sets up, with consistent initial values at `start` (q̈ = qdd, λ).
  /// Throws SetupError.
  void setUp(const ConstrainedSystem& system, const SimulationOptions& options, const State& start,
             ConstVectorRef qdd, ConstVectorRef lambda, Summary& summary) {
    const AdaptiveOptions& adaptive = options.adaptive;
    const Stabilization stabilization = adaptiveLaw(options);
    void* memory = memory_.get();
    if (!memory) throw sd::SetupError("IDACreate failed");
    sd::checkIda(IDASetErrHandlerFn(memory, &sd::routeErrorMessage, &problem_.log), "IDASetErrHandlerFn");
    setY(start, qdd, lambda);
    auto differential = sd::view(id_.get());
    differential.setZero();
    differential.head(2 * nq_).setOnes();
    sd::checkIda(IDAInit(memory, &residual, start.t, yy_.get(), yp_.get()), "IDAInit");
    sd::checkIda(IDASetUserData(memory, &problem_), "IDASetUserData");
    sd::checkIda(IDASetId(memory, id_.get()), "IDASetId");
    // λ (and μ) stay out of the error test in both forms: they follow from the differential
    // unknowns, and with large Baumgarte gains index-1's λ failing the test forced millions of
    // tiny steps (measured: 4.6·10⁶ steps at α = β = 1000, rtol 1e-8; a few hundred without).
    sd::checkIda(IDASetSuppressAlg(memory, SUNTRUE), "IDASetSuppressAlg");
    {
      tolerances_ = sd::makeVector(n_, context_);
      auto atol = sd::view(tolerances_.get());
      atol.setConstant(adaptive.atol);
      if (adaptive.atol_per_component.size() > 0) atol.head(2 * nq_) = adaptive.atol_per_component;
      // GGL's λ and μ are index-2 unknowns: left out of the error test, and weighted loosely in
      // the Newton convergence test, which would otherwise demand digits that the O(1/h²)
      // conditioning of their equations cannot give (IDA_CONV_FAIL from the first step).
      if (ggl_) atol.tail(2 * nc_).setConstant(adaptive.ggl_multiplier_atol);
      sd::checkIda(IDASVtolerances(memory, adaptive.rtol, tolerances_.get()), "IDASVtolerances");
    }
    const NewtonLinearSolver requested = adaptive.linear_solver;
    if (requested == NewtonLinearSolver::Krylov) {
      throw sd::SetupError("ida_* use a direct Newton solver: krylov is for cvode_bdf (choose dense or sparse)");
    }
    const std::string unsupported = IdaSparseNewton::unsupportedReason(system);
    if (requested == NewtonLinearSolver::Sparse && !unsupported.empty()) {
      throw sd::SetupError("the sparse Newton matrix needs what this model lacks: " + unsupported);
    }
    const bool sparse = requested == NewtonLinearSolver::Sparse ||
                        (requested == NewtonLinearSolver::Auto && problem_.f->workspace().sparse &&
                         unsupported.empty());
    if (sparse) {
      newton_ = std::make_unique<IdaSparseNewton>(system, ggl_, stabilization);
      problem_.newton = newton_.get();
      matrix_.reset(SUNSparseMatrix(n_, n_, newton_->nonZeros(), CSC_MAT, context_));
      if (!matrix_) throw sd::SetupError("SUNSparseMatrix allocation failed");
      newton_->copyPattern(SUNSparseMatrix_IndexPointers(matrix_.get()), SUNSparseMatrix_IndexValues(matrix_.get()));
      linear_solver_.reset(SUNLinSol_KLU(yy_.get(), matrix_.get(), context_));
      if (!linear_solver_) throw sd::SetupError("SUNLinSol_KLU allocation failed");
      sd::checkIda(IDASetLinearSolver(memory, linear_solver_.get(), matrix_.get()), "IDASetLinearSolver");
      sd::checkIda(IDASetJacFn(memory, &sparseNewtonMatrix), "IDASetJacFn");
      summary.linear_solver = "sparse";
    } else {
      matrix_.reset(SUNDenseMatrix(n_, n_, context_));
      linear_solver_.reset(SUNLinSol_Dense(yy_.get(), matrix_.get(), context_));
      if (!matrix_ || !linear_solver_) throw sd::SetupError("dense matrix or linear solver allocation failed");
      sd::checkIda(IDASetLinearSolver(memory, linear_solver_.get(), matrix_.get()), "IDASetLinearSolver");
      summary.linear_solver = "dense";
      if (adaptive.newton_matrix == NewtonMatrix::Analytic) {
        const std::string why_not = analyticNewtonUnsupported(stabilization);
        if (why_not.empty()) {
          dense_newton_ = std::make_unique<IdaDenseNewton>(system, ggl_, stabilization, options.controller);
          problem_.dense_newton = dense_newton_.get();
          sd::checkIda(IDASetJacFn(memory, &denseNewtonMatrix), "IDASetJacFn");
        } else {
          summary.notes += "difference-quotient Newton matrix: " + why_not + ". ";
        }
      }
    }
    sd::checkIda(IDASetMaxNumSteps(memory, adaptive.max_steps), "IDASetMaxNumSteps");
    if (adaptive.max_step > 0.0) sd::checkIda(IDASetMaxStep(memory, adaptive.max_step), "IDASetMaxStep");
    // IDA's own first-step estimate collapses to ~1e-14 s when the start is at rest (ẏ = 0 in many
    // components); at such steps GGL's index-2 Newton matrix is too ill-conditioned to converge
    // (IDA_CONV_FAIL at t = 0 for 3–5-link chains at rtol 1e-12). Start GGL at 1e-4 of the output
    // spacing instead unless the user chose.
    const double initial_step = adaptive.initial_step > 0.0 ? adaptive.initial_step : (ggl_ ? 1e-4 * options.dt : 0.0);
    if (initial_step > 0.0) sd::checkIda(IDASetInitStep(memory, initial_step), "IDASetInitStep");
    if (problem_.events->active()) initIdaEvents(memory, *problem_.events, &eventRoots);
    t_last_ = start.t;
  }

  void restart(const State& start, ConstVectorRef qdd, ConstVectorRef lambda, RunRecorder& recorder,
               SundialsEvents& events) override {
    problem_.recorder = &recorder;
    problem_.events = &events;
    problem_.clear();
    setY(start, qdd, lambda);
    sd::checkIda(IDAReInit(memory_.get(), start.t, yy_.get(), yp_.get()), "IDAReInit");
    t_last_ = start.t;
  }

  Eigen::Map<const Vector> q() const override { return {N_VGetArrayPointer(yy_.get()), nq_}; }
  Eigen::Map<const Vector> v() const override { return {N_VGetArrayPointer(yy_.get()) + nq_, nq_}; }

  const Vector* ownLambda(double t, double& rcond, std::string& failure) override {
    const auto y = sd::view(yy_.get());
    std::string terms_failure;
    if (!problem_.f->evaluateConstraintTerms(t, y.head(nq_), y.segment(nq_, nq_), terms_failure)) {
      failure = "model terms failed at the output t = " + formatDouble(t) + " s: " + terms_failure;
      return nullptr;
    }
    lambda_ = y.segment(2 * nq_, nc_);
    rcond = std::nan("");
    return &lambda_;
  }

  void fillStatistics(Summary& summary) const override {
    void* memory = memory_.get();
    summary.kkt_solves = problem_.f->solves();
    summary.rhs_evaluations = problem_.evaluations;
    if (problem_.dense_newton != nullptr) summary.newton_model_evaluations = problem_.dense_newton->evaluations();
    if (problem_.newton != nullptr) summary.newton_model_evaluations = problem_.newton->modelEvaluations();
    if (memory == nullptr) return;
    long value = 0;
    if (IDAGetNumSteps(memory, &value) >= 0) summary.steps = value;
    if (IDAGetNumJacEvals(memory, &value) >= 0) summary.jacobian_evaluations = value;
    if (IDAGetNumLinSolvSetups(memory, &value) >= 0) summary.linear_solver_setups = value;
    if (IDAGetNumErrTestFails(memory, &value) >= 0) summary.error_test_failures = value;
    if (IDAGetNumNonlinSolvConvFails(memory, &value) >= 0) summary.convergence_failures = value;
    sunrealtype last_step = 0.0;
    if (IDAGetLastStep(memory, &last_step) >= 0) summary.last_step = last_step;
  }

 private:
  /// Consistent initial values: y = (q, v, λ, 0), ẏ = (v, q̈, 0, 0).
  void setY(const State& start, ConstVectorRef qdd, ConstVectorRef lambda) {
    auto y0 = sd::view(yy_.get());
    auto yp0 = sd::view(yp_.get());
    y0.setZero();
    yp0.setZero();
    y0.head(nq_) = start.q;
    y0.segment(nq_, nq_) = start.v;
    y0.segment(2 * nq_, nc_) = lambda;
    yp0.head(nq_) = start.v;
    yp0.segment(nq_, nq_) = qdd;
  }
  int setStopTime(double t) override { return IDASetStopTime(memory_.get(), t); }
  int call(double t_out, bool one_step, double& t_reached) override {
    const sd::EmptyClonePool::Lending lending(empty_clones_);
    return IDASolve(memory_.get(), t_out, &t_reached, yy_.get(), yp_.get(), one_step ? IDA_ONE_STEP : IDA_NORMAL);
  }
  int rootReturn() const override { return IDA_ROOT_RETURN; }
  bool rootReturned(long k, double t) override {
    return idaRootReturned(memory_.get(), *problem_.events, k, t, yy_.get());
  }
  bool rootAtOutput(double t_root, double t_out) override { return idaRootAtOutput(memory_.get(), t_root, t_out); }
  double currentTime(double fallback) override {
    sunrealtype t = fallback;
    return IDAGetCurrentTime(memory_.get(), &t) < 0 ? fallback : t;
  }
  double lastStep() override {
    sunrealtype h = 0.0;
    return IDAGetLastStep(memory_.get(), &h) < 0 ? 0.0 : h;
  }
  const char* solverName() const override { return "IDA"; }
  const char* callName() const override { return "IDASolve"; }
  std::string stopTimeCall() const override { return "IDASetStopTime"; }
  std::string flagName(int flag) const override { return sd::idaFlagName(flag); }
  std::string takeErrorLog() override { return problem_.log.last_message; }

  int nq_, nc_;
  bool ggl_;
  int n_;
  IdaProblem problem_;
  Vector lambda_;  ///< IDA's λ copied out of y
  sd::Context context_;
  sd::EmptyClonePool empty_clones_;  // the difference-quotient Newton matrix's column views
  sd::VectorPtr yy_, yp_, id_, tolerances_;
  std::unique_ptr<IdaSparseNewton> newton_;  // outlives the solver that calls it (declared first)
  std::unique_ptr<IdaDenseNewton> dense_newton_;
  sd::MatrixPtr matrix_;
  sd::LinearSolverPtr linear_solver_;
  sd::IdaMemoryPtr memory_;
};

}  // namespace

std::unique_ptr<AdaptiveSolver> makeIdaSolver(const ConstrainedSystem& system, const SimulationOptions& options,
                                              AccelerationFunction& f, const State& start, ConstVectorRef qdd,
                                              ConstVectorRef lambda, RunRecorder& recorder, SundialsEvents& events,
                                              Summary& summary) {
  auto solver = std::make_unique<IdaSolver>(system, options, f, recorder, events);
  try {
    solver->setUp(system, options, start, qdd, lambda, summary);
  } catch (const sd::SetupError& error) {
    throw AdaptiveSetupError(std::string("IDA setup failed: ") + error.what());
  }
  return solver;
}

}  // namespace kktdae::detail
