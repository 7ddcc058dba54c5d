// kktdae/simulate/events.hpp: events whose condition g (and callback) are Python callables, and the
// FiredEvent records a run returns. The library locates and reports; this file only translates.
#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "arrays.hpp"
#include "binding_helpers.hpp"
#include "bindings.hpp"
#include "field_pickle.hpp"
#include "kktdae/simulate/events.hpp"
#include "kktdae/simulate/simulate.hpp"
#include "python_errors.hpp"

namespace kktdae::python {
namespace {

/// A Python object shared by the copies of one std::function: copying it touches no Python
/// reference count (the library may copy an Event where the GIL is released), and the last copy
/// gives the object back under the GIL.
using SharedCallable = std::shared_ptr<py::object>;

SharedCallable share(py::object callable) {
  return SharedCallable(new py::object(std::move(callable)), [](py::object* object) {
    py::gil_scoped_acquire gil;
    delete object;
  });
}

/// Event::g as a Python callable g(t, q, v, lam) -> m numbers. What it raises (or a wrong shape)
/// propagates as a C++ exception, which ends the run as ModelError with the message (and is
/// noted for simulate(), python_errors.hpp).
struct PythonEventFunction {
  SharedCallable callable;
  std::string where;  // "Event 'name'.g"
  void operator()(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda, Vector& g) const {
    py::gil_scoped_acquire gil;
    notingPythonErrors([&] {
      const py::object value = (*callable)(t, toNumpy(q), toNumpy(v), toNumpy(lambda));
      copyInto(value, VectorRef(g), where, "the returned g");
    });
  }
};

/// Event::callback as a Python callable callback(fired) -> EventDecision (None: CONTINUE).
struct PythonEventCallback {
  SharedCallable callable;
  EventDecision operator()(const FiredEvent& fired) const {
    py::gil_scoped_acquire gil;
    return notingPythonErrors([&] {
      const py::object decision = (*callable)(fired);
      return decision.is_none() ? EventDecision::Continue : decision.cast<EventDecision>();
    });
  }
};

/// SimulationOptions::event_observer as a Python callable observer(fired), told of every event as
/// it fires. What it raises ends the run as ModelError with the message, as a callback's does.
struct PythonEventObserver {
  SharedCallable callable;
  void operator()(const FiredEvent& fired) const {
    py::gil_scoped_acquire gil;
    notingPythonErrors([&] { (*callable)(fired); });
  }
};

/// A property of `type` holding a Python callable in the std::function member `field`, wrapped by
/// make(owner, shared) into `Wrapper` (a struct with a SharedCallable `callable`): reading gives the
/// callable back (None when unset or not Python's), None clears it, anything else not callable
/// raises TypeError ("Event.g must be callable").
template <typename Wrapper, typename Owner, typename Function, typename Make>
void defCallableProperty(py::class_<Owner>& type, const char* name, Function Owner::*field, Make make, const char* doc) {
  const std::string what = std::string(py::str(type.attr("__name__"))) + "." + name;
  type.def_property(
      name,
      [field](const Owner& owner) -> py::object {
        const auto* python = (owner.*field).template target<Wrapper>();
        return python ? *python->callable : py::none();
      },
      [field, make, what](Owner& owner, py::object callable) {
        if (callable.is_none()) {
          owner.*field = nullptr;
          return;
        }
        if (!PyCallable_Check(callable.ptr())) throw py::type_error(what + " must be callable");
        owner.*field = make(owner, share(std::move(callable)));
      },
      doc);
}

std::string decisionLabel(EventDecision decision) { return decision == EventDecision::Stop ? "stop" : "continue"; }

}  // namespace

void bindEvents(py::module_& m) {
  py::enum_<EventDirection> direction(m, "EventDirection", "Which sign changes of g fire: RISING, FALLING, EITHER.");
  addNamedValues(direction, std::vector<EventDirection>{EventDirection::Rising, EventDirection::Falling,
                                                        EventDirection::Either});
  py::enum_<EventAction> action(m, "EventAction",
                                "What the run does when an event fires: RECORD, STOP, or CALLBACK (ask Event.callback).");
  addNamedValues(action, std::vector<EventAction>{EventAction::Record, EventAction::Stop, EventAction::Callback});
  py::enum_<EventDecision> decision(m, "EventDecision", "A callback's answer: CONTINUE or STOP.");
  addLabelledValues(decision, std::vector<EventDecision>{EventDecision::Continue, EventDecision::Stop}, decisionLabel);

  py::class_<FiredEvent> fired(m, "FiredEvent", "One event that fired: which, when, where, and the state there.");
  fired.def_readonly("name", &FiredEvent::name)
      .def_readonly("event", &FiredEvent::event, "index in SimulationOptions.events")
      .def_readonly("component", &FiredEvent::component, "which component of g crossed zero")
      .def_readonly("time", &FiredEvent::time, "the located time [s]")
      .def_readonly("step", &FiredEvent::step, "the step (or output interval) k it fell in: (t_{k−1}, t_k]")
      .def_readonly("direction", &FiredEvent::direction, "RISING or FALLING: how this crossing went")
      .def_readonly("value", &FiredEvent::value, "g's component at the located state (≈ 0)")
      .def_property_readonly("q", [](const FiredEvent& f) { return readOnly(toNumpy(f.q)); }, "q there, (nq,)")
      .def_property_readonly("v", [](const FiredEvent& f) { return readOnly(toNumpy(f.v)); }, "q̇ there, (nq,)")
      .def_property_readonly("lam", [](const FiredEvent& f) { return readOnly(toNumpy(f.lambda)); }, "λ there, (nc,)");
  defRepr(fired, {"name", "component", "time", "step", "direction"});
  defFieldTablePickle(fired, {pickledField("name", &FiredEvent::name), pickledField("event", &FiredEvent::event),
                              pickledField("component", &FiredEvent::component), pickledField("time", &FiredEvent::time),
                              pickledField("step", &FiredEvent::step), pickledField("direction", &FiredEvent::direction),
                              pickledField("value", &FiredEvent::value), pickledField("q", &FiredEvent::q),
                              pickledField("v", &FiredEvent::v), pickledField("lam", &FiredEvent::lambda)});

  py::class_<Event> event(m, "Event",
                          "A condition g(t, q, v, lam) -> m numbers whose zero crossings the run locates (docs/events.md).\n"
                          "Event(name='bottom', g=lambda t, q, v, lam: [q[0]], direction='falling', action='stop').\n"
                          "A run with events holds the GIL; an exception raised by g or callback ends it as MODEL_ERROR.");
  defKeywordInit(event);
  event.def_readwrite("name", &Event::name, "non-empty, unique within SimulationOptions.events")
      .def_readwrite("size", &Event::size, "m ≥ 1: how many numbers g returns")
      .def_readwrite("direction", &Event::direction, "EventDirection (or its label)")
      .def_readwrite("action", &Event::action, "EventAction (or its label)")
      .def_readwrite("time_tolerance", &Event::time_tolerance, "fixed-step location tolerance [s] > 0")
      .def(
          "validate", [](const Event& e) { e.validate("event"); }, "Raises ValueError naming the bad field.");
  defCallableProperty<PythonEventFunction>(
      event, "g", &Event::g,
      [](const Event& e, SharedCallable callable) {
        return PythonEventFunction{std::move(callable), "Event '" + e.name + "'.g"};
      },
      "g(t, q, v, lam) -> array of size m (required); set it after name, which its messages quote");
  defCallableProperty<PythonEventCallback>(
      event, "callback", &Event::callback,
      [](const Event&, SharedCallable callable) { return PythonEventCallback{std::move(callable)}; },
      "callback(fired: FiredEvent) -> EventDecision (None: CONTINUE); required for action CALLBACK");
  defRepr(event, {"name", "size", "direction", "action", "time_tolerance"});
}

void bindEventObserver(py::class_<SimulationOptions>& options) {
  defCallableProperty<PythonEventObserver>(
      options, "event_observer", &SimulationOptions::event_observer,
      [](const SimulationOptions&, SharedCallable callable) { return PythonEventObserver{std::move(callable)}; },
      "observer(fired: FiredEvent), told of every event as it fires, in time order (before a STOP ends the run);\n"
      "None: no observer. An exception it raises ends the run as MODEL_ERROR.");
}

}  // namespace kktdae::python
