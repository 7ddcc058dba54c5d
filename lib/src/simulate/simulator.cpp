// The step-at-a-time run. Each step is the fixed-step driver's (fixed_step_run.cpp) in the same
// order of operations: the stepper's step, the grid time, the finiteness check, the projection
// after the step, the settle; so a Simulator advanced over simulate()'s grid lands on its bits.
// What the driver does beside that (recording, events, divergence rules, counters) it leaves out.
#include "kktdae/simulate/simulator.hpp"

#include <cmath>
#include <stdexcept>

#include "kktdae/core/checks.hpp"
#include "kktdae/integrators/fixed_stepper.hpp"
#include "../integrators/explicit_stepper.hpp"
#include "physical_multiplier.hpp"
#include "run_recorder.hpp"

namespace kktdae {

/// The stepper and the workspaces, made once per Simulator.
struct Simulator::Machinery {
  std::unique_ptr<FixedStepper> stepper;
  detail::ExplicitStepper* explicit_stepper = nullptr;  // the inline path simulate() takes, when it is one
  detail::PhysicalMultiplier physical;
  ProjectionWorkspace projection_ws;
  const Vector* lambda = nullptr;

  Machinery(const ConstrainedSystem& system, const SimulationOptions& options)
      : physical(system, options), projection_ws(system, options.kkt) {
    stepper = makeFixedStepper(system, detail::fixedStepperSetup(options));
    explicit_stepper = dynamic_cast<detail::ExplicitStepper*>(stepper.get());
  }

  /// The KKT solve at a new state (reset or settle); the failure's text, or empty.
  std::string solveAt(const State& state, bool first) {
    if (explicit_stepper != nullptr) {
      if (explicit_stepper->solveAt(state)) return {};
      const KktResult& kkt = explicit_stepper->result();
      return "KKT solve failed (" + std::string(toString(kkt.status)) + "): " + kkt.message +
             detail::describeRows(kkt.offending_rows);
    }
    const StepReport report = first ? stepper->reset(state) : stepper->settle(state);
    return describe(report);
  }

  static std::string describe(const StepReport& report) {
    if (report.ok()) return {};
    if (report.newton_failed) return "Newton failed: " + report.message;
    return "KKT solve failed (" + std::string(toString(report.kkt.status)) + "): " + report.kkt.message +
           detail::describeRows(report.kkt.offending_rows);
  }
};

namespace {

void requireSteppable(const SimulationOptions& options) {
  if (isAdaptive(options.integrator)) {
    throwInvalid("integrator", std::string(toString(options.integrator)) +
                                   " is adaptive: the Simulator steps the fixed-step integrators only so far "
                                   "(euler, semi_implicit, rk4, rattle, generalized_alpha, hht); use simulate() for it");
  }
  if (!options.events.empty()) {
    throwInvalid("events", std::to_string(options.events.size()) +
                               " given: the Simulator does not locate events yet; use simulate() for them");
  }
}

}  // namespace

Simulator::Simulator(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options)
    : system_(&system), options_(options) {
  options_.validate();
  requireSteppable(options_);
  checkDimensions(system);
  if (options_.controller && system.nu() == 0) {
    throwInvalid("controller", "given, but " + system.name() + " has no inputs (nu() = 0): it would never be called");
  }
  checkStateSizes(system, initial.q, initial.v);
  machinery_ = std::make_unique<Machinery>(system, options_);
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
  State start = state;
  Summary notes;
  std::string failure;
  if (!detail::projectInitialState(*system_, start, options_, notes, failure)) {
    state_ = state;
    fail(RunStatus::InitFailure, failure);
    throw std::runtime_error("Simulator.reset: " + failure);
  }
  state_ = start;
  before_step_ = start;
  grid_origin_ = start.t;
  grid_index_ = 0;
  steps_since_reset_ = 0;
  status_ = RunStatus::Success;
  message_.clear();
  lambda_current_ = false;
  failure = machinery_->solveAt(state_, true);
  if (!failure.empty()) {
    fail(RunStatus::KktFailure, "at the reset state (t = " + formatDouble(state_.t) + " s): " + failure);
    throw std::runtime_error("Simulator.reset: " + message_);
  }
}

Simulator Simulator::copy() const {
  // Made without the initial projection (this state was projected when it was reset to, and
  // stepped since): the twin starts exactly here.
  SimulationOptions unprojected = options_;
  unprojected.project_initial_state = false;
  Simulator twin(*system_, state_, unprojected);
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
  const double t_after = grid_origin_ + static_cast<double>(grid_index_ + 1) * options_.dt;
  const RunStatus status = stepBy(options_.dt, t_after);
  if (status == RunStatus::Success) ++grid_index_;
  return status;
}

RunStatus Simulator::advanceTo(double t) {
  if (!std::isfinite(t)) throwInvalid("t", "must be finite, got " + formatDouble(t));
  if (status_ != RunStatus::Success) return status_;
  const double intervals = (t - grid_origin_) / options_.dt;
  // On the grid as simulate()'s end_time counts it: (t − t0)/dt within 1e-9 of a whole number.
  const double nearest = std::round(intervals);
  const bool on_grid = std::abs(intervals - nearest) <= 1e-9 * std::max(1.0, std::abs(nearest));
  const double whole = on_grid ? nearest : std::floor(intervals);
  if (whole < static_cast<double>(grid_index_) || (!on_grid && t < state_.t)) {
    throwInvalid("t", formatDouble(t) + " s is before the Simulator's time " + formatDouble(state_.t) + " s");
  }
  const long target = static_cast<long>(whole);
  while (grid_index_ < target) {
    const RunStatus status = step();
    if (status != RunStatus::Success) return status;
  }
  if (on_grid || t == state_.t) return RunStatus::Success;
  // The shortened step to t, as simulate() ends a run whose end time is off the grid; the grid
  // starts again there.
  const RunStatus status = stepBy(t - state_.t, t);
  if (status == RunStatus::Success) {
    grid_origin_ = t;
    grid_index_ = 0;
  }
  return status;
}

RunStatus Simulator::stepBy(double h, double t_after) {
  if (options_.interrupt != nullptr && options_.interrupt->load(std::memory_order_relaxed)) {
    return RunStatus::Interrupted;
  }
  Machinery& m = *machinery_;
  const double t_before = state_.t;
  const long k = steps_since_reset_ + 1;
  const auto where = [&](double t) { return " in step " + std::to_string(k) + " (t = " + formatDouble(t) + " s)"; };
  before_step_.q = state_.q;  // sizes fixed since the reset: no allocation
  before_step_.v = state_.v;
  before_step_.t = t_before;
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
      const ProjectionReport projection = projectToManifold(*system_, state_, options_.projection, m.projection_ws);
      if (!projection.converged) {
        restore();
        return fail(RunStatus::ProjectionFailure, "projection after" + where(t_after) + " failed: " + projection.message);
      }
    }
    const std::string failure = m.solveAt(state_, false);
    if (!failure.empty()) {
      restore();
      return fail(RunStatus::KktFailure, failure + where(t_after) + ", at the state the step reached");
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
  return RunStatus::Success;
}

const Vector& Simulator::lambda() {
  Machinery& m = *machinery_;
  if (!m.physical.solves()) return m.stepper->lambda();
  if (!lambda_current_) {
    std::string failure;
    m.lambda = m.physical.at(state_.t, state_.q, state_.v, m.stepper->lambda(), failure);
    if (m.lambda == nullptr) throw std::runtime_error("Simulator.lambda: " + failure);
    lambda_current_ = true;
  }
  return *m.lambda;
}

}  // namespace kktdae
