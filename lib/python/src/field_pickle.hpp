#pragma once
// pickle, copy.copy and copy.deepcopy for the read-only structs a run returns (Summary, RunWarning,
// FiredEvent): Python cannot assign their fields, so the state is {field: value} read and written
// through member pointers listed once here. multiprocessing sends results back to the parent so.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "arrays.hpp"

namespace kktdae::python {

/// One field of T as pickle sees it: its name, how to read it into Python and how to restore it.
template <typename T>
struct PickledField {
  std::string name;
  std::function<py::object(const T&)> get;
  std::function<void(T&, py::handle)> set;
};

/// A field of any type pybind11 converts (numbers, strings, bound enums and structs, lists of them).
template <typename T, typename Member>
PickledField<T> pickledField(std::string name, Member T::*member) {
  return {std::move(name), [member](const T& self) { return py::cast(self.*member); },
          [member](T& self, py::handle value) { self.*member = value.cast<Member>(); }};
}

/// A vector field, as a float64 numpy array.
template <typename T>
PickledField<T> pickledField(std::string name, Vector T::*member) {
  const std::string where = name;
  return {std::move(name), [member](const T& self) { return py::object(toNumpy(self.*member)); },
          [member, where](T& self, py::handle value) { self.*member = toVector(value, -1, where, "value"); }};
}

/// Binds py::pickle over `fields`. The state is a dict; restoring one that lacks a field or
/// names an unknown one is a ValueError naming it (a pickle from another version of kktdae).
template <typename T, typename... Extra>
void defFieldTablePickle(py::class_<T, Extra...>& type, std::vector<PickledField<T>> fields) {
  const std::string owner = py::str(type.attr("__name__"));
  auto table = std::make_shared<const std::vector<PickledField<T>>>(std::move(fields));
  type.def(py::pickle(
      [table](const T& self) {
        py::dict state;
        for (const PickledField<T>& field : *table) state[field.name.c_str()] = field.get(self);
        return state;
      },
      [table, owner](const py::dict& state) {
        T made;
        for (const PickledField<T>& field : *table) {
          if (!state.contains(field.name.c_str())) {
            throw py::value_error(owner + ": the pickled state has no field '" + field.name + "'");
          }
          field.set(made, state[field.name.c_str()]);
        }
        if (state.size() != table->size()) {
          for (const auto& item : state) {
            const std::string key = py::str(item.first);
            bool known = false;
            for (const PickledField<T>& field : *table) known = known || field.name == key;
            if (!known) throw py::value_error(owner + ": the pickled state has an unknown field '" + key + "'");
          }
        }
        return made;
      }));
}

}  // namespace kktdae::python
