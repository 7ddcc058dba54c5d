// The adaptive drivers' overhead: seed 002's problem (a unit point mass on the unit circle,
// Baumgarte α = 5, β = 10, from (1.01, 0) at rest, outputs every 0.005 s to 5 s, rtol 1e-6,
// atol 1e-9) integrated by CVODE BDF (dense Newton, difference-quotient Jacobian), CVODE Adams
// (fixed-point iteration) and IDA on the index-1 DAE twice: through the library (simulate()
// with CircleMass, block form as seed 002 solves it) and by a bare SUNDIALS loop with nothing
// of the library — a hand-written right-hand side (the block solve in closed form: M = I, one
// constraint) or residual (ida_index1's, with its Newton matrix G = ∂F/∂y + c ∂F/∂ẏ written
// out, as the library's default analytic matrix) and the same solver settings (tolerances, max
// steps, output grid, CV_NORMAL / IDA_NORMAL returns at each output; for IDA also the
// differential/algebraic split, λ out of the error test, consistent y and ẏ at the start). The
// counters give the steps and right-hand-side or residual evaluations of each, for the cost
// per step and per evaluation in the report.
// Names: adaptive/<bare|library>/<cvode_bdf|cvode_adams|ida_index1>/N:1.
#include <cvodes/cvodes.h>
#include <idas/idas.h>
#include <idas/idas_ls.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include <string>

#include "bench_setup.hpp"

namespace kktdae::bench {
namespace {

constexpr double kAlpha = 5.0, kBeta = 10.0, kGravity = 9.81;
constexpr double kRtol = 1e-6, kAtol = 1e-9, kOutputDt = 0.005;
constexpr long kOutputs = 1000;  // 5 s

/// y = (x, y, vx, vy); y' = (v, q̈) with q̈ = −h + Jᵀλ, λ = (c + J h) / (J Jᵀ), J = 2(x, y),
/// h = (0, g), c = −(J̇v + 2α J v + β² φ), φ = x² + y² − 1: seed 002's block solve for m = 1.
int bareRightHandSide(sunrealtype, N_Vector y, N_Vector ydot, void*) {
  const double* s = N_VGetArrayPointer(y);
  double* d = N_VGetArrayPointer(ydot);
  const double x = s[0], yp = s[1], vx = s[2], vy = s[3];
  const double jx = 2.0 * x, jy = 2.0 * yp;
  const double phi = x * x + yp * yp - 1.0;
  const double c = -((2.0 * vx * vx + 2.0 * vy * vy) + 2.0 * kAlpha * (jx * vx + jy * vy) + kBeta * kBeta * phi);
  const double lambda = (c + jy * kGravity) / (jx * jx + jy * jy);
  d[0] = vx;
  d[1] = vy;
  d[2] = jx * lambda;
  d[3] = -kGravity + jy * lambda;
  return 0;
}

/// One bare run; returns false on a CVODE failure. steps / rhs: CVODE's counters, rhs counting
/// every call of the right-hand side (the Jacobian's difference quotients too, as the library's
/// Summary::rhs_evaluations does).
bool bareRun(bool bdf, long& steps, long& rhs) {
  SUNContext context = nullptr;
  if (SUNContext_Create(nullptr, &context) != 0) return false;
  N_Vector y = N_VNew_Serial(4, context);
  double* s = N_VGetArrayPointer(y);
  s[0] = 1.01, s[1] = 0.0, s[2] = 0.0, s[3] = 0.0;
  void* memory = CVodeCreate(bdf ? CV_BDF : CV_ADAMS, context);
  SUNMatrix matrix = nullptr;
  SUNLinearSolver linear = nullptr;
  SUNNonlinearSolver nonlinear = nullptr;
  bool ok = CVodeInit(memory, &bareRightHandSide, 0.0, y) == CV_SUCCESS &&
            CVodeSStolerances(memory, kRtol, kAtol) == CV_SUCCESS;
  if (ok && bdf) {
    matrix = SUNDenseMatrix(4, 4, context);
    linear = SUNLinSol_Dense(y, matrix, context);
    ok = CVodeSetLinearSolver(memory, linear, matrix) == CV_SUCCESS;
  } else if (ok) {
    nonlinear = SUNNonlinSol_FixedPoint(y, 0, context);
    ok = CVodeSetNonlinearSolver(memory, nonlinear) == CV_SUCCESS;
  }
  ok = ok && CVodeSetMaxNumSteps(memory, 100000) == CV_SUCCESS;
  double t = 0.0, sink = 0.0;
  for (long k = 1; ok && k <= kOutputs; ++k) {
    ok = CVode(memory, static_cast<double>(k) * kOutputDt, y, &t, CV_NORMAL) >= 0;
    sink += s[0];
  }
  benchmark::DoNotOptimize(sink);
  long value = 0;
  CVodeGetNumSteps(memory, &value);
  steps = value;
  CVodeGetNumRhsEvals(memory, &value);
  rhs = value;
  if (bdf && CVodeGetNumLinRhsEvals(memory, &value) == CV_SUCCESS) rhs += value;  // the difference-quotient Jacobian's
  CVodeFree(&memory);
  if (nonlinear) SUNNonlinSolFree(nonlinear);
  if (linear) SUNLinSolFree(linear);
  if (matrix) SUNMatDestroy(matrix);
  N_VDestroy(y);
  SUNContext_Free(&context);
  return ok;
}

/// ida_index1's residual for m = 1, y = (x, y, vx, vy, λ):
/// F = (ẋ − vx, ẏ − vy, v̇x − 2xλ, v̇y + g − 2yλ, J v̇ + J̇v + 2α J v + β² φ).
int bareResidual(sunrealtype, N_Vector yy, N_Vector yp, N_Vector rr, void* calls) {
  ++*static_cast<long*>(calls);  // every call, as the library's Summary::rhs_evaluations
  const double* s = N_VGetArrayPointer(yy);
  const double* d = N_VGetArrayPointer(yp);
  double* r = N_VGetArrayPointer(rr);
  const double x = s[0], py = s[1], vx = s[2], vy = s[3], lambda = s[4];
  const double jx = 2.0 * x, jy = 2.0 * py;
  const double phi = x * x + py * py - 1.0;
  r[0] = d[0] - vx;
  r[1] = d[1] - vy;
  r[2] = d[2] - jx * lambda;
  r[3] = d[3] + kGravity - jy * lambda;
  r[4] = jx * d[2] + jy * d[3] + (2.0 * vx * vx + 2.0 * vy * vy) + 2.0 * kAlpha * (jx * vx + jy * vy) +
         kBeta * kBeta * phi;
  return 0;
}

/// G = ∂F/∂y + c ∂F/∂ẏ of bareResidual (column-major 5×5, zeroed by IDA before the call).
int bareNewtonMatrix(sunrealtype, sunrealtype c, N_Vector yy, N_Vector yp, N_Vector, SUNMatrix G, void*, N_Vector,
                     N_Vector, N_Vector) {
  const double* s = N_VGetArrayPointer(yy);
  const double* d = N_VGetArrayPointer(yp);
  const double x = s[0], py = s[1], vx = s[2], vy = s[3], lambda = s[4];
  const double b2 = kBeta * kBeta;
  auto at = [G](int row, int column) -> double& { return SM_ELEMENT_D(G, row, column); };
  at(0, 0) = c, at(0, 2) = -1.0;
  at(1, 1) = c, at(1, 3) = -1.0;
  at(2, 0) = -2.0 * lambda, at(2, 2) = c, at(2, 4) = -2.0 * x;
  at(3, 1) = -2.0 * lambda, at(3, 3) = c, at(3, 4) = -2.0 * py;
  at(4, 0) = 2.0 * d[2] + 4.0 * kAlpha * vx + 2.0 * b2 * x;
  at(4, 1) = 2.0 * d[3] + 4.0 * kAlpha * vy + 2.0 * b2 * py;
  at(4, 2) = 4.0 * vx + 4.0 * kAlpha * x + c * 2.0 * x;
  at(4, 3) = 4.0 * vy + 4.0 * kAlpha * py + c * 2.0 * py;
  return 0;
}

/// One bare IDA run from the consistent start (λ and v̇ from the closed-form block solve);
/// returns false on an IDA failure. residuals counts every call of the residual.
bool bareIdaRun(long& steps, long& residuals) {
  residuals = 0;
  SUNContext context = nullptr;
  if (SUNContext_Create(nullptr, &context) != 0) return false;
  N_Vector yy = N_VNew_Serial(5, context), yp = N_VNew_Serial(5, context);
  N_Vector id = N_VNew_Serial(5, context), atol = N_VNew_Serial(5, context);
  N_VConst(0.0, yy);
  N_VConst(0.0, yp);  // λ̇ = 0 at the start, as the library's ẏ
  double* y = N_VGetArrayPointer(yy);
  double* y_dot = N_VGetArrayPointer(yp);
  y[0] = 1.01, y[1] = 0.0, y[2] = 0.0, y[3] = 0.0;
  double derivative[4];
  bareRightHandSide(0.0, yy, yp, nullptr);  // yp's first four entries: (v, q̈) at the start
  for (int i = 0; i < 4; ++i) derivative[i] = y_dot[i];
  const double jx = 2.0 * y[0];
  y[4] = derivative[2] / jx;  // q̈x = 2x λ at y = 0
  N_VConst(1.0, id);
  N_VGetArrayPointer(id)[4] = 0.0;
  N_VConst(kAtol, atol);
  void* memory = IDACreate(context);
  SUNMatrix matrix = SUNDenseMatrix(5, 5, context);
  SUNLinearSolver linear = SUNLinSol_Dense(yy, matrix, context);
  bool ok = IDAInit(memory, &bareResidual, 0.0, yy, yp) == IDA_SUCCESS &&
            IDASetUserData(memory, &residuals) == IDA_SUCCESS && IDASetId(memory, id) == IDA_SUCCESS && IDASetSuppressAlg(memory, SUNTRUE) == IDA_SUCCESS &&
            IDASVtolerances(memory, kRtol, atol) == IDA_SUCCESS &&
            IDASetLinearSolver(memory, linear, matrix) == IDA_SUCCESS &&
            IDASetJacFn(memory, &bareNewtonMatrix) == IDA_SUCCESS && IDASetMaxNumSteps(memory, 100000) == IDA_SUCCESS;
  double t = 0.0, sink = 0.0;
  for (long k = 1; ok && k <= kOutputs; ++k) {
    ok = IDASolve(memory, static_cast<double>(k) * kOutputDt, &t, yy, yp, IDA_NORMAL) >= 0;
    sink += y[0];
  }
  benchmark::DoNotOptimize(sink);
  long value = 0;
  IDAGetNumSteps(memory, &value);
  steps = value;
  IDAFree(&memory);
  SUNLinSolFree(linear);
  SUNMatDestroy(matrix);
  N_VDestroy(atol);
  N_VDestroy(id);
  N_VDestroy(yp);
  N_VDestroy(yy);
  SUNContext_Free(&context);
  return ok;
}

void setCounters(benchmark::State& state, long steps, long rhs) {
  state.counters["steps"] = static_cast<double>(steps);
  state.counters["rhs_evaluations"] = static_cast<double>(rhs);
}

void timeBare(benchmark::State& state, bool bdf) {
  long steps = 0, rhs = 0;
  for (auto _ : state) {
    if (!bareRun(bdf, steps, rhs)) {
      state.SkipWithError("the bare CVODE loop failed");
      break;
    }
  }
  setCounters(state, steps, rhs);
}

void timeBareIda(benchmark::State& state) {
  long steps = 0, residuals = 0;
  for (auto _ : state) {
    if (!bareIdaRun(steps, residuals)) {
      state.SkipWithError("the bare IDA loop failed");
      break;
    }
  }
  setCounters(state, steps, residuals);
}

void timeLibrary(benchmark::State& state, Integrator integrator) {
  const CircleMass circle;
  const State start = circle.initialState();
  SimulationOptions options;
  options.integrator = integrator;
  options.dt = kOutputDt;
  options.steps = kOutputs;
  options.stabilization = Stabilization::baumgarte(kAlpha, kBeta);
  options.kkt.form = KktForm::Block;
  options.adaptive.rtol = kRtol;
  options.adaptive.atol = kAtol;
  Summary summary;
  for (auto _ : state) {
    summary = simulate(circle, start, options);
    if (!summary.ok()) {
      state.SkipWithError(summary.message.c_str());
      break;
    }
  }
  setCounters(state, summary.steps, summary.rhs_evaluations);
}

}  // namespace

void registerAdaptiveOverheadBenchmarks() {
  for (const bool bdf : {true, false}) {
    const std::string name = bdf ? "cvode_bdf" : "cvode_adams";
    registerOverSizes("adaptive/bare/" + name, [bdf](benchmark::State& state, int) { timeBare(state, bdf); }, {1});
    const Integrator integrator = bdf ? Integrator::CvodeBdf : Integrator::CvodeAdams;
    registerOverSizes("adaptive/library/" + name,
                      [integrator](benchmark::State& state, int) { timeLibrary(state, integrator); }, {1});
  }
  registerOverSizes("adaptive/bare/ida_index1", [](benchmark::State& state, int) { timeBareIda(state); }, {1});
  registerOverSizes("adaptive/library/ida_index1",
                    [](benchmark::State& state, int) { timeLibrary(state, Integrator::IdaIndex1); }, {1});
}

}  // namespace kktdae::bench
