// kktdae/core: State.
#include "arrays.hpp"
#include "binding_helpers.hpp"
#include "bindings.hpp"
#include "kktdae/core/state.hpp"

namespace kktdae::python {

void bindCore(py::module_& m) {
  py::class_<State> state(m, "State", "A state (t, q, v) of a constrained system, v = q̇; q and v have nq entries.");
  state.def(py::init([](py::handle q, py::handle v, double t) {
              State s;
              s.t = t;
              s.q = toVector(q, -1, "State", "q");
              s.v = v.is_none() ? Vector::Zero(s.q.size()) : toVector(v, s.q.size(), "State", "v");
              return s;
            }),
            py::arg("q"), py::arg("v") = py::none(), py::arg("t") = 0.0,
            "State(q, v=None, t=0.0): v defaults to zeros (at rest) and must have q's size.")
      .def_readwrite("t", &State::t, "Time [s].")
      .def_property(
          "q", [](const State& s) { return readOnly(toNumpy(s.q)); },
          [](State& s, py::handle q) { s.q = toVector(q, -1, "State.q", "q"); },
          "Generalized coordinates, shape (nq,). A read-only copy: assign a whole array to change it.")
      .def_property(
          "v", [](const State& s) { return readOnly(toNumpy(s.v)); },
          [](State& s, py::handle v) { s.v = toVector(v, -1, "State.v", "v"); },
          "Generalized velocities q̇, shape (nq,). A read-only copy: assign a whole array to change it.")
      .def("copy", [](const State& s) { return s; }, "An independent copy.")
      // pickle, copy.copy and copy.deepcopy: (t, q, v), q and v as numpy arrays.
      .def(py::pickle([](const State& s) { return py::make_tuple(s.t, toNumpy(s.q), toNumpy(s.v)); },
                      [](const py::tuple& saved) {
                        if (saved.size() != 3) throw py::value_error("State: a pickled state is (t, q, v)");
                        State s;
                        s.t = saved[0].cast<double>();
                        s.q = toVector(saved[1], -1, "State", "q");
                        s.v = toVector(saved[2], s.q.size(), "State", "v");
                        return s;
                      }));
  defRepr(state, {"t", "q", "v"});
}

}  // namespace kktdae::python
