// kktdae/system/check_model.hpp: checkModel() and its report, whose findings are Python objects
// (method, entry, expected, got, state). Exceptions from a Python model's methods are findings, as
// in C++; KeyboardInterrupt, SystemExit and MemoryError leave check_model() as themselves.
#include <pybind11/stl.h>

#include <optional>

#include "binding_helpers.hpp"
#include "bindings.hpp"
#include "kktdae/system/check_model.hpp"
#include "python_errors.hpp"

namespace kktdae::python {
namespace {

void bindFinding(py::module_& m) {
  py::enum_<ModelProblem> problem(m, "ModelProblem", "What a ModelFinding says is wrong (docs: check_model.hpp).");
  addNamedValues(problem, valuesUntilUnknown<ModelProblem>());

  py::class_<ModelFinding> finding(
      m, "ModelFinding", "One thing check_model() found wrong: the method, the entry, expected vs got, the state.");
  finding.def_readonly("problem", &ModelFinding::problem, "ModelProblem")
      .def_readonly("method", &ModelFinding::method,
                    "The model method at fault, by its C++ name ('bias', 'constraintJacobian', 'evaluateTerms (J)').")
      .def_property_readonly(
          "entry", [](const ModelFinding& f) { return py::make_tuple(f.row, f.col); },
          "(row, col) of the entry; col −1 for vectors, (−1, −1) for the whole output or a size.")
      .def_readonly("row", &ModelFinding::row)
      .def_readonly("col", &ModelFinding::col)
      .def_readonly("expected", &ModelFinding::expected, "What the entry should be (NaN: any finite value).")
      .def_readonly("got", &ModelFinding::got, "What the model gave.")
      .def_readonly("state_index", &ModelFinding::state_index, "Index into ModelCheckReport.states (−1: none).")
      .def_property_readonly(
          "state",
          [](const ModelFinding& f) -> py::object { return f.state_index < 0 ? py::none() : py::cast(f.state); },
          "The State the finding is at (a copy), or None for findings independent of the state.")
      .def_readonly("detail", &ModelFinding::detail, "What `expected` is, in words, or the exception's text.")
      .def("describe", &ModelFinding::describe, "One line: method, entry, expected vs got, the state, detail.")
      .def("__repr__", [](const ModelFinding& f) { return "<ModelFinding " + f.describe() + ">"; });
}

void bindOptionsAndReport(py::module_& m) {
  py::class_<ModelCheckOptions> options(m, "ModelCheckOptions",
                                        "Tolerances, step and sampling of check_model(); keywords set fields by name.");
  defKeywordInit(options);
  options.def_readwrite("relative_tolerance", &ModelCheckOptions::relative_tolerance)
      .def_readwrite("absolute_tolerance", &ModelCheckOptions::absolute_tolerance)
      .def_readwrite("relative_step", &ModelCheckOptions::relative_step,
                     "Central-difference step relative to max(1, |x|).")
      .def_readwrite("terms_relative_tolerance", &ModelCheckOptions::terms_relative_tolerance)
      .def_readwrite("check_conservative_bias", &ModelCheckOptions::check_conservative_bias,
                     "Compare h(q, 0, t) with ∇V(q, t) (opt-in: only for models whose forces at rest are\n"
                     "all conservative); it finds gravity on the wrong axis.")
      .def_readwrite("random_states", &ModelCheckOptions::random_states, "States drawn when none are given (≥ 2).")
      .def_readwrite("random_scale", &ModelCheckOptions::random_scale)
      .def_readwrite("random_seed", &ModelCheckOptions::random_seed)
      .def_readwrite("max_findings_per_kind", &ModelCheckOptions::max_findings_per_kind)
      .def("validate", &ModelCheckOptions::validate, "Raises ValueError naming the bad field.");
  defRepr(options, {"relative_tolerance", "absolute_tolerance", "check_conservative_bias", "random_states"});

  py::class_<ModelCheckReport>(m, "ModelCheckReport", "Everything check_model() found, state by state.")
      .def_readonly("model", &ModelCheckReport::model, "The model's name().")
      .def_readonly("states", &ModelCheckReport::states, "The States checked (a copy).")
      .def_readonly("findings", &ModelCheckReport::findings, "The ModelFindings, in the order found (a copy).")
      .def_readonly("omitted_findings", &ModelCheckReport::omitted_findings,
                    "Findings beyond max_findings_per_kind, counted only.")
      .def_property_readonly("ok", &ModelCheckReport::ok, "True when nothing was found.")
      .def("__bool__", &ModelCheckReport::ok)
      .def("describe", &ModelCheckReport::describe, "A line for the model, then one per finding.")
      .def("__repr__", [](const ModelCheckReport& r) {
        return "<ModelCheckReport '" + r.model + "': " + std::to_string(r.states.size()) + " states, " +
               (r.ok() ? std::string("ok") : std::to_string(r.findings.size() + r.omitted_findings) + " findings") + ">";
      });
}

ModelCheckReport runCheckModel(const ConstrainedSystem& system, const std::optional<std::vector<State>>& states,
                               const ModelCheckOptions& options) {
  PythonErrorScope errors;
  ModelCheckReport report = checkModel(system, states.value_or(std::vector<State>{}), options);
  if (const py::object& raised = errors.mustRaise()) raisePython(raised);
  return report;
}

}  // namespace

void bindModelCheck(py::module_& m) {
  bindFinding(m);
  bindOptionsAndReport(m);
  m.def("check_model", &runCheckModel, py::arg("system"), py::arg("states") = py::none(),
        py::arg("options") = ModelCheckOptions{},
        R"doc(Evaluates every method of `system` at `states` (a list of State; None or []: options.random_states
random ones) and returns a ModelCheckReport: sizes; every output written, and only it; M symmetric and
positive definite, and as its MassStructure says; J, ∂φ/∂t, γ and a sparse J against central differences;
T = ½ q̇ᵀMq̇; with options.check_conservative_bias, h(q, 0, t) = ∇V(q, t); evaluate_terms against the
per-term methods. The states need not be on the manifold. An exception from a method is a finding
(THREW); KeyboardInterrupt, SystemExit and MemoryError propagate. Raises ValueError for invalid
options or a state of the wrong size.)doc");
}

}  // namespace kktdae::python
