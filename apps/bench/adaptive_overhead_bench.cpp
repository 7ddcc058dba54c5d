// The adaptive drivers' overhead: seed 002's problem (a unit point mass on the unit circle,
// Baumgarte α = 5, β = 10, from (1.01, 0) at rest, outputs every 0.005 s to 5 s, rtol 1e-6,
// atol 1e-9) integrated by CVODE BDF (dense Newton, difference-quotient Jacobian) and Adams
// (fixed-point iteration) twice: through the library (simulate() with CircleMass, block form as
// seed 002 solves it) and by a bare CVODE loop with nothing of the library — a hand-written
// right-hand side (the block solve in closed form: M = I, one constraint) and the same solver
// settings (tolerances, max steps, output grid, CV_NORMAL returns at each output). The counters
// give the steps and right-hand-side evaluations of each, for the cost per step and per
// evaluation in the report. Names: adaptive/<bare|library>/<cvode_bdf|cvode_adams>/N:1.
#include <cvode/cvode.h>
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
}

}  // namespace kktdae::bench
