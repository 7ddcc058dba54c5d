// kktdae/integrators: the Integrator vocabulary (members made from allIntegrators(), so a new
// integrator reaches Python without an edit here) and the SUNDIALS options.
#include <pybind11/stl.h>

#include "arrays.hpp"
#include "binding_helpers.hpp"
#include "bindings.hpp"
#include "kktdae/integrators/adaptive_options.hpp"
#include "kktdae/integrators/integrator.hpp"

namespace kktdae::python {

void bindIntegrators(py::module_& m) {
  py::enum_<Integrator> integrator(m, "Integrator",
                                   "The integrators: fixed-step (EULER, SEMI_IMPLICIT, RK4, …) and SUNDIALS (CVODE_*, IDA_*).\n"
                                   "Integrator('rk4') parses the apps' names; a str is accepted wherever one is expected.");
  addNamedValues(integrator, allIntegrators());
  integrator.def_property_readonly("convergence_order", [](Integrator i) { return convergenceOrder(i); },
                                   "Global order of a fixed-step integrator; 0 for the adaptive ones.")
      .def_property_readonly("is_adaptive", [](Integrator i) { return isAdaptive(i); },
                             "True for the SUNDIALS integrators.");
  m.def("all_integrators", &allIntegrators, "Every integrator, in the order of the enum.");

  py::enum_<NewtonLinearSolver> newton(m, "NewtonLinearSolver", "The linear solver inside the implicit integrators' Newton.");
  addNamedValues(newton, valuesUntilUnknown<NewtonLinearSolver>());

  py::class_<AdaptiveOptions> adaptive(m, "AdaptiveOptions", "Tolerances and limits of the SUNDIALS integrators.");
  defKeywordInit(adaptive);
  adaptive.def_readwrite("rtol", &AdaptiveOptions::rtol, "relative tolerance > 0")
      .def_readwrite("atol", &AdaptiveOptions::atol, "absolute tolerance > 0")
      .def_property(
          "atol_per_component", [](const AdaptiveOptions& o) { return readOnly(toNumpy(o.atol_per_component)); },
          [](AdaptiveOptions& o, py::handle value) {
            o.atol_per_component = toVector(value, -1, "AdaptiveOptions.atol_per_component", "value");
          },
          "optional absolute tolerances for (q, v), shape (2 nq,); empty: atol for all")
      .def_readwrite("ggl_multiplier_atol", &AdaptiveOptions::ggl_multiplier_atol, "ida_ggl: weight of λ and μ")
      .def_readwrite("max_step", &AdaptiveOptions::max_step, "largest step [s]; 0: no limit")
      .def_readwrite("max_steps", &AdaptiveOptions::max_steps, "internal steps allowed between two outputs")
      .def_readwrite("initial_step", &AdaptiveOptions::initial_step, "first step [s]; 0: estimated")
      .def_readwrite("stop_at_outputs", &AdaptiveOptions::stop_at_outputs, "stop exactly at every output time")
      .def_readwrite("linear_solver", &AdaptiveOptions::linear_solver, "NewtonLinearSolver")
      .def_readwrite("krylov_dimension", &AdaptiveOptions::krylov_dimension, "SPGMR's maxl")
      .def("validate", &AdaptiveOptions::validate, py::arg("nq"), "Raises ValueError naming the bad field.");
  defRepr(adaptive, {"rtol", "atol", "max_step", "max_steps", "initial_step", "stop_at_outputs", "linear_solver"});
}

}  // namespace kktdae::python
