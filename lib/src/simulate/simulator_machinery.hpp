#pragma once
// What a Simulator owns besides its state (internal header): the integrator (a fixed stepper or a
// SUNDIALS solver), the multiplier solves, and the run record simulate() keeps too: the
// RunRecorder (summary, violations, the recording's observer), the events. simulator.cpp steps the
// fixed-step integrators, simulator_adaptive.cpp the adaptive ones.

#include <memory>
#include <optional>

#include "kktdae/integrators/fixed_stepper.hpp"
#include "kktdae/metrics/trajectory_recording.hpp"
#include "kktdae/simulate/simulator.hpp"
#include "../integrators/explicit_stepper.hpp"
#include "../sundials/adaptive_solver.hpp"
#include "../sundials/sundials_events.hpp"
#include "physical_multiplier.hpp"
#include "run_recorder.hpp"

namespace kktdae {
namespace detail {

/// The recording behind the StateObserver interface: what simulate()'s recording observer does.
class RecordingObserver final : public StateObserver {
 public:
  explicit RecordingObserver(TrajectoryRecording& recording) : recording_(recording) {}
  void observe(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) override {
    recording_.observe(t, q, v, lambda);
  }

 private:
  TrajectoryRecording& recording_;
};

}  // namespace detail

struct Simulator::Machinery {
  const ConstrainedSystem& system;
  // Its own copy: the events' runner and the recorder refer to it, and a moved Simulator's
  // options_ moves while the Machinery stays where it is.
  const SimulationOptions options;
  detail::PhysicalMultiplier physical;
  const Vector* lambda = nullptr;  // lambda()'s answer while current
  Vector event_lambda;             // λ at a stop event's state

  // Fixed-step integrators.
  std::unique_ptr<FixedStepper> stepper;
  detail::ExplicitStepper* explicit_stepper = nullptr;  // the inline path simulate() takes, when it is one
  std::optional<ProjectionWorkspace> projection_ws;
  bool events_take_observed = false;  // the events use lambda() at step ends (fixed_step_run.cpp)
  Vector lambda_before;  // the stepper's λ before the current step (kept when a divergence rule rejects it)

  // Adaptive integrators.
  std::optional<AccelerationFunction> f;  // the solver's right-hand side or residual
  std::unique_ptr<detail::AdaptiveSolver> solver;
  Vector qdd;
  Vector own_lambda;  // CVODE's own λ, kept apart from f's workspace

  // The run record, made again at every reset.
  std::optional<TrajectoryRecording> recording;
  std::optional<detail::RecordingObserver> recording_observer;
  std::optional<detail::RunRecorder> recorder;
  std::optional<detail::SundialsEvents> events;
  Summary counter_base;  // the cumulative counters at the last reset (summary() subtracts them)
  Summary setup;         // what the SUNDIALS setup chose and noted (linear solver, notes)

  Machinery(const ConstrainedSystem& system_, const SimulationOptions& options_, bool record)
      : system(system_), options(options_), physical(system_, options) {
    if (record) {
      recording.emplace(system, 0);
      recording_observer.emplace(*recording);
    }
    if (isAdaptive(options.integrator)) {
      detail::noteAdaptiveSetup(options, setup.notes);
      f.emplace(system, detail::adaptiveLaw(options), options.kkt, options.controller);
      qdd.resize(system.nq());
    } else {
      stepper = makeFixedStepper(system, detail::fixedStepperSetup(options));
      lambda_before.resize(system.nc());
      explicit_stepper = dynamic_cast<detail::ExplicitStepper*>(stepper.get());
      projection_ws.emplace(system, options.kkt);
      events_take_observed = physical.eventsTakeObserved(stepper->lambdaIsKktSolve());
    }
  }

  /// The fixed stepper's KKT solve at a new state (reset or settle); the failure's text, or empty.
  std::string solveAt(const State& state, bool first) {
    if (explicit_stepper != nullptr) {
      if (explicit_stepper->solveAt(state)) return {};
      const KktResult& kkt = explicit_stepper->result();
      return "KKT solve failed (" + std::string(toString(kkt.status)) + "): " + kkt.message +
             detail::describeRows(kkt.offending_rows);
    }
    return describe(first ? stepper->reset(state) : stepper->settle(state));
  }

  /// A failed step's report in words (empty when it is fine).
  static std::string describe(const StepReport& report) {
    if (report.ok()) return {};
    if (report.newton_failed) return "Newton failed: " + report.message;
    return "KKT solve failed (" + std::string(toString(report.kkt.status)) + "): " + report.kkt.message +
           detail::describeRows(report.kkt.offending_rows);
  }

  /// A new run record at `start`: an empty recording, summary and events.
  void newRecord(const State& start) {
    events.reset();  // it holds the old recorder's summary
    recorder.reset();
    if (recording) {
      recording->times().clear();
      recording->positions().clear();
      recording->velocities().clear();
      recording->multipliers().clear();
      recording->violations().clear();
      recording->energies().clear();
    }
    recorder.emplace(system, options, recording_observer ? &*recording_observer : nullptr, start);
    events.emplace(system, options, physical.eventLaw(), recorder->summary());
    events->own_lambda = !physical.solves();  // IDA's algebraic λ only under ObservedMultiplier::Method
  }

  /// The cumulative counters now (fixed-step: the stepper's; adaptive: the right-hand side's
  /// solves and the assembled Newton matrices' model calls, which SUNDIALS' re-initialization
  /// does not zero).
  Summary cumulativeCounters() const {
    Summary counted;
    counted.observation_kkt_solves = physical.solveCount();
    if (stepper) {
      counted.kkt_solves = stepper->solves();
      counted.rhs_evaluations = stepper->modelEvaluations();
      counted.newton_iterations = stepper->newtonIterations();
      counted.jacobian_evaluations = stepper->jacobianEvaluations();
      counted.linear_solver_setups = stepper->factorizations();
    } else {
      counted.kkt_solves = f->solves();
      if (solver) {
        Summary raw;
        solver->fillStatistics(raw);
        counted.newton_model_evaluations = raw.newton_model_evaluations;
      }
    }
    return counted;
  }
};

}  // namespace kktdae
