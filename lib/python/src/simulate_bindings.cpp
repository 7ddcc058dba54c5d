// kktdae/simulate: options, the run, its Summary and the recording filled inside C++.
#include <pybind11/stl.h>

#include <algorithm>
#include <optional>

#include "arrays.hpp"
#include "binding_helpers.hpp"
#include "bindings.hpp"
#include "field_pickle.hpp"
#include "kktdae/core/checks.hpp"
#include "kktdae/metrics/trajectory_recording.hpp"
#include "kktdae/models/pendulum_chain.hpp"
#include "kktdae/simulate/simulate.hpp"
#include "kktdae/simulate/summary.hpp"
#include "python_errors.hpp"
#include "recording_budget.hpp"
#include "sigint_bridge.hpp"
#include "simulation_result.hpp"
#include "system_trampoline.hpp"

namespace kktdae::python {
namespace {

/// Sets `result` as the attribute `result` of a Python exception about to leave simulate().
void attachResult(py::handle exception, const SimulationResult& result) {
  if (PyObject_SetAttrString(exception.ptr(), "result", py::cast(result).ptr()) != 0) PyErr_Clear();
}

/// What the run leaves to raise in Python, in this order: an exception that must propagate
/// (KeyboardInterrupt, SystemExit, MemoryError raised by Python code during the run), the
/// recording's MemoryError, and a SIGINT that stopped the run (Python's handler raises), the
/// partial result going along as the exception's `result`. Otherwise a MODEL_ERROR run keeps the
/// Python exception that ended it in result.exception.
void raiseWhatTheRunLeft(SimulationResult& result, const PythonErrorScope& errors, const SigintBridge& sigint,
                         const RecordingBudget* budget) {
  if (const py::object& raised = errors.mustRaise()) {
    Summary& summary = result.summary;
    if (PyErr_GivenExceptionMatches(raised.ptr(), PyExc_KeyboardInterrupt) != 0) {
      // Ctrl-C that Python delivered inside the model rather than through the library's flag:
      // the same run, the same status.
      summary.status = RunStatus::Interrupted;
      summary.message = "interrupted by KeyboardInterrupt in step " + std::to_string(summary.failed_step) +
                        " (last good state t = " + formatDouble(summary.t_final) + " s), on request";
    }
    attachResult(raised, result);
    raisePython(raised);
  }
  if (budget != nullptr && !budget->refusal().empty()) {
    PyErr_SetString(PyExc_MemoryError, budget->refusal().c_str());
    py::error_already_set raised;
    attachResult(raised.value(), result);
    throw raised;
  }
  sigint.raiseIfSignalled(py::cast(result));
  if (result.summary.status == RunStatus::ModelError && errors.latest()) result.exception = errors.latest();
}

SimulationResult runSimulation(const ConstrainedSystem& system, const State& initial, SimulationOptions options,
                               const py::object& observer, const py::object& controller, bool record) {
  // Opened first: an exception from the preflight below is this call's, not an enclosing run's.
  PythonErrorScope errors;
  checkStateSizes(system, initial.q, initial.v);
  options.validate();
  requireRunLength(options, "simulate");
  const auto* python_model = dynamic_cast<const PyConstrainedSystem*>(&system);
  if (python_model) python_model->preflight(initial);
  if (!controller.is_none()) {
    options.controller = [controller](double t, ConstVectorRef q, ConstVectorRef v, VectorRef u) {
      py::gil_scoped_acquire gil;
      notingPythonErrors(
          [&] { copyInto(controller(t, toNumpy(q), toNumpy(v)), u, "simulate: controller", "the returned u"); });
    };
  }
  std::optional<TrajectoryRecording> recording;
  std::optional<RecordingBudget> budget;
  if (record) {
    recording.emplace(system, 0);
    budget.emplace(*recording, expectedObservations(options, initial.t));
  }
  const bool python_observer = !observer.is_none();
  const Observer observe = [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) {
    if (recording) {
      budget->makeRoom();
      recording->observe(t, q, v, lambda);
    }
    if (python_observer) {
      py::gil_scoped_acquire gil;
      notingPythonErrors([&] { observer(t, toNumpy(q), toNumpy(v), toNumpy(lambda)); });
    }
  };
  SigintBridge sigint;
  options.interrupt = sigint.flag();
  // A run that calls no Python releases the GIL, so Python threads can run simulations in parallel.
  // Events bound from Python have Python conditions (and a Python event observer): such a run
  // holds the GIL too.
  const bool calls_python = python_model != nullptr || python_observer || !controller.is_none() ||
                            !options.events.empty() || static_cast<bool>(options.event_observer);
  SimulationResult result;
  if (calls_python) {
    result.summary = simulate(system, initial, options, observe);
  } else {
    py::gil_scoped_release release;
    result.summary = simulate(system, initial, options, observe);
  }
  if (recording) result.recording = py::cast(toRecording(*recording, violationMeasure(system)));
  raiseWhatTheRunLeft(result, errors, sigint, budget ? &*budget : nullptr);
  return result;
}

/// Summary's pickle: every field a run fills (tests/python/test_pickling.py checks that the list
/// covers every field Python reads).
void defSummaryPickle(py::class_<Summary>& summary) {
  defFieldTablePickle(
      summary,
      {pickledField("status", &Summary::status), pickledField("message", &Summary::message),
       pickledField("integrator", &Summary::integrator), pickledField("form", &Summary::form),
       pickledField("sparse", &Summary::sparse), pickledField("linear_solver", &Summary::linear_solver),
       pickledField("steps", &Summary::steps), pickledField("outputs", &Summary::outputs),
       pickledField("kkt_solves", &Summary::kkt_solves), pickledField("rhs_evaluations", &Summary::rhs_evaluations),
       pickledField("jacobian_evaluations", &Summary::jacobian_evaluations),
       pickledField("newton_model_evaluations", &Summary::newton_model_evaluations),
       pickledField("newton_iterations", &Summary::newton_iterations),
       pickledField("linear_solver_setups", &Summary::linear_solver_setups),
       pickledField("error_test_failures", &Summary::error_test_failures),
       pickledField("convergence_failures", &Summary::convergence_failures),
       pickledField("last_step", &Summary::last_step), pickledField("projections", &Summary::projections),
       pickledField("projection_iterations", &Summary::projection_iterations),
       pickledField("max_position_correction", &Summary::max_position_correction),
       pickledField("max_velocity_correction", &Summary::max_velocity_correction),
       pickledField("notes", &Summary::notes), pickledField("t_final", &Summary::t_final),
       pickledField("failed_step", &Summary::failed_step), pickledField("wall_seconds", &Summary::wall_seconds),
       pickledField("max_phi_inf", &Summary::max_phi_inf), pickledField("max_phi_dot_inf", &Summary::max_phi_dot_inf),
       pickledField("final_phi_inf", &Summary::final_phi_inf),
       pickledField("final_phi_dot_inf", &Summary::final_phi_dot_inf), pickledField("min_rcond", &Summary::min_rcond),
       pickledField("rank_deficient_solves", &Summary::rank_deficient_solves),
       pickledField("min_constraint_rank", &Summary::min_constraint_rank),
       pickledField("warnings", &Summary::warnings), pickledField("events", &Summary::events),
       pickledField("event_kkt_solves", &Summary::event_kkt_solves),
       pickledField("observation_kkt_solves", &Summary::observation_kkt_solves),
       pickledField("event_evaluations", &Summary::event_evaluations)});
}

void bindSummary(py::module_& m) {
  py::enum_<RunStatus> status(m, "RunStatus", "How a run ended; only SUCCESS is a success.");
  addNamedValues(status, valuesUntilUnknown<RunStatus>());

  py::enum_<WarningKind> warning_kind(m, "WarningKind", "What a run counts as a warning (it goes on).");
  addNamedValues(warning_kind, valuesUntilUnknown<WarningKind>());
  py::class_<RunWarning> run_warning(m, "RunWarning", "One kind of warning of a run: how often, and where it first happened.");
  run_warning.def_readonly("kind", &RunWarning::kind)
      .def_readonly("count", &RunWarning::count)
      .def_readonly("first_step", &RunWarning::first_step)
      .def_readonly("first_time", &RunWarning::first_time, "[s]")
      .def_readonly("first_detail", &RunWarning::first_detail)
      .def("__repr__", [](const RunWarning& w) {
        return "<RunWarning " + std::string(toString(w.kind)) + " x" + std::to_string(w.count) + ", first at step " +
               std::to_string(w.first_step) + ">";
      });
  defFieldTablePickle(run_warning, {pickledField("kind", &RunWarning::kind), pickledField("count", &RunWarning::count),
                                    pickledField("first_step", &RunWarning::first_step),
                                    pickledField("first_time", &RunWarning::first_time),
                                    pickledField("first_detail", &RunWarning::first_detail)});

  py::class_<Summary> summary(m, "Summary", "What a run reports: status, message, counters, violations, wall time.");
  summary.def(py::init<>())
      .def_readonly("status", &Summary::status, "RunStatus")
      .def_readonly("message", &Summary::message, "What happened, where and when, in words.")
      .def_readonly("integrator", &Summary::integrator, "The integrator that ran.")
      .def_readonly("form", &Summary::form, "The KKT form used.")
      .def_readonly("sparse", &Summary::sparse, "The KKT solves took the sparse path.")
      .def_readonly("linear_solver", &Summary::linear_solver, "The Newton linear solver that ran, if any.")
      .def_readonly("steps", &Summary::steps, "Steps completed (fixed, or the adaptive solver's own).")
      .def_readonly("outputs", &Summary::outputs, "States observed, the initial one included.")
      .def_readonly("kkt_solves", &Summary::kkt_solves)
      .def_readonly("rhs_evaluations", &Summary::rhs_evaluations)
      .def_readonly("jacobian_evaluations", &Summary::jacobian_evaluations)
      .def_readonly("newton_model_evaluations", &Summary::newton_model_evaluations,
                    "Model calls spent on assembled (analytic or sparse) Newton matrices.")
      .def_readonly("newton_iterations", &Summary::newton_iterations,
                    "Newton iterations of rattle, generalized_alpha and hht, all steps added up.")
      .def_readonly("linear_solver_setups", &Summary::linear_solver_setups)
      .def_readonly("error_test_failures", &Summary::error_test_failures)
      .def_readonly("convergence_failures", &Summary::convergence_failures)
      .def_readonly("last_step", &Summary::last_step, "The last step size [s].")
      .def_readonly("projections", &Summary::projections)
      .def_readonly("projection_iterations", &Summary::projection_iterations)
      .def_readonly("max_position_correction", &Summary::max_position_correction)
      .def_readonly("max_velocity_correction", &Summary::max_velocity_correction)
      .def_readonly("notes", &Summary::notes, "Fallbacks and initial projections, in words.")
      .def_readonly("t_final", &Summary::t_final, "Time of the last good state [s].")
      .def_readonly("failed_step", &Summary::failed_step, "The step that failed (0: the initial state; −1: none).")
      .def_readonly("wall_seconds", &Summary::wall_seconds)
      .def_readonly("max_phi_inf", &Summary::max_phi_inf, "max ‖φ‖∞ over the run")
      .def_readonly("max_phi_dot_inf", &Summary::max_phi_dot_inf, "max ‖φ̇‖∞ over the run")
      .def_readonly("final_phi_inf", &Summary::final_phi_inf)
      .def_readonly("final_phi_dot_inf", &Summary::final_phi_dot_inf)
      .def_readonly("min_rcond", &Summary::min_rcond, "Worst KKT condition estimate seen.")
      .def_readonly("rank_deficient_solves", &Summary::rank_deficient_solves, "Counted rank-deficiency warnings.")
      .def_readonly("min_constraint_rank", &Summary::min_constraint_rank)
      .def_readonly("warnings", &Summary::warnings, "Counted warnings, one RunWarning per kind that occurred.")
      .def_readonly("events", &Summary::events, "The FiredEvents, in time order (a copy).")
      .def_readonly("event_kkt_solves", &Summary::event_kkt_solves, "KKT solves made for the events' λ.")
      .def_readonly("observation_kkt_solves", &Summary::observation_kkt_solves,
                    "KKT solves made for the physical λ at observed states.")
      .def_readonly("event_evaluations", &Summary::event_evaluations, "Calls of the events' g.")
      .def_property_readonly("stopped_by_event", &Summary::stoppedByEvent, "status == RunStatus.STOPPED_BY_EVENT")
      .def("warning_count", &Summary::warningCount, py::arg("kind"), "How many warnings of `kind` the run counted.")
      .def_property_readonly("ok", &Summary::ok, "status == RunStatus.SUCCESS")
      .def("brief_report", &Summary::briefReport, "One line: status, steps, solves, violations, wall time.")
      .def("__bool__", &Summary::ok, "True when the run succeeded.")
      .def("__repr__", [](const Summary& s) { return "<Summary " + s.briefReport() + ">"; });
  defSummaryPickle(summary);
}

void bindDivergenceOptions(py::module_& m) {
  py::class_<DivergenceOptions> d(m, "DivergenceOptions",
                                  "When a finite state counts as a blow-up (the run then ends as DIVERGED):\n"
                                  "distance from and rate of leaving the manifold, growth of q, and the energy of a\n"
                                  "conservative model, each against the start's scale.");
  defKeywordInit(d);
  d.def_readwrite("enabled", &DivergenceOptions::enabled, "False: only NaN/Inf ends a run.")
      .def_readwrite("manifold_factor", &DivergenceOptions::manifold_factor, "Distance from φ = 0 over Q (> 0).")
      .def_readwrite("state_growth", &DivergenceOptions::state_growth, "‖q‖∞ over Q (> 1).")
      .def_readwrite("min_scale", &DivergenceOptions::min_scale, "Floor of Q, in q's units (> 0).")
      .def_readwrite("max_phi_inf", &DivergenceOptions::max_phi_inf, "Absolute ‖φ‖∞ limit (inf: off).")
      .def_readwrite("velocity_factor", &DivergenceOptions::velocity_factor,
                     "Rate of leaving φ = 0, |φ̇ᵢ|/‖∇φᵢ‖, over the velocity scale V (inf: off).")
      .def_readwrite("min_velocity_scale", &DivergenceOptions::min_velocity_scale, "Floor of V, in q̇'s units (> 0).")
      .def_readwrite("energy_factor", &DivergenceOptions::energy_factor,
                     "|E − E₀| over the energy scale, for conservative models without a controller (inf: off).")
      .def_readwrite("runaway_check_every", &DivergenceOptions::runaway_check_every,
                     "Fixed-step runs test the velocity and energy rules every this many steps and at the last (≥ 1).")
      .def("validate", &DivergenceOptions::validate, "Raises ValueError naming the bad field.");
  defRepr(d, {"enabled", "manifold_factor", "velocity_factor", "energy_factor"});
}

void bindObservedMultiplier(py::module_& m) {
  py::enum_<ObservedMultiplier> choice(m, "ObservedMultiplier",
                                       "Which λ the observer, the recording and the events get: the physical multiplier of\n"
                                       "the observed state (a KKT solve there without stabilization feedback) or the\n"
                                       "integrator's own.");
  addNamedValues(choice, std::vector<ObservedMultiplier>{ObservedMultiplier::Physical, ObservedMultiplier::Method});
  m.def("physical_multiplier_law", &physicalMultiplierLaw, py::arg("stabilization"), py::arg("integrator"),
        "The Stabilization whose KKT solve gives the physical multiplier of a run of `integrator`.");
}

void bindOptions(py::module_& m) {
  py::class_<SimulationOptions> options(m, "SimulationOptions",
                                        "What simulate() runs: integrator, step, length, stabilization, solver options.\n"
                                        "SimulationOptions(integrator='rk4', dt=0.005, steps=4000, ...) sets fields by name.");
  defKeywordInit(options);
  options.def_readwrite("integrator", &SimulationOptions::integrator, "Integrator (or its name).")
      .def_readwrite("dt", &SimulationOptions::dt, "Fixed step [s] > 0, or the adaptive integrators' output spacing.")
      .def_readwrite("steps", &SimulationOptions::steps,
                     "Number of steps (output intervals for adaptive ones), or None; give this or end_time.")
      .def_readwrite("end_time", &SimulationOptions::end_time,
                     "The time the run ends at, instead of steps (None: use steps); off-grid shortens the last step.")
      .def_readwrite("warn_phi_inf", &SimulationOptions::warn_phi_inf,
                     "Count a warning for every state with ‖φ‖∞ above this (inf: none).")
      .def_readwrite("observe_every", &SimulationOptions::observe_every,
                     "Observe (and record) every k-th grid point, plus the first and last states.")
      .def_readwrite("adaptive", &SimulationOptions::adaptive, "AdaptiveOptions of the SUNDIALS integrators.")
      .def_readwrite("rattle", &SimulationOptions::rattle, "RattleOptions of Integrator.RATTLE.")
      .def_readwrite("generalized_alpha", &SimulationOptions::generalized_alpha,
                     "GeneralizedAlphaOptions of Integrator.GENERALIZED_ALPHA and Integrator.HHT.")
      .def_readwrite("projection", &SimulationOptions::projection, "ProjectionOptions of every projection.")
      .def_readwrite("project_initial_state", &SimulationOptions::project_initial_state,
                     "Project the initial state onto the manifold first.")
      .def_readwrite("stabilization", &SimulationOptions::stabilization, "Stabilization of the constraint row.")
      .def_readwrite("kkt", &SimulationOptions::kkt, "KktOptions of the acceleration solve.")
      .def_readwrite("divergence", &SimulationOptions::divergence,
                     "DivergenceOptions: when a finite state counts as a blow-up.")
      .def_readwrite("observed_multiplier", &SimulationOptions::observed_multiplier,
                     "ObservedMultiplier: the physical λ of the observed state (default) or the integrator's own.")
      .def_readwrite("events", &SimulationOptions::events,
                     "Events to locate (a list of Event; assign a new list, the field is a copy).")
      .def("validate", &SimulationOptions::validate, "Raises ValueError naming the bad field and value.");
  bindEventObserver(options);
  defRepr(options, {"integrator", "dt", "steps", "observe_every", "stabilization", "kkt"});
}

}  // namespace

void bindSimulate(py::module_& m) {
  bindSummary(m);
  bindDivergenceOptions(m);
  bindObservedMultiplier(m);
  bindOptions(m);

  py::class_<Recording> recording(m, "Recording",
                        "One row per observed state, filled inside C++ (no Python call per step): t (n,), q (n, nq),\n"
                        "v (n, nq), lam (n, nc), violation = ‖φ‖∞ (n,), energy = T + V (n,).\n"
                        "len(recording) states; recording[i] is the i-th as a RecordedState, recording[a:b:k] a Recording,\n"
                        "and iterating gives the RecordedStates in time order.");
  recording.def_readonly("t", &Recording::t, "Times [s], shape (n,).")
      .def_readonly("q", &Recording::q, "Coordinates, shape (n, nq).")
      .def_readonly("v", &Recording::v, "Velocities, shape (n, nq).")
      .def_readonly("lam", &Recording::lambda, "Multipliers λ, shape (n, nc).")
      .def_readonly("violation", &Recording::violation, "‖φ(q, t)‖∞, shape (n,).")
      .def_readonly("energy", &Recording::energy, "Total energy T + V [J], shape (n,).")
      .def_readonly("violation_measure", &Recording::violation_measure,
                    "What `violation` holds, in words and units: ‖φ(q, t)‖∞ in the units of the model's φ.")
      .def("__len__", [](const Recording& r) { return r.size; })
      .def("__repr__", [](const Recording& r) { return "<Recording of " + std::to_string(r.size) + " states>"; })
      // pickle, copy and deepcopy: the six arrays and the measure's words.
      .def(py::pickle(
          [](const Recording& r) {
            return py::make_tuple(r.t, r.q, r.v, r.lambda, r.violation, r.energy, r.violation_measure);
          },
          [](const py::tuple& saved) {
            if (saved.size() != 7) {
              throw py::value_error("Recording: a pickled recording is (t, q, v, lam, violation, energy, violation_measure)");
            }
            return makeRecording(saved[0], saved[1], saved[2], saved[3], saved[4], saved[5], saved[6].cast<std::string>());
          }));
  recording.def(py::init(&makeRecording), py::kw_only(), py::arg("t"), py::arg("q"), py::arg("v"), py::arg("lam"),
                py::arg("violation"), py::arg("energy"), py::arg("violation_measure") = std::string(),
                "A recording from its arrays (what slicing one makes): t, violation, energy (n,); q, v (n, nq);\n"
                "lam (n, nc). Raises ValueError naming a series whose shape disagrees with t's.");

  py::class_<SimulationResult>(m, "SimulationResult", "What simulate() returns: the Summary and the Recording (or None).")
      .def_readonly("summary", &SimulationResult::summary)
      .def_readonly("recording", &SimulationResult::recording)
      .def_readonly("exception", &SimulationResult::exception,
                    "The Python exception (with its traceback) that ended a MODEL_ERROR run, or None;\n"
                    "raise_on_failure() raises a SimulationError caused by it.")
      .def("__repr__", [](const SimulationResult& r) {
        return "<SimulationResult " + r.summary.briefReport() +
               (r.recording.is_none() ? "" : ", " + std::string(py::repr(r.recording))) + ">";
      })
      // pickle, copy and deepcopy: (summary, recording, exception). The exception pickles as Python
      // pickles exceptions: its type and arguments, without the traceback.
      .def(py::pickle(
          [](const SimulationResult& r) { return py::make_tuple(r.summary, r.recording, r.exception); },
          [](const py::tuple& saved) {
            if (saved.size() != 3) throw py::value_error("SimulationResult: a pickled result is (summary, recording, exception)");
            SimulationResult r;
            r.summary = saved[0].cast<Summary>();
            r.recording = saved[1];
            r.exception = saved[2];
            if (!r.recording.is_none() && !py::isinstance<Recording>(r.recording)) {
              throw py::type_error("SimulationResult: a pickled recording must be a Recording or None");
            }
            return r;
          }));

  m.def("simulate", &runSimulation, py::arg("system"), py::arg("initial"), py::arg("options") = SimulationOptions{},
        py::arg("observer") = py::none(), py::arg("controller") = py::none(), py::arg("record") = true,
        R"doc(Integrates `system` from `initial` with `options` and returns a SimulationResult.

With record=True (the default) the states observed (the first, every options.observe_every-th and the
last) are recorded inside C++ into numpy arrays: result.recording.t, q, v, lam, violation, energy.
observer(t, q, v, lam), if given, is called from C++ at the same states (arrays are copies).
controller(t, q, v) -> u (shape (nu,)) gives the inputs. A run that calls no Python (a shipped model,
no observer, no controller) releases the GIL.

Numerical trouble ends the run with a failed summary.status and message, keeping everything recorded so
far; it never raises for it. Raises ValueError for invalid options or wrong state sizes, and what a Python
model raises at the initial state (simulate() calls each method once there first). An exception raised
by Python code during the run (model, observer, controller, event) ends it as MODEL_ERROR, the exception
in result.exception; KeyboardInterrupt, SystemExit and MemoryError leave simulate() as themselves. Ctrl-C
(SIGINT) stops any run within a step or a right-hand side and raises KeyboardInterrupt here. Each of
these three carries the partial SimulationResult as its attribute `result`. The recording grows as the
run goes; one that would outgrow the memory available raises MemoryError saying what to do instead.)doc");
}

}  // namespace kktdae::python
