// kktdae/simulate/simulator.hpp: the step-at-a-time run.
#include <pybind11/stl.h>

#include <optional>

#include "arrays.hpp"
#include "bindings.hpp"
#include "kktdae/core/checks.hpp"
#include "kktdae/simulate/simulator.hpp"
#include "python_errors.hpp"
#include "sigint_bridge.hpp"
#include "system_trampoline.hpp"

namespace kktdae::python {
namespace {

/// A step or advance_to: a Python exception from the model, the controller or an event is raised
/// as itself (in a fixed step the state restored to before the step); numerical trouble is the
/// returned status.
template <typename Call>
RunStatus stepping(Call&& call) {
  PythonErrorScope errors;
  const RunStatus status = call();
  if (const py::object& raised = errors.mustRaise()) raisePython(raised);
  if (status != RunStatus::Success && status != RunStatus::Interrupted && status != RunStatus::StoppedByEvent &&
      errors.latest()) {
    raisePython(errors.latest());
  }
  return status;
}

/// advance_to, which can be long (one CVODE interval, or many fixed steps): Ctrl-C stops it
/// through the flag simulate() uses and raises KeyboardInterrupt, the state the last good one.
/// step() is short and installs no handler (two system calls per step would double its cost).
RunStatus advancing(Simulator& simulator, double t) {
  SigintBridge sigint;
  const RunStatus status = stepping([&] { return simulator.advanceTo(t); });
  if (status == RunStatus::Interrupted) sigint.raiseIfSignalled(py::none());
  return status;
}

std::unique_ptr<Simulator> makeSimulator(const ConstrainedSystem& system, const State& initial,
                                         SimulationOptions options, const py::object& controller, bool record) {
  PythonErrorScope errors;
  checkStateSizes(system, initial.q, initial.v);
  options.validate();
  if (const auto* python_model = dynamic_cast<const PyConstrainedSystem*>(&system)) python_model->preflight(initial);
  if (!controller.is_none()) {
    options.controller = [controller](double t, ConstVectorRef q, ConstVectorRef v, VectorRef u) {
      py::gil_scoped_acquire gil;
      notingPythonErrors(
          [&] { copyInto(controller(t, toNumpy(q), toNumpy(v)), u, "Simulator: controller", "the returned u"); });
    };
  }
  options.interrupt = SigintBridge().flag();  // set only while an advance_to's bridge is alive
  return std::make_unique<Simulator>(system, initial, options, record);
}

}  // namespace

void bindSimulator(py::module_& m) {
  py::class_<Simulator> simulator(m, "Simulator", R"doc(A run taken one step at a time (MuJoCo's mj_step, Drake's AdvanceTo).

Simulator(system, state, options=SimulationOptions(), controller=None, record=False) owns the
integrator of options.integrator at `state`, any of them. Fixed-step integrators: step() takes one
options.dt along the grid t0 + k*dt of the last reset; advance_to(t) steps to t, with one shortened
step when t is off the grid. Adaptive ones (cvode_bdf, cvode_adams, ida_index1, ida_ggl): the
SUNDIALS memory lives as long as the Simulator; step() is one internal step of the solver,
advance_to(t) returns the state at t as simulate() reaches each output (interpolated, or with t as
stop time under options.adaptive.stop_at_outputs). Over simulate()'s output grid (every dt) it
reaches simulate()'s states and λ bit for bit. options.events are located as simulate() locates
them (`events`); a stop event moves the state to the event and stops the Simulator. With
record=True, `recording` holds the reset state and the state each step()/advance_to() ends at.
options.divergence holds as in simulate(): a blow-up ends as RunStatus.DIVERGED with simulate()'s
message. options.steps, end_time and observe_every are simulate()'s and are ignored.

step() and advance_to() return RunStatus.SUCCESS, STOPPED_BY_EVENT, or the failure that stopped the
Simulator (its state stays the last good one, `message` says what, where and when, and it does
nothing more until reset()). A Python exception from the model, the controller or an event is
raised as itself. Ctrl-C stops a long advance_to() and raises KeyboardInterrupt, the state the last
good one.)doc");
  simulator
      .def(py::init(&makeSimulator), py::arg("system"), py::arg("state"), py::arg("options") = SimulationOptions{},
           py::arg("controller") = py::none(), py::arg("record") = false, py::keep_alive<1, 2>())
      .def("step", [](Simulator& s) { return stepping([&] { return s.step(); }); },
           "One step: options.dt to the next grid time, or one internal step of an adaptive solver;\n"
           "returns the RunStatus.")
      .def("advance_to", &advancing, py::arg("t"),
           "Goes to time t >= self.t (ValueError naming t otherwise); returns the RunStatus.")
      .def("reset", &Simulator::reset, py::arg("state"),
           "Makes `state` the current state and the grid's origin and restarts the integrator there\n"
           "(CVodeReInit / IDAReInit for the adaptive ones); clears events, recording and counters.")
      .def("get_state", [](const Simulator& s) { return s.state(); }, "A copy of the current State.")
      .def("set_state", &Simulator::reset, py::arg("state"), "reset(state).")
      .def("copy", &Simulator::copy, py::keep_alive<0, 1>(),
           "A Simulator of the same system and options made at this one's state, on the same grid.\n"
           "euler, semi_implicit and rk4 continue bit for bit as this one would; the others restart their\n"
           "integrator there (SUNDIALS memory cannot be cloned): they agree to the tolerances only.")
      .def("__copy__", &Simulator::copy, py::keep_alive<0, 1>(), "copy(): the system is shared.")
      .def("__deepcopy__", [](const Simulator& s, py::handle) { return s.copy(); }, py::arg("memo"),
           py::keep_alive<0, 1>(), "copy(): the system is shared, not copied.")
      .def_property_readonly("events", [](const Simulator& s) { return s.events(); },
                             "The FiredEvents since the last reset, in time order (a copy).")
      .def_property_readonly("recording",
                             [](const Simulator& s) -> py::object {
                               return s.recording() ? recordingCopy(*s.recording(), s.system()) : py::object(py::none());
                             },
                             "The Recording since the last reset (a copy of its rows), or None without record=True.")
      .def_property_readonly("summary", &Simulator::summary,
                             "The work since the last reset as a Summary: status, message, steps, solves,\n"
                             "evaluations, events.")
      .def_property_readonly("state", [](const Simulator& s) { return s.state(); }, "The current State (a copy).")
      .def_property_readonly("t", &Simulator::t, "The current time [s].")
      .def_property_readonly("q", [](const Simulator& s) { return readOnly(toNumpy(s.state().q)); },
                             "Coordinates of the current state, shape (nq,) (a read-only copy).")
      .def_property_readonly("v", [](const Simulator& s) { return readOnly(toNumpy(s.state().v)); },
                             "Velocities of the current state, shape (nq,) (a read-only copy).")
      .def_property_readonly("lam", [](Simulator& s) { return readOnly(toNumpy(s.lambda())); },
                             "λ at the current state, shape (nc,): the physical multiplier unless\n"
                             "options.observed_multiplier says METHOD (solved on first read after a step).")
      .def_property_readonly("records", &Simulator::records, "Whether it records (the constructor's record).")
      .def_property_readonly("steps", &Simulator::steps,
                             "Steps taken since the last reset (fixed steps, or the solver's internal steps).")
      .def_property_readonly("status", &Simulator::status, "RunStatus.SUCCESS, or the failure that stopped it.")
      .def_property_readonly("message", &Simulator::message, "What failed, where and when; empty while it can step.")
      .def_property_readonly("options", [](const Simulator& s) { return s.options(); }, "The options (a copy).")
      .def_property_readonly("system", &Simulator::system, py::return_value_policy::reference_internal,
                             "The system stepped (the one given, not a copy).")
      .def("__repr__", [](const Simulator& s) {
        return "<Simulator " + s.system().name() + " " + std::string(toString(s.options().integrator)) +
               " at t = " + formatDouble(s.t()) + " s, " + std::string(toString(s.status())) + ">";
      });
}

}  // namespace kktdae::python
