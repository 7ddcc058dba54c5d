// kktdae/sensitivity: parametric models (the interface, SpringSliderCrank, the builder's
// parameters), the options and compute_sensitivities() with numpy results.
#include <pybind11/stl.h>

#include <optional>

#include "arrays.hpp"
#include "binding_helpers.hpp"
#include "bindings.hpp"
#include "kktdae/core/checks.hpp"
#include "kktdae/models/spring_slider_crank.hpp"
#include "kktdae/multibody/parametric_mechanism.hpp"
#include "kktdae/sensitivity/sensitivity.hpp"
#include "python_errors.hpp"
#include "sigint_bridge.hpp"

namespace kktdae::python {
namespace {

/// g and its gradient as two Python callables (SensitivityOptions.integrand).
struct PyIntegrand {
  py::object value = py::none(), gradient = py::none();
};

/// SensitivityOptions as Python sees it: the integrand is None, "kinetic_energy" (the C++
/// kineticEnergyIntegrand of the system, no Python call per evaluation) or an Integrand.
struct PySensitivityOptions {
  SensitivityMethod method = SensitivityMethod::Forward;
  std::vector<std::string> parameters;
  py::object integrand = py::none();
  std::vector<InitialStateDirection> initial_state;
  Matrix initial_state_parameter_jacobian;  ///< empty: None
  bool record_trajectory = false;
  double multiplier_atol = 0.0;
  double difference_step = 0.0;
};

/// What compute_sensitivities() returns: the C++ result's numbers as numpy arrays.
struct PySensitivityResult {
  SensitivitySummary summary;
  std::vector<std::string> parameter_names, column_names;
  py::object parameters, initial_directions, times, states, sensitivities, cost_gradient;
  double cost = 0.0;
  int nq = 0, nc = 0;
  ObservedMultiplier observed_multiplier = ObservedMultiplier::Physical;
  py::object exception = py::none();

  double costDerivative(const std::string& name) const {
    for (std::size_t i = 0; i < column_names.size(); ++i) {
      if (column_names[i] == name) return cost_gradient.cast<py::array_t<double>>().at(static_cast<py::ssize_t>(i));
    }
    std::string known;
    for (const std::string& c : column_names) known += (known.empty() ? "" : ", ") + c;
    throw py::value_error("SensitivityResult.cost_derivative: no column '" + name + "' (the columns: " + known + ")");
  }
};

const std::string kIntegrandKinds = "None, 'kinetic_energy' or an Integrand(value, gradient)";

/// The C++ integrand the options name, for `system`.
Integrand toIntegrand(const py::object& choice, const ParametricSystem& system) {
  if (choice.is_none()) return {};
  if (py::isinstance<py::str>(choice)) {
    const std::string name = py::str(choice);
    if (name == "kinetic_energy") return kineticEnergyIntegrand(system);
    throw py::value_error("SensitivityOptions.integrand: unknown integrand '" + name + "'; choose " + kIntegrandKinds);
  }
  const PyIntegrand& python = choice.cast<const PyIntegrand&>();
  Integrand g;
  const py::object value = python.value, gradient = python.gradient;
  g.value = [value](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda, ConstVectorRef p) {
    py::gil_scoped_acquire gil;
    return notingPythonErrors(
        [&] { return toDouble(value(t, toNumpy(q), toNumpy(v), toNumpy(lambda), toNumpy(p)), "Integrand.value", "g"); });
  };
  g.gradient = [gradient](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda, ConstVectorRef p,
                          VectorRef g_q, VectorRef g_v, VectorRef g_lambda, VectorRef g_p) {
    py::gil_scoped_acquire gil;
    notingPythonErrors([&] {
      const py::tuple parts = py::tuple(gradient(t, toNumpy(q), toNumpy(v), toNumpy(lambda), toNumpy(p)));
      if (parts.size() != 4) {
        throw py::value_error("Integrand.gradient must return (g_q, g_v, g_lam, g_p), got " +
                              std::to_string(parts.size()) + " items");
      }
      copyInto(parts[0], g_q, "Integrand.gradient", "g_q");
      copyInto(parts[1], g_v, "Integrand.gradient", "g_v");
      copyInto(parts[2], g_lambda, "Integrand.gradient", "g_lam");
      copyInto(parts[3], g_p, "Integrand.gradient", "g_p");
    });
  };
  return g;
}

SensitivityOptions toOptions(const PySensitivityOptions& o, const ParametricSystem& system) {
  SensitivityOptions out;
  out.method = o.method;
  out.parameters = o.parameters;
  out.integrand = toIntegrand(o.integrand, system);
  out.initial_state = o.initial_state;
  out.initial_state_parameter_jacobian = o.initial_state_parameter_jacobian;
  out.record_trajectory = o.record_trajectory;
  out.multiplier_atol = o.multiplier_atol;
  out.difference_step = o.difference_step;
  return out;
}

PySensitivityResult toPython(SensitivityResult& r) {
  PySensitivityResult out;
  out.summary = r.summary;
  out.parameter_names = r.parameter_names;
  out.column_names = r.column_names;
  out.parameters = toNumpy(r.parameters);
  out.initial_directions = toNumpy(r.initial_directions);
  out.nq = r.nq;
  out.nc = r.nc;
  out.observed_multiplier = r.observed_multiplier;
  out.cost = r.cost;
  out.cost_gradient = toNumpy(r.cost_gradient);
  const auto steps = static_cast<py::ssize_t>(r.times.size());
  const py::ssize_t ny = 2 * r.nq + r.nc, ns = static_cast<py::ssize_t>(r.column_names.size());
  std::vector<double> states, sensitivities;
  states.reserve(static_cast<std::size_t>(steps * ny));
  sensitivities.reserve(static_cast<std::size_t>(steps * ny * ns));
  for (py::ssize_t k = 0; k < steps; ++k) {
    const Vector& y = r.states[static_cast<std::size_t>(k)];
    const Matrix& s = r.sensitivities[static_cast<std::size_t>(k)];
    for (py::ssize_t i = 0; i < ny; ++i) {
      states.push_back(y[i]);
      for (py::ssize_t j = 0; j < ns; ++j) sensitivities.push_back(s(i, j));
    }
  }
  out.times = adopt(std::vector<double>(r.times), {steps});
  out.states = adopt(std::move(states), {steps, ny});
  out.sensitivities = adopt(std::move(sensitivities), {steps, ny, ns});
  return out;
}

PySensitivityResult runSensitivities(py::handle system_object, const State& initial, SimulationOptions options,
                                     const PySensitivityOptions& python_options) {
  PythonErrorScope errors;
  const auto* system = py::isinstance<ParametricSystem>(system_object) ? system_object.cast<const ParametricSystem*>()
                                                                        : nullptr;
  if (system == nullptr) {
    throw py::type_error("compute_sensitivities: system must be a ParametricSystem (SpringSliderCrank, PendulumChain, "
                         "SpringChain, ParametricMechanism), got " +
                         std::string(py::str(py::type::handle_of(system_object).attr("__name__"))));
  }
  const SensitivityOptions sensitivity = toOptions(python_options, *system);
  SigintBridge sigint;
  options.interrupt = sigint.flag();
  const bool calls_python = !python_options.integrand.is_none() && !py::isinstance<py::str>(python_options.integrand);
  SensitivityResult result;
  if (calls_python) {
    result = computeSensitivities(*system, initial, options, sensitivity);
  } else {
    py::gil_scoped_release release;
    result = computeSensitivities(*system, initial, options, sensitivity);
  }
  PySensitivityResult out = toPython(result);
  if (const py::object& raised = errors.mustRaise()) {
    if (PyObject_SetAttrString(raised.ptr(), "result", py::cast(out).ptr()) != 0) PyErr_Clear();
    raisePython(raised);
  }
  sigint.raiseIfSignalled(py::cast(out));
  if (!result.summary.ok() && errors.latest()) out.exception = errors.latest();
  return out;
}

std::string where(const ParametricSystem& s, const char* method) { return s.name() + "." + method; }

void bindSpringSliderCrank(py::module_& m) {
  py::class_<SpringSliderCrankParams> params(m, "SpringSliderCrankParams",
                                             "The IDAS slider-crank's geometry, inertias, spring-damper and force "
                                             "(defaults: the example's).");
  defKeywordInit(params);
  params.def_readwrite("a", &SpringSliderCrankParams::a, "The crank's length parameter a, 0 < a < 1.")
      .def_readwrite("crank_inertia", &SpringSliderCrankParams::crank_inertia, "J1 > 0 [kg m²]")
      .def_readwrite("rod_mass", &SpringSliderCrankParams::rod_mass, "m2 > 0 [kg]")
      .def_readwrite("rod_inertia", &SpringSliderCrankParams::rod_inertia, "J2 > 0 [kg m²]")
      .def_readwrite("stiffness", &SpringSliderCrankParams::stiffness, "k ≥ 0 [N/m], parameter 'k'")
      .def_readwrite("damping", &SpringSliderCrankParams::damping, "c ≥ 0 [N s/m], parameter 'c'")
      .def_readwrite("free_length", &SpringSliderCrankParams::free_length, "l0 ≥ 0 [m]")
      .def_readwrite("force", &SpringSliderCrankParams::force, "F [N]")
      .def("validate", &SpringSliderCrankParams::validate, "Raises ValueError naming the bad field.");
  defRepr(params, {"a", "stiffness", "damping", "free_length", "force"});

  py::class_<SpringSliderCrank, ParametricSystem>(
      m, "SpringSliderCrank",
      "SUNDIALS' IDAS slider-crank with a spring-damper, q = (θ, x, ψ), nc = 2; parameters 'k' and 'c'\n"
      "(docs/sensitivities.md).")
      .def(py::init<SpringSliderCrankParams>(), py::arg("params") = SpringSliderCrankParams{},
           "Raises ValueError for invalid parameters.")
      .def("initial_state", &SpringSliderCrank::initialState, "The example's start: θ = π/2, at rest, t = 0.")
      .def_property_readonly("params", [](const SpringSliderCrank& s) { return s.params(); }, "The parameters (a copy).");
}

void bindParametricMechanism(py::module_& m) {
  using multibody::MechanismParameter;
  using multibody::MechanismParameterKind;
  py::class_<MechanismParameter>(m, "MechanismParameter", "One parameter a Mechanism declares.")
      .def_readonly("name", &MechanismParameter::name, "'<element>.<field>', e.g. 'arm.mass', 'gravity.y'.")
      .def_property_readonly(
          "kind",
          [](const MechanismParameter& p) {
            switch (p.kind) {
              case MechanismParameterKind::BodyMass: return "body_mass";
              case MechanismParameterKind::BodyInertia: return "body_inertia";
              case MechanismParameterKind::Gravity: return "gravity";
              case MechanismParameterKind::SpringStiffness: return "spring_stiffness";
              case MechanismParameterKind::SpringDamping: return "spring_damping";
              case MechanismParameterKind::SpringRestLength: return "spring_rest_length";
              case MechanismParameterKind::RotationalStiffness: return "rotational_stiffness";
              case MechanismParameterKind::RotationalDamping: return "rotational_damping";
              case MechanismParameterKind::RotationalRestAngle: return "rotational_rest_angle";
              case MechanismParameterKind::RotationalTorque: return "rotational_torque";
            }
            return "unknown";
          },
          "What it is: 'body_mass', 'body_inertia', 'gravity', 'spring_stiffness', ...")
      .def_readonly("element", &MechanismParameter::element, "The body or spring index (−1: gravity).")
      .def_readonly("component", &MechanismParameter::component, "A principal moment's k or gravity's axis.")
      .def_readonly("value", &MechanismParameter::value)
      .def("__repr__", [](const MechanismParameter& p) {
        return "<MechanismParameter " + p.name + " = " + formatDouble(p.value) + ">";
      });
  m.def("declared_parameters", &multibody::declaredParameters, py::arg("mechanism"),
        "Every parameter the mechanism declares (masses, inertias, gravity, springs), a list of MechanismParameter.");
  py::class_<multibody::ParametricMechanism, ParametricSystem>(
      m, "ParametricMechanism",
      "A Mechanism with the declared parameters named (all of them when `names` is empty) as a ParametricSystem.")
      .def(py::init<const multibody::Mechanism&, const std::vector<std::string>&>(), py::arg("mechanism"),
           py::arg("names") = std::vector<std::string>{},
           "Raises ValueError for a name the mechanism does not declare (listing those it does).")
      .def_property_readonly("mechanism", &multibody::ParametricMechanism::mechanism,
                             "The mechanism at the current values.", py::return_value_policy::copy)
      .def_property_readonly("parameters", &multibody::ParametricMechanism::parameters,
                             "The chosen MechanismParameters, in the order of p.");
}

}  // namespace

void bindParametricSystem(py::module_& m) {
  py::class_<ParametricSystem, ConstrainedSystem>(
      m, "ParametricSystem",
      "A ConstrainedSystem with named parameters p and the derivatives forward sensitivities need\n"
      "(docs/sensitivities.md). PendulumChain, SpringChain, SpringSliderCrank and ParametricMechanism are ones.")
      .def("np", &ParametricSystem::np, "Number of parameters.")
      .def("parameter_names", &ParametricSystem::parameterNames, "The parameters' names, in order.")
      .def("parameter_values", [](const ParametricSystem& s) { return toNumpy(s.parameterValues()); }, "p, shape (np,).")
      .def("parameter_index", &ParametricSystem::parameterIndex, py::arg("name"),
           "The index of `name`; ValueError listing the names otherwise.")
      .def(
          "with_parameter_values",
          [](const ParametricSystem& s, py::handle p) {
            return s.withParameterValues(toVector(p, s.np(), where(s, "with_parameter_values"), "p"));
          },
          py::arg("p"), "The same model with p (shape (np,)) instead; ValueError naming a value it cannot take.")
      .def(
          "with_parameters",
          [](const ParametricSystem& s, const py::kwargs& values) {
            Vector p = s.parameterValues();
            for (const auto& item : values) {
              p[s.parameterIndex(py::str(item.first))] = toDouble(item.second, where(s, "with_parameters"), "value");
            }
            return s.withParameterValues(p);
          },
          "The same model with the named parameters changed: chain.with_parameters(gravity=3.7).")
      .def(
          "dynamics_parameter_jacobian",
          [](const ParametricSystem& s, py::handle q, py::handle v, py::handle a, double t) {
            const std::string at = where(s, "dynamics_parameter_jacobian");
            Matrix D(s.nq(), s.np());
            s.dynamicsParameterJacobian(toVector(q, s.nq(), at, "q"), toVector(v, s.nq(), at, "v"),
                                        toVector(a, s.nq(), at, "a"), t, D);
            return toNumpy(D);
          },
          py::arg("q"), py::arg("v"), py::arg("a"), py::arg("t") = 0.0,
          "∂(M a + h)/∂p at (q, v, a, t), shape (nq, np).")
      .def(
          "check_parameter_derivatives",
          [](const ParametricSystem& s, py::handle q, py::handle v, py::handle a, double t, py::handle dq,
             py::handle dv, double step) {
            const std::string at = where(s, "check_parameter_derivatives");
            return checkParameterDerivatives(s, toVector(q, s.nq(), at, "q"), toVector(v, s.nq(), at, "v"),
                                             toVector(a, s.nq(), at, "a"), t, toVector(dq, s.nq(), at, "dq"),
                                             toVector(dv, s.nq(), at, "dv"), step);
          },
          py::arg("q"), py::arg("v"), py::arg("a"), py::arg("t"), py::arg("dq"), py::arg("dv"), py::arg("step") = 1e-5,
          "The model's parameter derivatives and tangent along (dq, dv) against central differences of its own\n"
          "terms (ParameterDerivativeCheck; O(step²) when right).");

  py::class_<ParameterDerivativeCheck>(m, "ParameterDerivativeCheck",
                                       "Largest relative differences of a model's derivatives from central differences.")
      .def_readonly("dynamics_parameter_error", &ParameterDerivativeCheck::dynamics_parameter_error, "∂(M a + h)/∂p")
      .def_readonly("constraint_parameter_error", &ParameterDerivativeCheck::constraint_parameter_error, "∂φ/∂p")
      .def_readonly("tangent_error", &ParameterDerivativeCheck::tangent_error, "δM, δh, δJ, δγ, δ(∂φ/∂t)")
      .def_readonly("constraint_tangent_error", &ParameterDerivativeCheck::constraint_tangent_error,
                    "∂J/∂p, ∂γ/∂p, ∂(∂φ/∂t)/∂p")
      .def("__repr__", [](const ParameterDerivativeCheck& c) {
        return "<ParameterDerivativeCheck D " + formatDouble(c.dynamics_parameter_error) + ", dphi/dp " +
               formatDouble(c.constraint_parameter_error) + ", tangent " + formatDouble(c.tangent_error) +
               ", d(J, gamma, phi_t)/dp " + formatDouble(c.constraint_tangent_error) + ">";
      });
  bindSpringSliderCrank(m);
}

void bindSensitivity(py::module_& m) {
  bindParametricMechanism(m);

  py::enum_<SensitivityMethod> method(m, "SensitivityMethod", "Forward sensitivities ('forward') or central differences ('fd').");
  addNamedValues(method, std::vector<SensitivityMethod>{SensitivityMethod::Forward, SensitivityMethod::CentralDifferences});

  py::class_<PyIntegrand>(m, "Integrand",
                          "g(t, q, v, lam, p) -> float and gradient(t, q, v, lam, p) -> (g_q, g_v, g_lam, g_p), two\n"
                          "Python callables, for G = ∫ g dt (one Python call per IDAS quadrature evaluation).")
      .def(py::init([](py::object value, py::object gradient) {
             if (!PyCallable_Check(value.ptr()) || !PyCallable_Check(gradient.ptr())) {
               throw py::type_error("Integrand takes two callables, value and gradient");
             }
             return PyIntegrand{std::move(value), std::move(gradient)};
           }),
           py::arg("value"), py::arg("gradient"))
      .def_readonly("value", &PyIntegrand::value)
      .def_readonly("gradient", &PyIntegrand::gradient);

  py::class_<InitialStateDirection> direction(m, "InitialStateDirection",
                                              "A direction (dq, dv) of the initial state to differentiate along, named.");
  defKeywordInit(direction);
  direction.def_readwrite("name", &InitialStateDirection::name, "The column's name (distinct from the parameters').")
      .def_property(
          "dq", [](const InitialStateDirection& d) { return toNumpy(d.dq); },
          [](InitialStateDirection& d, py::handle value) {
            d.dq = toVector(value, -1, "InitialStateDirection", "dq");
          },
          "δq₀, shape (nq,).")
      .def_property(
          "dv", [](const InitialStateDirection& d) { return toNumpy(d.dv); },
          [](InitialStateDirection& d, py::handle value) {
            d.dv = toVector(value, -1, "InitialStateDirection", "dv");
          },
          "δq̇₀, shape (nq,).");
  defRepr(direction, {"name", "dq", "dv"});

  py::class_<PySensitivityOptions> options(m, "SensitivityOptions",
                                           "What compute_sensitivities() computes besides the run: method, the integrand\n"
                                           "of G = ∫ g dt, initial-state directions, whether to record s(t).");
  defKeywordInit(options);
  options.def_readwrite("method", &PySensitivityOptions::method, "SensitivityMethod (or 'forward', 'fd').")
      .def_readwrite("parameters", &PySensitivityOptions::parameters,
                     "The parameters to differentiate with respect to, by name, in the columns' order "
                     "([]: all the model declares; assign a new list: the field is a copy).")
      .def_property(
          "integrand", [](const PySensitivityOptions& o) { return o.integrand; },
          [](PySensitivityOptions& o, py::object value) {
            if (!value.is_none() && !py::isinstance<py::str>(value) && !py::isinstance<PyIntegrand>(value)) {
              throw py::type_error("SensitivityOptions.integrand takes " + kIntegrandKinds + ", got " +
                                   std::string(py::str(py::type::handle_of(value).attr("__name__"))));
            }
            if (py::isinstance<py::str>(value) && std::string(py::str(value)) != "kinetic_energy") {
              throw py::value_error("SensitivityOptions.integrand: unknown integrand '" + std::string(py::str(value)) +
                                    "'; choose " + kIntegrandKinds);
            }
            o.integrand = std::move(value);
          },
          "None (no G), 'kinetic_energy' (g = ½ q̇ᵀ M(q, p) q̇, in C++) or an Integrand of two Python callables.")
      .def_readwrite("initial_state", &PySensitivityOptions::initial_state,
                     "A list of InitialStateDirection (assign a new list: the field is a copy).")
      .def_property(
          "initial_state_parameter_jacobian",
          [](const PySensitivityOptions& o) -> py::object {
            if (o.initial_state_parameter_jacobian.size() == 0) return py::none();
            return toNumpy(o.initial_state_parameter_jacobian);
          },
          [](PySensitivityOptions& o, py::handle value) {
            if (value.is_none()) {
              o.initial_state_parameter_jacobian.resize(0, 0);
              return;
            }
            const std::string where = "SensitivityOptions.initial_state_parameter_jacobian";
            const auto array = realArray(value, where, "value");
            if (array.ndim() != 2) {
              throw py::value_error(where + " must be a 2-D array of shape (2 nq, np), got " +
                                    std::to_string(array.ndim()) + " dimensions");
            }
            o.initial_state_parameter_jacobian = toMatrix(array, array.shape(0), array.shape(1), where, "value");
          },
          "How the start moves with the parameters, ∂(q0; v0)/∂p, shape (2 nq, np); None: it does not.")
      .def_readwrite("record_trajectory", &PySensitivityOptions::record_trajectory,
                     "Record y and s at every output of options.dt's grid (False: the end only).")
      .def_readwrite("multiplier_atol", &PySensitivityOptions::multiplier_atol,
                     "Absolute tolerance of λ in the Newton test (0: max(atol, 1e-11)).")
      .def_readwrite("difference_step", &PySensitivityOptions::difference_step,
                     "Central differences' relative step (0: ∛rtol).")
      .def(
          "validate",
          [](const PySensitivityOptions& o) {
            SensitivityOptions c;
            c.multiplier_atol = o.multiplier_atol;
            c.difference_step = o.difference_step;
            c.initial_state_parameter_jacobian = o.initial_state_parameter_jacobian;
            c.validate();
          },
          "Raises ValueError naming the bad field.");
  defRepr(options, {"method", "parameters", "integrand", "record_trajectory"});

  py::class_<SensitivitySummary>(m, "SensitivitySummary", "How a sensitivity computation went, and what it cost.")
      .def_readonly("status", &SensitivitySummary::status, "RunStatus")
      .def_readonly("message", &SensitivitySummary::message)
      .def_readonly("method", &SensitivitySummary::method)
      .def_readonly("integrator", &SensitivitySummary::integrator)
      .def_readonly("runs", &SensitivitySummary::runs, "Integrations (1 forward, 1 + 2·columns central differences).")
      .def_readonly("steps", &SensitivitySummary::steps)
      .def_readonly("residual_evaluations", &SensitivitySummary::residual_evaluations)
      .def_readonly("sensitivity_residual_evaluations", &SensitivitySummary::sensitivity_residual_evaluations)
      .def_readonly("jacobian_evaluations", &SensitivitySummary::jacobian_evaluations)
      .def_readonly("quadrature_evaluations", &SensitivitySummary::quadrature_evaluations)
      .def_readonly("error_test_failures", &SensitivitySummary::error_test_failures)
      .def_readonly("convergence_failures", &SensitivitySummary::convergence_failures)
      .def_readonly("max_constraint_residual", &SensitivitySummary::max_constraint_residual,
                    "max ‖φ‖∞ over the outputs (the state's drift on CVODES without gains).")
      .def_readonly("max_velocity_constraint_residual", &SensitivitySummary::max_velocity_constraint_residual,
                    "max ‖φ̇‖∞ over the outputs.")
      .def_readonly("wall_seconds", &SensitivitySummary::wall_seconds)
      .def_property_readonly("ok", &SensitivitySummary::ok)
      .def("brief_report", &SensitivitySummary::briefReport)
      .def("__bool__", &SensitivitySummary::ok)
      .def("__repr__", [](const SensitivitySummary& s) { return "<SensitivitySummary " + s.briefReport() + ">"; });

  py::class_<PySensitivityResult>(m, "SensitivityResult",
                                  "y = (q, v, lam) and s = ∂y/∂(p, initial directions) at the recorded times, G and dG.")
      .def_readonly("summary", &PySensitivityResult::summary)
      .def_readonly("parameter_names", &PySensitivityResult::parameter_names)
      .def_readonly("column_names", &PySensitivityResult::column_names,
                    "The columns of s and cost_gradient: the parameters, then the initial-state directions.")
      .def_readonly("parameters", &PySensitivityResult::parameters, "p, shape (np,).")
      .def_readonly("initial_directions", &PySensitivityResult::initial_directions,
                    "The projected initial-state directions (dq; dv), shape (2 nq, directions).")
      .def_readonly("times", &PySensitivityResult::times, "shape (T,) [s]")
      .def_readonly("states", &PySensitivityResult::states, "y = (q, v, lam), shape (T, n_y), n_y = 2 nq + nc.")
      .def_readonly("sensitivities", &PySensitivityResult::sensitivities, "s, shape (T, n_y, columns).")
      .def_readonly("cost", &PySensitivityResult::cost, "G (0 without an integrand).")
      .def_readonly("cost_gradient", &PySensitivityResult::cost_gradient, "dG per column, shape (columns,).")
      .def_readonly("nq", &PySensitivityResult::nq)
      .def_readonly("nc", &PySensitivityResult::nc)
      .def_readonly("observed_multiplier", &PySensitivityResult::observed_multiplier,
                    "Which λ the λ rows of states and sensitivities hold: PHYSICAL (the KKT solve at the state "
                    "without feedback, the default) or METHOD (the integrator's own), as SimulationOptions says.")
      .def_readonly("exception", &PySensitivityResult::exception,
                    "The Python exception (from an Integrand) that ended a failed run, or None.")
      .def("cost_derivative", &PySensitivityResult::costDerivative, py::arg("name"),
           "dG by column name; ValueError listing the columns for another.")
      .def_property_readonly(
          "cost_derivatives",
          [](const PySensitivityResult& r) {
            py::dict out;
            for (const std::string& name : r.column_names) out[py::str(name)] = r.costDerivative(name);
            return out;
          },
          "{column name: dG}.")
      .def("__repr__", [](const PySensitivityResult& r) {
        return "<SensitivityResult " + r.summary.briefReport() + ", " + std::to_string(r.column_names.size()) +
               " columns>";
      });

  m.def("compute_sensitivities", &runSensitivities, py::arg("system"), py::arg("initial"),
        py::arg("options") = SimulationOptions{}, py::arg("sensitivity_options") = PySensitivityOptions{},
        R"doc(Runs a ParametricSystem from `initial` as `options` say (integrator ida_ggl or ida_index1; rtol,
atol from options.adaptive; outputs on the dt grid up to end_time) and returns a SensitivityResult: s = ∂y/∂p
(and along sensitivity_options.initial_state), G = ∫ g dt and dG. Raises ValueError naming what it does
not support (other integrators, events, inputs, a φ that depends on p). Numerical failure is a failed
summary, never an exception. Ctrl-C stops the run and raises KeyboardInterrupt carrying the partial
result as its attribute `result`. The GIL is released unless the integrand is a Python Integrand.)doc");
}

}  // namespace kktdae::python
