#pragma once
/// @file
/// Work–precision comparison of integrators: error at a horizon against the work it cost.

#include <atomic>
#include <string>
#include <limits>
#include <vector>

#include "kktdae/integrators/generalized_alpha_options.hpp"
#include "kktdae/parallel/sweep.hpp"
#include "kktdae/simulate/simulate.hpp"

namespace kktdae {

/// One run of a comparison: an integrator at one setting (dt for fixed-step, rtol for adaptive).
struct WorkPrecisionCase {
  Integrator integrator = Integrator::Rk4;  ///< the integrator of the run
  double dt = 0.01;    ///< fixed-step size [s] (fixed-step integrators)
  double rtol = 1e-6;  ///< relative tolerance (adaptive integrators); atol = atol_ratio · rtol
};

/// What runWorkPrecision() shares between its cases: the horizon, the stabilization, the
/// reference's accuracy, timing and threads.
struct WorkPrecisionOptions {
  double horizon = 2.0;          ///< T [s]; errors are measured at T
  double output_dt = 0.01;       ///< output grid of the adaptive runs [s]; must divide T
  double atol_ratio = 1e-2;      ///< atol = atol_ratio · rtol
  Stabilization stabilization = Stabilization::none();  ///< of the fixed-step cases
  KktOptions kkt;  ///< options of every run's KKT solves
  /// ρ∞ (generalized_alpha), α (hht) and their Newton, for the cases of those two integrators;
  /// the others ignore it. Validated with the rest even when neither is among the cases.
  GeneralizedAlphaOptions generalized_alpha;
  int timing_repeats = 3;        ///< runs per case; the wall time reported is their median
  /// Reference: ida_ggl at this tolerance (atol = atol_ratio · rtol)…
  double reference_rtol = 1e-12;
  /// …cross-checked by RK4 at this dt and dt/2, Richardson-extrapolated (RK4: error ∝ dt⁴).
  double reference_rk4_dt = 2.5e-4;
  /// Threads for the runs: the three reference runs side by side, then one case per task (a
  /// case's timing repeats stay on one thread). Every number but the wall times is the same for
  /// any count; the wall times are measured while the other threads' runs share the cores and
  /// memory bandwidth, hence the serial default: raise it when the work axis is the counters.
  SweepOptions parallel{1};
  /// Forwarded to every run (SimulationOptions::interrupt): once set, each run still to come ends
  /// Interrupted at its first step, and so does a reference run, which then throws as failed.
  const std::atomic<bool>* interrupt = nullptr;
  /// Events to locate in every run, the reference's included (their actions are made Record):
  /// each result's event_time_error compares its located times with the reference's. Empty: none.
  std::vector<Event> events;
  /// Throws std::invalid_argument naming the bad field and value.
  void validate() const;
};

/// One case's run: its setting, its Summary and its error, constraint drift, energy drift and time.
struct WorkPrecisionResult {
  WorkPrecisionCase setting;  ///< the case as given
  Summary summary;            ///< the run's status, message and counters (the work)
  double error = 0.0;            ///< ‖y(T) − y_ref(T)‖∞ over (q, v)
  double max_phi_inf = 0.0;      ///< max ‖φ‖∞ over the run
  double energy_drift = 0.0;     ///< max |E − E0| [J]
  double wall_seconds = 0.0;     ///< median over the repeats (the upper one of an even count)
  /// max |t − t_ref| [s] over the events that fired, the i-th firing of each event against the
  /// reference's i-th; NaN without events, or when the run fired another number of them.
  double event_time_error = std::numeric_limits<double>::quiet_NaN();
};

/// What runWorkPrecision() returns: the reference, how well it was cross-checked, every case.
struct WorkPrecisionReport {
  Vector reference;                      ///< (q, v) at T from ida_ggl
  double reference_cross_check = 0.0;    ///< ‖ida_ggl − Richardson(RK4)‖∞ at T
  double richardson_estimate = 0.0;      ///< ‖RK4(dt/2) − RK4(dt)‖∞/15: RK4(dt/2)'s own error
  Summary reference_summary;             ///< the ida_ggl reference run's
  std::vector<WorkPrecisionResult> results;  ///< one per case, in the order of the cases
};

/// Runs the reference, then each case, from `start` to the horizon, on options.parallel's
/// threads (`system` is read from all of them at once); results are in the order of `cases`. A case that fails keeps its
/// Summary (status, message) and error = NaN. Throws std::invalid_argument for invalid options or
/// when the reference itself fails (nothing can be measured without it).
WorkPrecisionReport runWorkPrecision(const ConstrainedSystem& system, const State& start,
                                     const std::vector<WorkPrecisionCase>& cases,
                                     const WorkPrecisionOptions& options);

}  // namespace kktdae
