// The step-at-a-time run: what every integrator shares (construction, reset, copy, λ, the record)
// and the fixed-step integrators' steps. Each fixed step is the fixed-step driver's
// (fixed_step_run.cpp) in the same order of operations: the stepper's step, the grid time, the
// finiteness check, the projection after the step, the settle, the events; so a Simulator advanced
// over simulate()'s grid lands on its bits. The adaptive integrators' calls are in
// simulator_adaptive.cpp.
#include "kktdae/simulate/simulator.hpp"

#include <cmath>
#include <stdexcept>

#include "kktdae/core/checks.hpp"
#include "simulator_machinery.hpp"

namespace kktdae {
Simulator::Simulator(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options,
                     bool record)
    : system_(&system), options_(options), record_(record) {
  detail::requireRunnable(system, initial, options_);
  machinery_ = std::make_unique<Machinery>(system, options_, record);
  reset(initial);
}

Simulator::~Simulator() = default;
Simulator::Simulator(Simulator&&) noexcept = default;
Simulator& Simulator::operator=(Simulator&&) noexcept = default;

void Simulator::reset(const State& state) {
  checkStateSizes(*system_, state.q, state.v);
  requireFinite("state.t", Eigen::Matrix<double, 1, 1>::Constant(state.t));
  requireFinite("state.q", state.q);
  requireFinite("state.v", state.v);
  status_ = RunStatus::Success;
  message_.clear();
  lambda_current_ = false;
  steps_since_reset_ = 0;
  calls_since_reset_ = 0;
  Machinery& m = *machinery_;
  m.counter_base = m.cumulativeCounters();
  m.newRecord(state);
  if (m.f) {
    resetAdaptive(state);
  } else {
    resetFixed(state);
  }
  before_step_ = state_;
  grid_origin_ = state_.t;
  grid_index_ = 0;
  // The step simulate()'s run from here would end on: its runaway rules are due there too.
  run_steps_ = options_.gridSteps(state_.t);
}

void Simulator::resetFixed(const State& state) {
  Machinery& m = *machinery_;
  State start = state;
  std::string failure;
  if (!detail::projectInitialState(*system_, start, options_, m.recorder->summary(), failure)) {
    state_ = state;
    fail(RunStatus::InitFailure, failure);
    throw std::runtime_error("Simulator.reset: " + failure);
  }
  state_ = start;
  // simulate()'s divergence scales (Q, V, E_s, E₀) from the state a run starts at.
  try {
    m.recorder->armDivergence(state_);
  } catch (const std::exception& error) {
    fail(RunStatus::ModelError, "the divergence rules' scales at the reset state (t = " + formatDouble(state_.t) +
                                    " s): " + error.what());
    throw;
  }
  failure = m.solveAt(state_, true);
  if (!failure.empty()) {
    fail(RunStatus::KktFailure, "at the reset state (t = " + formatDouble(state_.t) + " s): " + failure);
    throw std::runtime_error("Simulator.reset: " + message_);
  }
  m.recorder->noteStart(state_.t, m.stepper->terms());
  // The reset state: the recording's first row and the events' first signs.
  if (m.recording) {
    if (recordState() != RunStatus::Success) throw std::runtime_error("Simulator.reset: " + message_);
  } else {
    m.recorder->track(state_.t, m.stepper->terms(), std::nan(""));
  }
  if (m.events->active()) {
    std::string why;
    const Vector* lambda = m.events_take_observed ? lambdaAt(why) : nullptr;
    if (m.events_take_observed && lambda == nullptr) {
      fail(RunStatus::KktFailure, "at the reset state (t = " + formatDouble(state_.t) + " s): " + why);
      throw std::runtime_error("Simulator.reset: " + message_);
    }
    try {
      m.events->runner.start(state_.t, state_.q, state_.v, lambda);
    } catch (const std::exception& error) {
      fail(RunStatus::ModelError, "an event failed at the reset state (t = " + formatDouble(state_.t) +
                                      " s): " + error.what());
      throw std::runtime_error("Simulator.reset: " + message_);
    }
  }
}

Simulator Simulator::copy() const {
  // Made without the initial projection (this state was projected when it was reset to, and
  // stepped since): the twin starts exactly here.
  SimulationOptions unprojected = options_;
  unprojected.project_initial_state = false;
  Simulator twin(*system_, state_, unprojected, record_);
  twin.options_.project_initial_state = options_.project_initial_state;
  // The same grid, so that the twin's next steps land where this one's would.
  twin.grid_origin_ = grid_origin_;
  twin.grid_index_ = grid_index_;
  twin.steps_since_reset_ = steps_since_reset_;
  twin.status_ = status_;
  twin.message_ = message_;
  return twin;
}

RunStatus Simulator::fail(RunStatus status, const std::string& message) {
  status_ = status;
  message_ = message;
  return status;
}

RunStatus Simulator::step() {
  if (status_ != RunStatus::Success) return status_;
  if (machinery_->solver) {
    const RunStatus status = solveAdaptive(nextGridTime(), true, options_.adaptive.stop_at_outputs);
    return status == RunStatus::Success ? recordState() : status;
  }
  const double t_after = grid_origin_ + static_cast<double>(grid_index_ + 1) * options_.dt;
  const RunStatus status = stepBy(options_.dt, t_after);
  if (status != RunStatus::Success) return status;
  ++grid_index_;
  return recordState();
}

RunStatus Simulator::advanceTo(double t) {
  if (!std::isfinite(t)) throwInvalid("t", "must be finite, got " + formatDouble(t));
  if (status_ != RunStatus::Success) return status_;
  const auto before = [&] {
    throwInvalid("t", formatDouble(t) + " s is before the Simulator's time " + formatDouble(state_.t) + " s");
  };
  if (machinery_->solver) {
    if (t < state_.t) before();
    if (t == state_.t) return RunStatus::Success;
    const RunStatus status = solveAdaptive(t, false, options_.adaptive.stop_at_outputs);
    return status == RunStatus::Success ? recordState() : status;
  }
  const double intervals = (t - grid_origin_) / options_.dt;
  // On the grid as simulate()'s end_time counts it: (t − t0)/dt within 1e-9 of a whole number.
  const double nearest = std::round(intervals);
  const bool on_grid = std::abs(intervals - nearest) <= 1e-9 * std::max(1.0, std::abs(nearest));
  const double whole = on_grid ? nearest : std::floor(intervals);
  if (whole < static_cast<double>(grid_index_) || (!on_grid && t < state_.t)) before();
  const long target = static_cast<long>(whole);
  const long steps_before = steps_since_reset_;
  while (grid_index_ < target) {
    const RunStatus status = stepBy(options_.dt, grid_origin_ + static_cast<double>(grid_index_ + 1) * options_.dt);
    if (status != RunStatus::Success) return status;
    ++grid_index_;
  }
  if (!on_grid && t != state_.t) {
    // The shortened step to t, as simulate() ends a run whose end time is off the grid; the grid
    // starts again there.
    const RunStatus status = stepBy(t - state_.t, t);
    if (status != RunStatus::Success) return status;
    grid_origin_ = t;
    grid_index_ = 0;
  }
  return steps_since_reset_ == steps_before ? RunStatus::Success : recordState();
}

RunStatus Simulator::stepBy(double h, double t_after) {
  if (options_.interrupt != nullptr && options_.interrupt->load(std::memory_order_relaxed)) {
    return RunStatus::Interrupted;
  }
  Machinery& m = *machinery_;
  const double t_before = state_.t;
  const long k = steps_since_reset_ + 1;
  m.recorder->beginStep(k);
  const auto where = [&](double t) { return " in step " + std::to_string(k) + " (t = " + formatDouble(t) + " s)"; };
  before_step_.q = state_.q;  // sizes fixed since the reset: no allocation
  before_step_.v = state_.v;
  before_step_.t = t_before;
  // The method's own λ there, should a divergence rule reject the step (a physical λ is solved
  // again at the kept state instead: no copy per step for the default).
  if (!m.physical.solves()) m.lambda_before = m.stepper->lambda();
  const auto restore = [&] {
    state_.q = before_step_.q;
    state_.v = before_step_.v;
    state_.t = t_before;
  };
  lambda_current_ = false;
  try {
    bool finite = true;
    if (m.explicit_stepper != nullptr) {
      double q_inf = 0.0;
      if (!m.explicit_stepper->advance(state_, h, q_inf)) {
        const KktResult& kkt = m.explicit_stepper->result();
        restore();
        return fail(RunStatus::KktFailure, "KKT solve failed (" + std::string(toString(kkt.status)) + ")" +
                                               where(t_before) + ", in an inner stage of the step: " + kkt.message +
                                               detail::describeRows(kkt.offending_rows));
      }
      finite = !std::isnan(q_inf);
    } else {
      const StepReport report = m.stepper->step(state_, h);
      if (!report.ok()) {
        restore();
        return fail(report.newton_failed ? RunStatus::SolverFailure : RunStatus::KktFailure,
                    Machinery::describe(report) + where(t_before));
      }
      finite = !std::isnan(detail::finiteMaxAbs(state_.q, state_.v));
    }
    state_.t = t_after;
    if (!finite) {
      const std::string what = detail::firstNonFinite(state_.q, state_.v);
      restore();
      return fail(RunStatus::NonFiniteState, "non-finite state after" + where(t_after) + ": " + what);
    }
    if (options_.stabilization.project_after_step) {
      const ProjectionReport projection = projectToManifold(*system_, state_, options_.projection, *m.projection_ws);
      if (!projection.converged) {
        restore();
        return fail(RunStatus::ProjectionFailure, "projection after" + where(t_after) + " failed: " + projection.message);
      }
      m.recorder->countProjection(projection);
    }
    const std::string failure = m.solveAt(state_, false);
    if (!failure.empty()) {
      restore();
      return fail(RunStatus::KktFailure, failure + where(t_after) + ", at the state the step reached");
    }
    // simulate()'s divergence rules, in its order: the position rules after every step, the
    // runaway ones every runaway_check_every steps since the reset.
    const KktWorkspace& terms = m.stepper->terms();
    DivergenceVerdict verdict = m.recorder->divergence(state_.q, terms);
    if (verdict == DivergenceVerdict::Plausible && m.recorder->runawayDue(k, run_steps_)) {
      verdict = m.recorder->runaway(state_.t, state_.q, state_.v, terms);
    }
    if (verdict != DivergenceVerdict::Plausible) {
      const std::string message = m.recorder->describeDivergence(state_.t, verdict, state_.q, state_.v, terms);
      restore();
      m.solveAt(state_, false);  // the terms at the state kept (its failure changes nothing now)
      if (!m.physical.solves()) {
        // The method's own λ (generalized-α's, RATTLE's) is its step's: the kept state's is the
        // one saved before the rejected step. A physical λ is solved again at the kept state.
        m.lambda = &m.lambda_before;
        lambda_current_ = true;
      }
      return fail(RunStatus::Diverged, message);
    }
  } catch (...) {
    restore();
    // The stepper's workspace now describes a state that is not the current one: solve again so
    // that the next step starts from the restored state (its own failure is the caller's news).
    try {
      m.solveAt(state_, false);
    } catch (...) {
    }
    throw;
  }
  steps_since_reset_ = k;
  if (!m.events->active()) return RunStatus::Success;
  // The events look at the step as simulate()'s fixed-step driver lets them: with the observed
  // multiplier at the step end where that is a KKT solve there.
  std::string why;
  const Vector* lambda = m.events_take_observed ? lambdaAt(why) : nullptr;
  if (m.events_take_observed && lambda == nullptr) {
    return fail(RunStatus::KktFailure, "after step " + std::to_string(k) + " (t = " + formatDouble(state_.t) +
                                           " s): " + why);
  }
  bool stop = false;
  try {
    stop = m.events->runner.afterStep(k, state_.t, state_.q, state_.v, lambda);
  } catch (const std::exception& error) {
    return fail(RunStatus::ModelError, "an event failed after step " + std::to_string(k) + " (t = " +
                                           formatDouble(state_.t) + " s): " + error.what());
  }
  return stop ? stopAtEvent() : RunStatus::Success;
}

RunStatus Simulator::stopAtEvent() {
  Machinery& m = *machinery_;
  const FiredEvent& at = m.recorder->summary().events.back();
  state_.t = at.time;
  state_.q = at.q;
  state_.v = at.v;
  m.event_lambda = at.lambda;
  m.lambda = &m.event_lambda;
  lambda_current_ = true;
  try {
    // simulate()'s end at a stop event: the event's state observed (recorded), the status and
    // message it finishes with.
    const Summary ended = m.events->runner.finishStopped(*m.recorder);
    return fail(ended.status, ended.message);
  } catch (const std::exception& error) {
    return fail(RunStatus::ModelError, error.what());
  }
}

const Vector* Simulator::lambdaAt(std::string& failure) {
  Machinery& m = *machinery_;
  if (lambda_current_) return m.lambda;
  if (m.stepper) {
    m.lambda = m.physical.at(state_.t, state_.q, state_.v, m.stepper->lambda(), failure);
  } else if (m.physical.solves()) {
    m.lambda = m.physical.solve(state_.t, state_.q, state_.v, failure);
  } else {
    m.lambda = ownAdaptiveLambda(failure);
  }
  lambda_current_ = m.lambda != nullptr;
  return m.lambda;
}

const Vector& Simulator::lambda() {
  std::string failure;
  const Vector* lambda = lambdaAt(failure);
  if (lambda == nullptr) throw std::runtime_error("Simulator.lambda: " + failure);
  return *lambda;
}

RunStatus Simulator::recordState() {
  Machinery& m = *machinery_;
  if (!m.recording) return RunStatus::Success;
  std::string failure;
  const Vector* lambda = lambdaAt(failure);
  if (lambda == nullptr) return fail(RunStatus::KktFailure, "at t = " + formatDouble(state_.t) + " s: " + failure);
  const KktWorkspace* terms = nullptr;
  if (m.stepper) {
    terms = &m.stepper->terms();
  } else if (m.f->evaluateConstraintTerms(state_.t, state_.q, state_.v, failure)) {
    terms = &m.f->workspace();
  } else {
    return fail(RunStatus::KktFailure, "model terms failed at t = " + formatDouble(state_.t) + " s: " + failure);
  }
  m.recorder->observe(state_.t, state_.q, state_.v, *lambda, *terms, std::nan(""));
  return RunStatus::Success;
}

long Simulator::steps() const {
  if (!machinery_->solver) return steps_since_reset_;
  Summary counted;
  machinery_->solver->fillStatistics(counted);
  return counted.steps;
}

const std::vector<FiredEvent>& Simulator::events() const { return machinery_->recorder->summary().events; }

const TrajectoryRecording* Simulator::recording() const {
  return machinery_->recording ? &*machinery_->recording : nullptr;
}

Summary Simulator::summary() const {
  const Machinery& m = *machinery_;
  Summary summary = m.recorder->summary();
  summary.status = status_;
  summary.message = message_;
  summary.t_final = state_.t;
  summary.integrator = options_.integrator;
  summary.linear_solver = m.setup.linear_solver;
  summary.notes = m.setup.notes + summary.notes;
  summary.outputs = m.recording ? m.recording->size() : 0;
  if (m.solver) {
    m.solver->fillStatistics(summary);
  } else {
    summary.steps = steps_since_reset_;
  }
  // The counters that run on across resets, from where they stood at the last one.
  const Summary now = m.cumulativeCounters();
  for (long Summary::*counter : {&Summary::kkt_solves, &Summary::rhs_evaluations, &Summary::newton_iterations,
                                 &Summary::jacobian_evaluations, &Summary::linear_solver_setups,
                                 &Summary::newton_model_evaluations, &Summary::observation_kkt_solves}) {
    if (now.*counter != 0 || m.counter_base.*counter != 0) summary.*counter = now.*counter - m.counter_base.*counter;
  }
  return summary;
}

}  // namespace kktdae
