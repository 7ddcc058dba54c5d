#pragma once
// What every integration driver shares: the Summary being filled, the observer, the violation
// maxima and the wall clock (internal header).

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "kktdae/simulate/simulate.hpp"

namespace kktdae::detail {

class RunRecorder {
 public:
  RunRecorder(const ConstrainedSystem& system, const SimulationOptions& options, const Observer& observer,
              double t0)
      : system_(system), observer_(observer), started_(std::chrono::steady_clock::now()) {
    summary_.integrator = options.integrator;
    summary_.form = options.kkt.form;
    policy_ = options.kkt.rank_deficiency;
    summary_.t_final = t0;
  }

  /// Records the constraint violation held in `ws` (the terms of the state at time t) and hands
  /// the state to the observer.
  void observe(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda, const KktWorkspace& ws,
               double rcond) {
    summary_.final_phi_inf = ws.nc > 0 ? ws.phi.lpNorm<Eigen::Infinity>() : 0.0;
    summary_.final_phi_dot_inf = ws.nc > 0 ? ws.phi_dot.lpNorm<Eigen::Infinity>() : 0.0;
    summary_.max_phi_inf = std::max(summary_.max_phi_inf, summary_.final_phi_inf);
    summary_.max_phi_dot_inf = std::max(summary_.max_phi_dot_inf, summary_.final_phi_dot_inf);
    if (!std::isnan(rcond)) summary_.min_rcond = std::min(summary_.min_rcond, rcond);
    summary_.t_final = t;
    ++summary_.outputs;
    if (observer_) observer_(t, q, v, lambda);
  }

  /// As observe(), but only tracks the violation (a step whose state is not handed out).
  void track(double t, const KktWorkspace& ws, double rcond) {
    summary_.final_phi_inf = ws.nc > 0 ? ws.phi.lpNorm<Eigen::Infinity>() : 0.0;
    summary_.final_phi_dot_inf = ws.nc > 0 ? ws.phi_dot.lpNorm<Eigen::Infinity>() : 0.0;
    summary_.max_phi_inf = std::max(summary_.max_phi_inf, summary_.final_phi_inf);
    summary_.max_phi_dot_inf = std::max(summary_.max_phi_dot_inf, summary_.final_phi_dot_inf);
    if (!std::isnan(rcond)) summary_.min_rcond = std::min(summary_.min_rcond, rcond);
    summary_.t_final = t;
  }

  Summary& summary() { return summary_; }

  /// The run's right-hand side: finish() copies its rank-deficiency log into the summary.
  void attach(const AccelerationFunction& f) {
    acceleration_ = &f;
    summary_.sparse = f.workspace().sparse;
  }

  /// Adds one post-step projection to the counters.
  void countProjection(const ProjectionReport& report) {
    ++summary_.projections;
    summary_.projection_iterations += report.iterations;
    summary_.max_position_correction = std::max(summary_.max_position_correction, report.position_correction);
    summary_.max_velocity_correction = std::max(summary_.max_velocity_correction, report.velocity_correction);
  }

  /// Sets status, message, wall time; logs at debug; returns the finished Summary.
  Summary finish(RunStatus status, std::string message) {
    summary_.status = status;
    summary_.message = std::move(message);
    if (acceleration_ != nullptr) noteRankDeficiency(acceleration_->rankDeficiency());
    summary_.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    spdlog::debug("simulate {}: {}", system_.name(), summary_.briefReport());
    return summary_;
  }

 private:
  void noteRankDeficiency(const RankDeficiencyLog& log);

  const ConstrainedSystem& system_;
  const Observer& observer_;
  const AccelerationFunction* acceleration_ = nullptr;
  RankDeficiencyPolicy policy_ = RankDeficiencyPolicy::Fail;
  std::chrono::steady_clock::time_point started_;
  Summary summary_;
};

/// "; offending constraint rows [1, 2]" or "".
std::string describeRows(const std::vector<int>& rows);

/// The first non-finite entry of (q, v) as "q[3] = nan", or "".
std::string firstNonFinite(ConstVectorRef q, ConstVectorRef v);

/// Projects `state` when options.project_initial_state asks for it (or `force`), noting the move in
/// the summary's notes; returns false (and the failure message) if the projection failed.
bool projectInitialState(const ConstrainedSystem& system, State& state, const SimulationOptions& options,
                         Summary& summary, std::string& failure, bool force = false);

/// The drivers, one per family (simulate() dispatches).
Summary simulateFixedStep(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options,
                          const Observer& observer);
Summary simulateCvode(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options,
                      const Observer& observer);
Summary simulateIda(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options,
                    const Observer& observer);

}  // namespace kktdae::detail
