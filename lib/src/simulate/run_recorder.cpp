#include "run_recorder.hpp"

namespace kktdae::detail {

RunRecorder::RunRecorder(const ConstrainedSystem& system, const SimulationOptions& options, StateObserver* observer,
                         const State& initial)
    : system_(system),
      observer_(observer),
      interrupt_(options.interrupt),
      divergence_options_(options.divergence),
      energy_rule_(!(options.controller && system.nu() > 0)),
      divergence_(options.divergence, initial.q),
      warn_phi_inf_(options.warn_phi_inf),
      policy_(options.kkt.rank_deficiency),
      started_(std::chrono::steady_clock::now()) {
  summary_.integrator = options.integrator;
  summary_.form = options.kkt.form;
  summary_.t_final = initial.t;
}

Summary RunRecorder::finishInterrupted() {
  summary_.failed_step = current_step_;
  return finish(RunStatus::Interrupted, "interrupted before step " + std::to_string(current_step_) +
                                            " (t = " + formatDouble(summary_.t_final) + " s), on request");
}

Summary RunRecorder::finishInterrupted(double t_solver) {
  summary_.failed_step = current_step_;
  return finish(RunStatus::Interrupted, "interrupted in output interval " + std::to_string(current_step_) +
                                            " at t = " + formatDouble(t_solver) + " s (last output t = " +
                                            formatDouble(summary_.t_final) + " s), on request");
}

Summary RunRecorder::finishDiverged(double t, DivergenceVerdict verdict, ConstVectorRef q, ConstVectorRef v,
                                    const KktWorkspace& ws) {
  summary_.failed_step = current_step_;
  return finish(RunStatus::Diverged, describeDivergence(t, verdict, q, v, ws));
}

std::string RunRecorder::describeDivergence(double t, DivergenceVerdict verdict, ConstVectorRef q, ConstVectorRef v,
                                            const KktWorkspace& ws) const {
  std::string why;
  try {
    why = verdict == DivergenceVerdict::EnergyDrift ? divergence_.describeEnergy(system_, t, q, v)
                                                    : divergence_.describe(verdict, q, ws);
  } catch (const std::exception& error) {  // the model's energy threw now, where it did not in the test
    why = divergence_.describe(verdict, q, ws) + " (the model threw describing it: " + error.what() + ")";
  }
  return "diverged at step " + std::to_string(current_step_) + " (t = " + formatDouble(t) + " s): " + why;
}

void RunRecorder::noteStart(double t, const KktWorkspace& ws) {
  if (ws.nc == 0) return;
  // A millionth of the start's own scales: a start "on" the manifold sits at round-off (1e-16
  // relative), a user's assembled one at a solver tolerance; seed 002's launch 1 % off the circle
  // is what this names.
  constexpr double kFraction = 1e-6;
  const auto [distance, row] = DivergenceRule::manifoldDistance(ws);
  const auto [rate, rate_row] = DivergenceRule::manifoldRate(ws);
  const double velocity_scale = divergence_.velocityScale();
  const bool far = distance > kFraction * divergence_.scale();
  const bool leaving = std::isfinite(velocity_scale) && rate > kFraction * velocity_scale;
  if (!far && !leaving) return;
  countWarning(WarningKind::OffManifoldStart, t, [&, distance = distance, row = row, rate = rate,
                                                  rate_row = rate_row] {
    std::string text = "the start is off the constraint manifold: ";
    if (far) text += "distance |phi_i|/|grad phi_i| = " + formatDouble(distance) + " (row " + std::to_string(row) + ")";
    if (far && leaving) text += ", ";
    if (leaving) {
      text += "rate of leaving |phidot_i|/|grad phi_i| = " + formatDouble(rate) + " (row " + std::to_string(rate_row) + ")";
    }
    return text + "; violations are measured from there (project_initial_state = true starts on it)";
  });
}

void RunRecorder::countViolationWarning(double t) {
  countWarning(WarningKind::ViolationAboveThreshold, t, [&] {
    return "|phi|_inf = " + formatDouble(summary_.final_phi_inf) + " > warn_phi_inf " + formatDouble(warn_phi_inf_);
  });
}

void RunRecorder::countProjection(const ProjectionReport& report) {
  ++summary_.projections;
  summary_.projection_iterations += report.iterations;
  summary_.max_position_correction = std::max(summary_.max_position_correction, report.position_correction);
  summary_.max_velocity_correction = std::max(summary_.max_velocity_correction, report.velocity_correction);
  if (report.roundoff_limited) {
    countWarning(WarningKind::ProjectionStalled, summary_.t_final, [&] {
      return "projection stopped at the round-off floor: |phi|_inf = " + formatDouble(report.phi_after);
    });
  }
}

Summary RunRecorder::finish(RunStatus status, std::string message) {
  summary_.status = status;
  summary_.message = std::move(message);
  if (acceleration_ != nullptr) {
    summary_.kkt_solves = acceleration_->solves();
    if (fill_counters_) fill_counters_(summary_);
    noteRankDeficiency(acceleration_->rankDeficiency());
  }
  std::stable_sort(summary_.warnings.begin(), summary_.warnings.end(),
                   [](const RunWarning& a, const RunWarning& b) { return a.first_time < b.first_time; });
  summary_.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  spdlog::debug("simulate {}: {}", system_.name(), summary_.briefReport());
  return summary_;
}

Summary RunRecorder::abort(const std::exception& error) {
  const char* who = in_observer_ ? "the observer" : "the model or its controller";
  in_observer_ = false;
  summary_.failed_step = current_step_;
  const std::string where = current_step_ == 0 ? std::string("at the initial state")
                                                : "in step " + std::to_string(current_step_);
  return finish(RunStatus::ModelError, std::string(who) + " threw " + where + " (last good state t = " +
                                           formatDouble(summary_.t_final) + " s): " + error.what());
}

std::string describeRows(const std::vector<int>& rows) {
  if (rows.empty()) return "";
  std::string text = "; offending constraint rows [";
  for (std::size_t i = 0; i < rows.size(); ++i) text += (i ? ", " : "") + std::to_string(rows[i]);
  return text + "]";
}

void RunRecorder::noteRankDeficiency(const RankDeficiencyLog& log) {
  summary_.rank_deficient_solves = log.solves;
  summary_.min_constraint_rank = log.min_rank;
  if (log.solves == 0) return;
  std::string note = "rank-deficient KKT (" + std::string(toString(policy_)) + "): " + std::to_string(log.solves) +
                     " of " + std::to_string(acceleration_->solves()) + " solves; first at t = " +
                     formatDouble(log.first_time) + " s (rcond " + formatDouble(log.first_rcond);
  if (log.min_rank >= 0) note += ", lowest rank " + std::to_string(log.min_rank) + " of " + std::to_string(system_.nc());
  note += ")";
  if (!log.first_dependent_rows.empty()) {
    note += ", dependent rows [";
    for (std::size_t i = 0; i < log.first_dependent_rows.size(); ++i) {
      note += (i ? ", " : "") + std::to_string(log.first_dependent_rows[i]);
    }
    note += "]";
  }
  summary_.notes += note + ". ";
  const long first_step = rank_deficient_first_step_ >= 0 ? rank_deficient_first_step_ : current_step_;
  for (RunWarning& warning : summary_.warnings) {
    if (warning.kind == WarningKind::RankDeficientSolve) {
      warning.count = log.solves;  // finish() may run once per summary only, but stay idempotent
      return;
    }
  }
  summary_.warnings.push_back({WarningKind::RankDeficientSolve, log.solves, first_step, log.first_time, note});
}

std::string firstNonFinite(ConstVectorRef q, ConstVectorRef v) {
  for (Eigen::Index i = 0; i < q.size(); ++i) {
    if (!std::isfinite(q[i])) return "q[" + std::to_string(i) + "] = " + formatDouble(q[i]);
  }
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) return "v[" + std::to_string(i) + "] = " + formatDouble(v[i]);
  }
  return "";
}

bool projectInitialState(const ConstrainedSystem& system, State& state, const SimulationOptions& options,
                         Summary& summary, std::string& failure, bool force) {
  if (!options.project_initial_state && !force) return true;
  ProjectionWorkspace projection_ws(system, options.kkt);
  const ProjectionReport report = projectToManifold(system, state, options.projection, projection_ws);
  if (!report.converged) {
    failure = "initial state cannot be made consistent: " + report.message;
    return false;
  }
  summary.notes += "initial projection: " + std::to_string(report.iterations) + " iterations, |dq| " +
                   formatDouble(report.position_correction) + ", |dv| " + formatDouble(report.velocity_correction) +
                   " (|phi| " + formatDouble(report.phi_before) + " -> " + formatDouble(report.phi_after) + "). ";
  spdlog::debug("{}: initial projection moved q by {} and v by {} in {} iterations", system.name(),
                report.position_correction, report.velocity_correction, report.iterations);
  return true;
}

}  // namespace kktdae::detail
