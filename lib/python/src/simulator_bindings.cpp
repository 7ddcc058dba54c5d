// kktdae/simulate/simulator.hpp: the step-at-a-time run.
#include <pybind11/stl.h>

#include <optional>

#include "arrays.hpp"
#include "bindings.hpp"
#include "kktdae/core/checks.hpp"
#include "kktdae/simulate/simulator.hpp"
#include "python_errors.hpp"
#include "system_trampoline.hpp"

namespace kktdae::python {
namespace {

/// A step or advance_to: a Python exception from the model or the controller is raised as itself
/// (the state restored to before the step); numerical trouble is the returned status.
template <typename Call>
RunStatus stepping(Call&& call) {
  PythonErrorScope errors;
  const RunStatus status = call();
  if (const py::object& raised = errors.mustRaise()) raisePython(raised);
  if (status != RunStatus::Success && status != RunStatus::Interrupted && errors.latest()) {
    raisePython(errors.latest());
  }
  return status;
}

std::unique_ptr<Simulator> makeSimulator(const ConstrainedSystem& system, const State& initial,
                                         SimulationOptions options, const py::object& controller) {
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
  return std::make_unique<Simulator>(system, initial, options);
}

}  // namespace

void bindSimulator(py::module_& m) {
  py::class_<Simulator> simulator(m, "Simulator", R"doc(A run taken one step at a time (MuJoCo's mj_step, Drake's AdvanceTo).

Simulator(system, state, options=SimulationOptions(), controller=None) owns a fixed-step integrator
(euler, semi_implicit, rk4, rattle, generalized_alpha, hht; the adaptive ones are refused by name)
at `state`. step() takes one options.dt along the grid t0 + k*dt of the last reset; advance_to(t)
steps to t, with one shortened step when t is off the grid. Over simulate()'s output grid it reaches
simulate()'s states bit for bit. options.steps, end_time and observe_every are simulate()'s and are
ignored; events are refused (not located step by step yet).

step() and advance_to() return RunStatus.SUCCESS, or the failure that stopped the Simulator (its
state stays the last good one, `message` says what, where and when, and it does nothing more until
reset()). A Python exception from the model or the controller is raised as itself, the state
restored to before the step.)doc");
  simulator
      .def(py::init(&makeSimulator), py::arg("system"), py::arg("state"), py::arg("options") = SimulationOptions{},
           py::arg("controller") = py::none(), py::keep_alive<1, 2>())
      .def("step", [](Simulator& s) { return stepping([&] { return s.step(); }); },
           "One step of options.dt to the next grid time; returns the RunStatus.")
      .def("advance_to", [](Simulator& s, double t) { return stepping([&] { return s.advanceTo(t); }); },
           py::arg("t"), "Steps to time t >= self.t (ValueError naming t otherwise); returns the RunStatus.")
      .def("reset", &Simulator::reset, py::arg("state"),
           "Makes `state` the current state and the grid's origin and restarts the integrator there.")
      .def("get_state", [](const Simulator& s) { return s.state(); }, "A copy of the current State.")
      .def("set_state", &Simulator::reset, py::arg("state"), "reset(state).")
      .def("copy", &Simulator::copy, py::keep_alive<0, 1>(),
           "An independent Simulator of the same system and options at this one's state, on the same grid.")
      .def("__copy__", &Simulator::copy, py::keep_alive<0, 1>(), "copy(): the system is shared.")
      .def("__deepcopy__", [](const Simulator& s, py::handle) { return s.copy(); }, py::arg("memo"),
           py::keep_alive<0, 1>(), "copy(): the system is shared, not copied.")
      .def_property_readonly("state", [](const Simulator& s) { return s.state(); }, "The current State (a copy).")
      .def_property_readonly("t", &Simulator::t, "The current time [s].")
      .def_property_readonly("q", [](const Simulator& s) { return readOnly(toNumpy(s.state().q)); },
                             "Coordinates of the current state, shape (nq,) (a read-only copy).")
      .def_property_readonly("v", [](const Simulator& s) { return readOnly(toNumpy(s.state().v)); },
                             "Velocities of the current state, shape (nq,) (a read-only copy).")
      .def_property_readonly("lam", [](Simulator& s) { return readOnly(toNumpy(s.lambda())); },
                             "λ at the current state, shape (nc,): the physical multiplier unless\n"
                             "options.observed_multiplier says METHOD (solved on first read after a step).")
      .def_property_readonly("steps", &Simulator::steps, "Steps taken since the last reset.")
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
