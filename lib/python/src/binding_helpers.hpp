#pragma once
// Small templates every binding file uses: enums named after the library's toString() (so a value
// added in C++ reaches Python without a binding edit), keyword construction of options structs,
// and reprs built from a struct's fields.
#include <pybind11/pybind11.h>

#include <cctype>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace kktdae::python {
namespace py = pybind11;

/// "semi_implicit" → "SEMI_IMPLICIT", "ill-conditioned" → "ILL_CONDITIONED".
inline std::string memberName(std::string_view name) {
  std::string member;
  for (char c : name) member += c == '-' || c == ' ' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return member;
}

/// Adds one member per value, named memberName(label_of(value)), and lets the enum be built from
/// (and compared through) those labels. For an enum the library names without a toString().
template <typename Enum, typename Values, typename LabelOf>
py::enum_<Enum>& addLabelledValues(py::enum_<Enum>& type, const Values& values, LabelOf label_of) {
  std::vector<Enum> members(std::begin(values), std::end(values));
  for (const Enum value : members) type.value(memberName(label_of(value)).c_str(), value);
  const std::string enum_name = py::str(type.attr("__name__"));
  type.def(py::init([members, enum_name, label_of](const std::string& text) {
             std::string choices;
             for (const Enum value : members) {
               const std::string label(label_of(value));
               if (text == label || text == memberName(label)) return value;
               choices += (choices.empty() ? "" : ", ") + label;
             }
             throw py::value_error(enum_name + ": unknown value '" + text + "'; choose one of: " + choices);
           }),
           py::arg("label"), "The value the library names `label` (as toString() spells it).");
  py::implicitly_convertible<py::str, Enum>();
  type.def_property_readonly(
      "label", [label_of](Enum value) { return std::string(label_of(value)); },
      "The library's name for this value, as the apps' flags and files spell it.");
  return type;
}

/// Adds one member per value, named memberName(toString(value)), and lets the enum be built from
/// (and compared through) the library's names: Integrator("rk4").
template <typename Enum, typename Values>
py::enum_<Enum>& addNamedValues(py::enum_<Enum>& type, const Values& values) {
  return addLabelledValues(type, values, [](Enum value) { return std::string(toString(value)); });
}

/// The values 0, 1, … of an enum whose toString() answers "unknown" past its last value: the
/// enum's members without a list to keep up to date when the library adds one.
template <typename Enum>
std::vector<Enum> valuesUntilUnknown() {
  std::vector<Enum> values;
  for (int i = 0; i < 256; ++i) {
    const auto value = static_cast<Enum>(i);
    if (std::string_view(toString(value)) == "unknown") break;
    values.push_back(value);
  }
  return values;
}

/// The names of the fields `self`'s class lets Python assign (its properties with a setter), in
/// the order dir() lists them.
inline py::list assignableFields(py::handle self) {
  const py::handle cls = py::type::handle_of(self);
  const py::object getattr_static = py::module_::import("inspect").attr("getattr_static");
  const py::object property = py::module_::import("builtins").attr("property");
  py::list names;
  for (const py::handle name : py::module_::import("builtins").attr("dir")(cls)) {
    const std::string key = py::str(name);
    if (key.empty() || key[0] == '_') continue;
    const py::object attribute = getattr_static(cls, name);
    if (py::isinstance(attribute, property) && !attribute.attr("fset").is_none()) names.append(name);
  }
  return names;
}

/// pickle, copy.copy and copy.deepcopy for an options struct: the state is {field: value} of every
/// assignable field (nested options pickle the same way), restored by assigning each through its
/// property, so the setters' checks apply as in the keyword constructor. (multiprocessing sends
/// options to its workers this way.)
template <typename T, typename... Extra>
void defFieldPickle(py::class_<T, Extra...>& type) {
  type.def(py::pickle(
      [](py::handle self) {
        py::dict state;
        for (const py::handle name : assignableFields(self)) state[name] = self.attr(name);
        return state;
      },
      [](const py::dict& state) {
        auto made = std::make_unique<T>();
        py::object view = py::cast(made.get(), py::return_value_policy::reference);
        for (const auto& item : state) view.attr(item.first) = item.second;
        return made;
      }));
}

/// view.<key> = value, with a TypeError that names the class, the field, the type it takes and
/// the value given, instead of pybind11's "(): incompatible function arguments".
inline void assignNamingTheField(py::handle view, const std::string& key, const py::object& value) {
  try {
    view.attr(key.c_str()) = value;
  } catch (py::error_already_set& error) {
    if (!error.matches(PyExc_TypeError)) throw;
    const std::string text = py::str(error.value());
    if (text.find("incompatible function arguments") == std::string::npos) throw;
    // The setter's signature in pybind11's message: "(self: ..., arg0: Optional[int]) -> None".
    std::string expected = "another type";
    const std::size_t from = text.find("arg0: ");
    const std::size_t to = text.find(") -> None", from);
    if (from != std::string::npos && to != std::string::npos) expected = text.substr(from + 6, to - from - 6);
    const std::string owner = py::str(py::type::handle_of(view).attr("__name__"));
    throw py::type_error(owner + "." + key + " takes " + expected + ", got " +
                         std::string(py::str(py::type::handle_of(value).attr("__name__"))) + " " +
                         std::string(py::repr(value)));
  }
}

/// `Options(field=value, ...)`: default-constructs T, then assigns each keyword through the bound
/// property (so its checks apply). An unknown keyword is a TypeError naming it.
template <typename T, typename... Extra>
void defKeywordInit(py::class_<T, Extra...>& type) {
  type.def(py::init([](const py::kwargs& fields) {
             auto made = std::make_unique<T>();
             if (fields.size() > 0) {
               py::object view = py::cast(made.get(), py::return_value_policy::reference);
               for (const auto& item : fields) {
                 const std::string key = py::str(item.first);
                 if (key.empty() || key[0] == '_' || !py::hasattr(view, key.c_str())) {
                   throw py::type_error(std::string(py::str(py::type::handle_of(view).attr("__name__"))) +
                                        "() got an unexpected keyword argument '" + key + "'");
                 }
                 py::object value = py::reinterpret_borrow<py::object>(item.second);
                 // An enum field given by name: convert here, so an unknown name is the ValueError
                 // listing the choices (pybind11's implicit conversion would hide it in a TypeError).
                 const py::object current = view.attr(key.c_str());
                 if (py::isinstance<py::str>(value) && py::hasattr(current, "label")) {
                   value = py::type::handle_of(current)(value);
                 }
                 assignNamingTheField(view, key, value);
               }
             }
             return made;
           }),
           "Default values, then each keyword assigned to the field of the same name.");
  defFieldPickle(type);
}

/// "TypeName(a=1, b=2)" from the listed attributes, each through Python's repr().
inline std::string reprOf(py::handle self, const std::vector<const char*>& fields) {
  std::string text = std::string(py::str(py::type::handle_of(self).attr("__name__"))) + "(";
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::string(fields[i]) + "=" + std::string(py::repr(self.attr(fields[i])));
  }
  return text + ")";
}

/// Binds __repr__ listing `fields`.
template <typename Class>
void defRepr(Class& type, std::vector<const char*> fields) {
  type.def("__repr__", [fields](py::handle self) { return reprOf(self, fields); });
}

}  // namespace kktdae::python
