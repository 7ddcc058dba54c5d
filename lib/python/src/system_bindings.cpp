// kktdae/system: the ConstrainedSystem interface (subclassable from Python) and the derivative checks.
#include "arrays.hpp"
#include "binding_helpers.hpp"
#include "bindings.hpp"
#include "kktdae/system/constrained_system.hpp"
#include "kktdae/system/derivative_check.hpp"
#include "system_trampoline.hpp"

namespace kktdae::python {
namespace {

/// "PendulumChain.bias": the Python class of `self` and the method, for messages.
std::string whereOf(py::handle self, const char* method) {
  return std::string(py::str(py::type::handle_of(self).attr("__name__"))) + "." + method;
}

const ConstrainedSystem& systemOf(py::handle self) { return py::cast<const ConstrainedSystem&>(self); }

const char* const kClassDoc = R"doc(A holonomic constrained system

    M(q) q̈ + h(q, q̇, t) = Sᵀ(q, t) u + J(q, t)ᵀ λ,     φ(q, t) = 0,   J = ∂φ/∂q.

Every shipped model derives from it, and so can a Python class: define nq(), nc(), bias(q, v, t),
constraint(q, t), constraint_jacobian(q, t), constraint_bias(q, v, t), potential_energy(q, t) and
either mass_matrix(q) (MassStructure.GENERAL, the default) or mass_structure() returning
MassStructure.DIAGONAL / CONSTANT_DIAGONAL with mass_diagonal(q). Optional: nu(), input_map(q, t),
constraint_time_derivative(q, t), kinetic_energy(q, v), name(), is_time_dependent(),
bias_depends_on_state(), is_conservative(), energy_scale(). Methods return numpy arrays (or
sequences) of the documented shapes; the trampoline checks each shape and names the method when
one is wrong. Call super().__init__() in __init__. nq, nc, nu, mass_structure and the three flags
are read once and cached: a model must not change during a run.)doc";

}  // namespace

void bindSystem(py::module_& m) {
  py::enum_<MassStructure>(m, "MassStructure", "How M(q) is structured; lets the KKT solve use a cheap M⁻¹.")
      .value("GENERAL", MassStructure::General, "dense SPD, depends on q: M⁻¹ through a Cholesky factorization")
      .value("DIAGONAL", MassStructure::Diagonal, "diagonal, may depend on q")
      .value("CONSTANT_DIAGONAL", MassStructure::ConstantDiagonal,
             "diagonal and independent of q: the solve caches M⁻¹ across steps");

  py::class_<ConstrainedSystem, PyConstrainedSystem> system_class(m, "ConstrainedSystem", kClassDoc);
  system_class.def(py::init<>(), "For Python subclasses: call super().__init__().")
      .def("name", &ConstrainedSystem::name, "Short human-readable name used in messages.")
      .def("nq", &ConstrainedSystem::nq, "Number of generalized coordinates (size of q, q̇, q̈).")
      .def("nc", &ConstrainedSystem::nc, "Number of constraints (size of φ, λ).")
      .def("nu", &ConstrainedSystem::nu, "Number of inputs (size of u); 0 when unactuated.")
      .def("mass_structure", &ConstrainedSystem::massStructure, "Structure of M (MassStructure).")
      .def("is_time_dependent", &ConstrainedSystem::isTimeDependent, "True when φ depends on t explicitly.")
      .def("bias_depends_on_state", &ConstrainedSystem::biasDependsOnState, "Whether h depends on (q, q̇).")
      .def("is_conservative", &ConstrainedSystem::isConservative,
           "True when T + V is a first integral with u = 0 (the divergence rule then watches it).")
      .def("energy_scale", &ConstrainedSystem::energyScale,
           "A size of the model's energy [J] (0: none declared); the divergence rule's scale.")
      .def(
          "mass_matrix",
          [](py::handle self, py::handle q) {
            const ConstrainedSystem& s = systemOf(self);
            const Vector qv = toVector(q, s.nq(), whereOf(self, "mass_matrix"), "q");
            Matrix M(s.nq(), s.nq());
            s.massMatrix(qv, M);
            return toNumpy(M);
          },
          py::arg("q"), "M(q), shape (nq, nq), symmetric positive definite.")
      .def(
          "mass_diagonal",
          [](py::handle self, py::handle q) {
            const ConstrainedSystem& s = systemOf(self);
            const Vector qv = toVector(q, s.nq(), whereOf(self, "mass_diagonal"), "q");
            Vector d(s.nq());
            s.massDiagonal(qv, d);
            return toNumpy(d);
          },
          py::arg("q"), "diag(M(q)), shape (nq,), for diagonal models.")
      .def(
          "bias",
          [](py::handle self, py::handle q, py::handle v, double t) {
            const ConstrainedSystem& s = systemOf(self);
            const std::string w = whereOf(self, "bias");
            const Vector qv = toVector(q, s.nq(), w, "q"), vv = toVector(v, s.nq(), w, "v");
            Vector h(s.nq());
            s.bias(qv, vv, t, h);
            return toNumpy(h);
          },
          py::arg("q"), py::arg("v"), py::arg("t") = 0.0,
          "h(q, q̇, t), shape (nq,): Coriolis, centrifugal and gravity forces in M q̈ + h = Sᵀu + Jᵀλ.")
      .def(
          "input_map",
          [](py::handle self, py::handle q, double t) {
            const ConstrainedSystem& s = systemOf(self);
            const Vector qv = toVector(q, s.nq(), whereOf(self, "input_map"), "q");
            Matrix S = Matrix::Zero(s.nu(), s.nq());
            s.inputMap(qv, t, S);
            return toNumpy(S);
          },
          py::arg("q"), py::arg("t") = 0.0, "S(q, t), shape (nu, nq): u enters as the generalized force Sᵀu.")
      .def(
          "constraint",
          [](py::handle self, py::handle q, double t) {
            const ConstrainedSystem& s = systemOf(self);
            const Vector qv = toVector(q, s.nq(), whereOf(self, "constraint"), "q");
            Vector phi(s.nc());
            s.constraint(qv, t, phi);
            return toNumpy(phi);
          },
          py::arg("q"), py::arg("t") = 0.0, "φ(q, t), shape (nc,).")
      .def(
          "constraint_jacobian",
          [](py::handle self, py::handle q, double t) {
            const ConstrainedSystem& s = systemOf(self);
            const Vector qv = toVector(q, s.nq(), whereOf(self, "constraint_jacobian"), "q");
            Matrix J(s.nc(), s.nq());
            s.constraintJacobian(qv, t, J);
            return toNumpy(J);
          },
          py::arg("q"), py::arg("t") = 0.0, "J(q, t) = ∂φ/∂q, shape (nc, nq).")
      .def(
          "constraint_time_derivative",
          [](py::handle self, py::handle q, double t) {
            const ConstrainedSystem& s = systemOf(self);
            const Vector qv = toVector(q, s.nq(), whereOf(self, "constraint_time_derivative"), "q");
            Vector phi_t(s.nc());
            s.constraintTimeDerivative(qv, t, phi_t);
            return toNumpy(phi_t);
          },
          py::arg("q"), py::arg("t") = 0.0, "∂φ/∂t, shape (nc,); zeros for scleronomic constraints.")
      .def(
          "constraint_bias",
          [](py::handle self, py::handle q, py::handle v, double t) {
            const ConstrainedSystem& s = systemOf(self);
            const std::string w = whereOf(self, "constraint_bias");
            const Vector qv = toVector(q, s.nq(), w, "q"), vv = toVector(v, s.nq(), w, "v");
            Vector gamma(s.nc());
            s.constraintBias(qv, vv, t, gamma);
            return toNumpy(gamma);
          },
          py::arg("q"), py::arg("v"), py::arg("t") = 0.0,
          "γ = φ̈ − J q̈ (J̇q̇ for scleronomic φ), shape (nc,).")
      .def(
          "kinetic_energy",
          [](py::handle self, py::handle q, py::handle v) {
            const ConstrainedSystem& s = systemOf(self);
            const std::string w = whereOf(self, "kinetic_energy");
            return s.kineticEnergy(toVector(q, s.nq(), w, "q"), toVector(v, s.nq(), w, "v"));
          },
          py::arg("q"), py::arg("v"), "T = ½ q̇ᵀ M q̇ [J].")
      .def(
          "potential_energy",
          [](py::handle self, py::handle q, double t) {
            const ConstrainedSystem& s = systemOf(self);
            return s.potentialEnergy(toVector(q, s.nq(), whereOf(self, "potential_energy"), "q"), t);
          },
          py::arg("q"), py::arg("t") = 0.0, "V(q, t) of the conservative part of h [J].")
      .def(
          "total_energy",
          [](py::handle self, py::handle q, py::handle v, double t) {
            const ConstrainedSystem& s = systemOf(self);
            const std::string w = whereOf(self, "total_energy");
            return s.totalEnergy(toVector(q, s.nq(), w, "q"), toVector(v, s.nq(), w, "v"), t);
          },
          py::arg("q"), py::arg("v"), py::arg("t") = 0.0, "T + V [J].")
      .def("jacobian_non_zeros", &ConstrainedSystem::jacobianNonZeros,
           "Structural non-zeros of J (0: the model offers no sparse J).")
      .def("__repr__", [](py::handle self) {
        const ConstrainedSystem& s = systemOf(self);
        return "<" + std::string(py::str(py::type::handle_of(self).attr("__name__"))) + " '" + s.name() +
               "' nq=" + std::to_string(s.nq()) + " nc=" + std::to_string(s.nc()) + " nu=" + std::to_string(s.nu()) +
               ">";
      });

  py::class_<DerivativeCheckReport> report(m, "DerivativeCheckReport",
                                           "Largest deviations of a model's J, ∂φ/∂t and γ from central differences.");
  report.def_readonly("jacobian_error", &DerivativeCheckReport::jacobian_error, "max |J − Δφ/Δq|")
      .def_readonly("jacobian_scale", &DerivativeCheckReport::jacobian_scale, "max |J|")
      .def_readonly("time_derivative_error", &DerivativeCheckReport::time_derivative_error, "max |∂φ/∂t − Δφ/Δt|")
      .def_readonly("bias_error", &DerivativeCheckReport::bias_error, "max |γ − Δ(J q̇ + ∂φ/∂t)/Δs| along (q̇, 1)")
      .def_readonly("bias_scale", &DerivativeCheckReport::bias_scale, "max |γ|")
      .def_readonly("mass_asymmetry", &DerivativeCheckReport::mass_asymmetry, "max |M − Mᵀ|")
      .def_readonly("sparse_jacobian_error", &DerivativeCheckReport::sparse_jacobian_error,
                    "max |J − J_sparse| (0 without a sparse J; −1 for a bad pattern)")
      .def("worst_relative_error", &DerivativeCheckReport::worstRelativeError,
           "The worst error divided by max(1, its scale).")
      .def("describe", &DerivativeCheckReport::describe, "The report in one line of words.")
      .def("__repr__", [](const DerivativeCheckReport& r) { return "<DerivativeCheckReport " + r.describe() + ">"; });

  m.def(
      "check_derivatives",
      [](const ConstrainedSystem& system, py::handle q, py::handle v, double t, double relative_step) {
        DerivativeCheckOptions options;
        options.relative_step = relative_step;
        const Vector qv = toVector(q, system.nq(), "check_derivatives", "q");
        const Vector vv = toVector(v, system.nq(), "check_derivatives", "v");
        return checkDerivatives(system, qv, vv, t, options);
      },
      py::arg("system"), py::arg("q"), py::arg("v"), py::arg("t") = 0.0, py::arg("relative_step") = 6e-6,
      "Compares J with ∂φ/∂q, ∂φ/∂t and γ with central finite differences at (q, v, t) (relative_step\n"
      "relative to max(1, |x|)). Works on Python-defined models too. Raises ValueError for wrong sizes.");
}

}  // namespace kktdae::python
