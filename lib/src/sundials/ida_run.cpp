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

#include <memory>

#include "../simulate/run_recorder.hpp"
#include "kktdae/core/checks.hpp"
#include "ida_sparse_newton.hpp"
#include "initial_state.hpp"
#include "newton_matrices.hpp"
#include "sundials_events.hpp"
#include "sundials_support.hpp"

namespace kktdae::detail {
namespace {

namespace sd = sundials;

struct IdaProblem {
  AccelerationFunction* f = nullptr;
  int nq = 0, nc = 0;
  bool ggl = false;
  long residual_evaluations = 0;
  KktResult failure;
  double failure_time = 0.0;
  bool model_threw = false;  ///< the failure is an exception from the model or controller
  const RunRecorder* recorder = nullptr;  ///< whose interrupt flag the residual polls
  bool interrupted = false;               ///< the residual found SimulationOptions::interrupt set
  sd::ErrorLog log;
  IdaSparseNewton* newton = nullptr;  ///< the sparse Newton matrix, when KLU solves
  IdaDenseNewton* dense_newton = nullptr;  ///< the analytic dense Newton matrix, when chosen
  SundialsEvents* events = nullptr;   ///< SimulationOptions::events (sundials_events.hpp)
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
  ++p.residual_evaluations;
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

void fillStatistics(void* memory, const IdaProblem& problem, Summary& summary) {
  summary.kkt_solves = problem.f->solves();
  summary.rhs_evaluations = problem.residual_evaluations;
  if (problem.dense_newton != nullptr) summary.newton_model_evaluations = problem.dense_newton->evaluations();
  if (problem.newton != nullptr) summary.newton_model_evaluations = problem.newton->modelEvaluations();
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

}  // namespace

Summary simulateIda(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options,
                    const Observer& observer) {
  const int nq = system.nq(), nc = system.nc();
  const bool ggl = options.integrator == Integrator::IdaGgl;
  const int n = 2 * nq + (ggl ? 2 : 1) * nc;
  const AdaptiveOptions& adaptive = options.adaptive;
  RunRecorder recorder(system, options, observer, initial);
  Summary& summary = recorder.summary();

  // GGL enforces φ = 0 and φ̇ = 0 as residual rows: Baumgarte terms have nothing to act on.
  const Stabilization stabilization = ggl ? Stabilization::none() : options.stabilization;
  if (ggl && options.stabilization.kind != Stabilization::Kind::None) {
    summary.notes = "ida_ggl ignores " + options.stabilization.describe() + ": GGL holds phi and phi_dot itself. ";
  }
  AccelerationFunction f(system, stabilization, options.kkt, options.controller);
  // IDA's own λ is its algebraic variable: the physical multiplier is a KKT solve at the output.
  PhysicalMultiplier physical(system, options);
  recorder.attach(f, [&](Summary& counted) { counted.observation_kkt_solves = physical.solveCount(); });
  IdaProblem problem;
  problem.f = &f;
  problem.nq = nq;
  problem.nc = nc;
  problem.ggl = ggl;
  problem.recorder = &recorder;
  SundialsEvents events(system, options, physical.eventLaw(), summary);
  events.own_lambda = !physical.solves();  // IDA's algebraic λ only under ObservedMultiplier::Method
  problem.events = &events;

  // Consistent initial values: GGL needs the state on the manifold (IDACalcIC cannot find λ, μ,
  // which do not appear in the constraint rows); λ and v̇ then come from the KKT solve.
  State start = initial;
  if (options.stabilization.project_after_step) {
    summary.notes += std::string(toString(options.integrator)) +
                     " does not project after steps (IDA has no projection hook; ida_ggl holds phi itself). ";
  }
  Vector qdd(nq);
  if (auto ended = startAdaptiveRun(system, options, recorder, f, physical, start, qdd, ggl,
                                    std::string(toString(options.integrator)) + ": ")) {
    return *ended;
  }

  sd::Context context;
  sd::EmptyClonePool empty_clones(n, context);  // the difference-quotient Newton matrix's column views
  sd::VectorPtr yy = sd::makeVector(n, context), yp = sd::makeVector(n, context);
  empty_clones.installOn(yy.get());
  empty_clones.installOn(yp.get());
  sd::VectorPtr id = sd::makeVector(n, context), tolerances;
  std::unique_ptr<IdaSparseNewton> newton;  // outlives the solver that calls it (declared first)
  std::unique_ptr<IdaDenseNewton> dense_newton;
  sd::MatrixPtr matrix;
  sd::LinearSolverPtr linear_solver;
  sd::IdaMemoryPtr memory(IDACreate(context));
  try {
    if (!memory) throw sd::SetupError("IDACreate failed");
    sd::checkIda(IDASetErrHandlerFn(memory.get(), &sd::routeErrorMessage, &problem.log), "IDASetErrHandlerFn");
    auto y0 = sd::view(yy.get());
    auto yp0 = sd::view(yp.get());
    y0.setZero();
    yp0.setZero();
    y0.head(nq) = start.q;
    y0.segment(nq, nq) = start.v;
    y0.segment(2 * nq, nc) = f.lambda();
    yp0.head(nq) = start.v;
    yp0.segment(nq, nq) = qdd;
    auto differential = sd::view(id.get());
    differential.setZero();
    differential.head(2 * nq).setOnes();
    sd::checkIda(IDAInit(memory.get(), &residual, start.t, yy.get(), yp.get()), "IDAInit");
    sd::checkIda(IDASetUserData(memory.get(), &problem), "IDASetUserData");
    sd::checkIda(IDASetId(memory.get(), id.get()), "IDASetId");
    // λ (and μ) stay out of the error test in both forms: they follow from the differential
    // unknowns, and with large Baumgarte gains index-1's λ failing the test forced millions of
    // tiny steps (measured: 4.6·10⁶ steps at α = β = 1000, rtol 1e-8; a few hundred without).
    sd::checkIda(IDASetSuppressAlg(memory.get(), SUNTRUE), "IDASetSuppressAlg");
    {
      tolerances = sd::makeVector(n, context);
      auto atol = sd::view(tolerances.get());
      atol.setConstant(adaptive.atol);
      if (adaptive.atol_per_component.size() > 0) atol.head(2 * nq) = adaptive.atol_per_component;
      // GGL's λ and μ are index-2 unknowns: left out of the error test, and weighted loosely in
      // the Newton convergence test, which would otherwise demand digits that the O(1/h²)
      // conditioning of their equations cannot give (IDA_CONV_FAIL from the first step).
      if (ggl) atol.tail(2 * nc).setConstant(adaptive.ggl_multiplier_atol);
      sd::checkIda(IDASVtolerances(memory.get(), adaptive.rtol, tolerances.get()), "IDASVtolerances");
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
                        (requested == NewtonLinearSolver::Auto && f.workspace().sparse && unsupported.empty());
    if (sparse) {
      newton = std::make_unique<IdaSparseNewton>(system, ggl, stabilization);
      problem.newton = newton.get();
      matrix.reset(SUNSparseMatrix(n, n, newton->nonZeros(), CSC_MAT, context));
      if (!matrix) throw sd::SetupError("SUNSparseMatrix allocation failed");
      newton->copyPattern(SUNSparseMatrix_IndexPointers(matrix.get()), SUNSparseMatrix_IndexValues(matrix.get()));
      linear_solver.reset(SUNLinSol_KLU(yy.get(), matrix.get(), context));
      if (!linear_solver) throw sd::SetupError("SUNLinSol_KLU allocation failed");
      sd::checkIda(IDASetLinearSolver(memory.get(), linear_solver.get(), matrix.get()), "IDASetLinearSolver");
      sd::checkIda(IDASetJacFn(memory.get(), &sparseNewtonMatrix), "IDASetJacFn");
      summary.linear_solver = "sparse";
    } else {
      matrix.reset(SUNDenseMatrix(n, n, context));
      linear_solver.reset(SUNLinSol_Dense(yy.get(), matrix.get(), context));
      if (!matrix || !linear_solver) throw sd::SetupError("dense matrix or linear solver allocation failed");
      sd::checkIda(IDASetLinearSolver(memory.get(), linear_solver.get(), matrix.get()), "IDASetLinearSolver");
      summary.linear_solver = "dense";
      if (adaptive.newton_matrix == NewtonMatrix::Analytic) {
        const std::string why_not = analyticNewtonUnsupported(stabilization);
        if (why_not.empty()) {
          dense_newton = std::make_unique<IdaDenseNewton>(system, ggl, stabilization, options.controller);
          problem.dense_newton = dense_newton.get();
          sd::checkIda(IDASetJacFn(memory.get(), &denseNewtonMatrix), "IDASetJacFn");
        } else {
          summary.notes += "difference-quotient Newton matrix: " + why_not + ". ";
        }
      }
    }
    sd::checkIda(IDASetMaxNumSteps(memory.get(), adaptive.max_steps), "IDASetMaxNumSteps");
    if (adaptive.max_step > 0.0) sd::checkIda(IDASetMaxStep(memory.get(), adaptive.max_step), "IDASetMaxStep");
    // IDA's own first-step estimate collapses to ~1e-14 s when the start is at rest (ẏ = 0 in many
    // components); at such steps GGL's index-2 Newton matrix is too ill-conditioned to converge
    // (IDA_CONV_FAIL at t = 0 for 3–5-link chains at rtol 1e-12). Start GGL at 1e-4 of the output
    // spacing instead unless the user chose.
    const double initial_step = adaptive.initial_step > 0.0 ? adaptive.initial_step : (ggl ? 1e-4 * options.dt : 0.0);
    if (initial_step > 0.0) sd::checkIda(IDASetInitStep(memory.get(), initial_step), "IDASetInitStep");
    if (events.active()) initIdaEvents(memory.get(), events, &eventRoots);
  } catch (const sd::SetupError& error) {
    fillStatistics(memory.get(), problem, summary);
    return recorder.finish(RunStatus::SolverFailure, std::string("IDA setup failed: ") + error.what());
  }

  const auto y = sd::view(yy.get());
  const long steps = options.gridSteps(initial.t);
  std::string terms_failure;  // why an output's constraint terms failed, if they did
  try {
  for (long k = 1; k <= steps; ++k) {
    recorder.beginStep(k);
    if (recorder.interruptRequested()) {
      fillStatistics(memory.get(), problem, summary);
      return recorder.finishInterrupted();
    }
    const double t_out = options.gridTime(initial.t, k);
    if (adaptive.stop_at_outputs) {
      const int stop = IDASetStopTime(memory.get(), t_out);
      if (stop < 0) {
        fillStatistics(memory.get(), problem, summary);
        return recorder.finish(RunStatus::SolverFailure, "IDASetStopTime(" + formatDouble(t_out) + ") returned " +
                                                             sd::idaFlagName(stop));
      }
    }
    sunrealtype t_reached = summary.t_final;
    int flag = IDASolve(memory.get(), t_out, &t_reached, yy.get(), yp.get(), IDA_NORMAL);
    while (flag == IDA_ROOT_RETURN) {  // an event inside the interval: fire it, go on to t_out
      if (idaRootReturned(memory.get(), events, k, t_reached, yy.get())) {
        fillStatistics(memory.get(), problem, summary);
        return events.runner.finishStopped(recorder);
      }
      // A root within round-off of t_out is the output (cvode_run.cpp says why).
      if (idaRootAtOutput(memory.get(), t_reached, t_out)) break;
      flag = IDASolve(memory.get(), t_out, &t_reached, yy.get(), yp.get(), IDA_NORMAL);
    }
    if (flag < 0 && problem.interrupted) {
      fillStatistics(memory.get(), problem, summary);
      sunrealtype t_current = t_reached;
      if (IDAGetCurrentTime(memory.get(), &t_current) < 0) t_current = t_reached;
      return recorder.finishInterrupted(t_current);
    }
    if (flag < 0 && !events.failure.empty()) {
      fillStatistics(memory.get(), problem, summary);
      summary.failed_step = k;
      return recorder.finish(RunStatus::ModelError, events.failure + " (IDA's root function, output interval " +
                                                        std::to_string(k) + ")");
    }
    if (flag < 0) {
      const sd::ErrorLog log = problem.log;  // before the statistics calls can add to it
      fillStatistics(memory.get(), problem, summary);
      sunrealtype t_current = t_reached;
      if (IDAGetCurrentTime(memory.get(), &t_current) < 0) t_current = t_reached;
      const std::string message = sd::solverFailureMessage("IDASolve", sd::idaFlagName(flag), t_current,
                                                           summary.last_step, t_out, {problem.failure, problem.failure_time}, log);
      summary.failed_step = k;
      return recorder.finish(problem.model_threw      ? RunStatus::ModelError
                             : problem.failure.ok() ? RunStatus::SolverFailure
                                                    : RunStatus::KktFailure,
                             message);
    }
    const auto q = y.head(nq);
    const auto v = y.segment(nq, nq);
    // φ, J and φ̇ at the output state: what the recorder and the divergence rule read.
    if (!f.evaluateConstraintTerms(t_reached, q, v, terms_failure)) {
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
    if (k % options.observe_every == 0 || k == steps) {
      if (physical.solves() && recorder.hasObserver()) {
        const Vector* lambda = physical.solve(t_reached, q, v, terms_failure);
        if (lambda == nullptr) {
          fillStatistics(memory.get(), problem, summary);
          summary.failed_step = k;
          return recorder.finish(RunStatus::KktFailure, "at the output t = " + formatDouble(t_reached) + " s: " +
                                                            terms_failure);
        }
        recorder.observe(t_reached, q, v, *lambda, f.workspace(), std::nan(""));
      } else {
        recorder.observe(t_reached, q, v, y.segment(2 * nq, nc), f.workspace(), std::nan(""));
      }
    } else {
      recorder.track(t_reached, f.workspace(), std::nan(""));
    }
  }
  } catch (const std::exception& error) {  // from the observer or the output-state terms
    fillStatistics(memory.get(), problem, summary);
    return recorder.abort(error);
  }
  fillStatistics(memory.get(), problem, summary);
  return recorder.finish(RunStatus::Success, "");
}

}  // namespace kktdae::detail
