// kktdae/core: State.
#include "arrays.hpp"
#include "binding_helpers.hpp"
#include "bindings.hpp"
#include "kktdae/core/state.hpp"

namespace kktdae::python {
namespace {

/// q or v as given to State: a vector of `size` entries (any size when < 0), or the (N, 3) array of
/// N particles' positions (seed 000's chapter stacks them so), read row by row: particle k's x, y, z
/// become entries 3k, 3k + 1, 3k + 2, the shipped particle models' layout.
Vector toCoordinates(py::handle value, Eigen::Index size, const std::string& where, const char* name) {
  const auto array = realArray(value, where, name);
  if (array.ndim() != 2) return toVector(array, size, where, name);
  if (array.shape(1) != 3 || (size >= 0 && 3 * array.shape(0) != size)) {
    throw py::value_error(where + ": " + name + " must have shape " +
                          (size >= 0 ? "(" + std::to_string(size) + ",) or (" + std::to_string(size / 3) + ", 3)"
                                     : std::string("(nq,) or (N, 3)")) +
                          ", got " + shapeText(array));
  }
  return Eigen::Map<const Vector>(array.data(), 3 * array.shape(0));
}

}  // namespace

void bindCore(py::module_& m) {
  py::class_<State> state(m, "State", "A state (t, q, v) of a constrained system, v = q̇; q and v have nq entries.");
  state.def(py::init([](py::handle q, py::handle v, double t) {
              State s;
              s.t = t;
              s.q = toCoordinates(q, -1, "State", "q");
              s.v = v.is_none() ? Vector::Zero(s.q.size()) : toCoordinates(v, s.q.size(), "State", "v");
              return s;
            }),
            py::arg("q"), py::arg("v") = py::none(), py::arg("t") = 0.0,
            "State(q, v=None, t=0.0): v defaults to zeros (at rest) and must have q's size. q and v may be\n"
            "(N, 3) arrays of N particles' positions and velocities (seed 000's layout): row k becomes entries\n"
            "3k … 3k + 2, as in PendulumChain and ParticleSystem; state.q is then (3N,).")
      .def_readwrite("t", &State::t, "Time [s].")
      .def_property(
          "q", [](const State& s) { return readOnly(toNumpy(s.q)); },
          [](State& s, py::handle q) { s.q = toCoordinates(q, -1, "State.q", "q"); },
          "Generalized coordinates, shape (nq,). A read-only copy: assign a whole array to change it.")
      .def_property(
          "v", [](const State& s) { return readOnly(toNumpy(s.v)); },
          [](State& s, py::handle v) { s.v = toCoordinates(v, -1, "State.v", "v"); },
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
