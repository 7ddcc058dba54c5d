// kktdae/kkt: the acceleration solve's options, its result and the solve itself.
#include "arrays.hpp"
#include "binding_helpers.hpp"
#include "bindings.hpp"
#include "kktdae/kkt/kkt_options.hpp"
#include "kktdae/kkt/kkt_result.hpp"
#include "kktdae/kkt/kkt_workspace.hpp"
#include "kktdae/kkt/solve_accelerations.hpp"

namespace kktdae::python {
namespace {

/// What solve_kkt returns: the result's status and, on success, q̈ and λ with the constraint
/// quantities at the solved state (copies out of the workspace).
struct KktSolution {
  KktResult result;
  py::object qdd, lambda, phi, phi_dot, gamma, jacobian;
};

}  // namespace

void bindKkt(py::module_& m) {
  py::enum_<KktForm> form(m, "KktForm", "Which linear system is factorized for (q̈, λ).");
  addNamedValues(form, std::vector<KktForm>{KktForm::Schur, KktForm::Block});
  py::enum_<KktPath> path(m, "KktPath", "Dense or sparse linear algebra for the solve.");
  addNamedValues(path, valuesUntilUnknown<KktPath>());
  py::enum_<RankDeficiencyPolicy> policy(m, "RankDeficiencyPolicy",
                                         "What a solve does when J M⁻¹ Jᵀ is singular or too ill-conditioned.");
  addNamedValues(policy, valuesUntilUnknown<RankDeficiencyPolicy>());
  py::enum_<KktStatus> status(m, "KktStatus", "Outcome of one acceleration solve.");
  addNamedValues(status, valuesUntilUnknown<KktStatus>());

  py::class_<KktOptions> options_class(m, "KktOptions", "Options of the acceleration (KKT) solve.");
  defKeywordInit(options_class);
  options_class.def_readwrite("form", &KktOptions::form, "KktForm.SCHUR (J M⁻¹ Jᵀ) or KktForm.BLOCK ([M −Jᵀ; J 0]).")
      .def_readwrite("min_rcond", &KktOptions::min_rcond, "A solve with reciprocal condition below this fails.")
      .def_readwrite("estimate_condition", &KktOptions::estimate_condition, "Estimate rcond on every solve.")
      .def_readwrite("rank_deficiency", &KktOptions::rank_deficiency, "RankDeficiencyPolicy when singular.")
      .def_readwrite("rank_tolerance", &KktOptions::rank_tolerance, "MINIMUM_NORM's relative rank threshold.")
      .def_readwrite("regularization", &KktOptions::regularization, "REGULARIZE's ε relative to max diag(J M⁻¹ Jᵀ).")
      .def_readwrite("path", &KktOptions::path, "KktPath: AUTO decides by the model and sparse_min_coordinates.")
      .def_readwrite("sparse_min_coordinates", &KktOptions::sparse_min_coordinates, "AUTO's crossover nq.")
      .def("validate", &KktOptions::validate, "Raises ValueError naming the bad field.");
  defRepr(options_class, {"form", "path", "min_rcond", "estimate_condition", "rank_deficiency", "rank_tolerance",
                    "regularization", "sparse_min_coordinates"});

  py::class_<KktSolution> solution(m, "KktSolution", "q̈ and λ of one solve, with its status and the constraint terms.");
  solution.def_property_readonly("status", [](const KktSolution& s) { return s.result.status; }, "KktStatus.")
      .def_property_readonly("ok", [](const KktSolution& s) { return s.result.ok(); }, "status == KktStatus.OK")
      .def_property_readonly("rcond", [](const KktSolution& s) { return s.result.rcond; },
                             "Reciprocal condition estimate of the factorized matrix.")
      .def_property_readonly("message", [](const KktSolution& s) { return s.result.message; }, "Why it failed.")
      .def_property_readonly("offending_rows", [](const KktSolution& s) { return py::cast(s.result.offending_rows); },
                             "Dependent or non-finite constraint rows, on failure.")
      .def_property_readonly("rank_deficient", [](const KktSolution& s) { return s.result.rank_deficient; })
      .def_readonly("qdd", &KktSolution::qdd, "q̈, shape (nq,).")
      .def_readonly("lam", &KktSolution::lambda, "λ, shape (nc,).")
      .def_readonly("phi", &KktSolution::phi, "φ at the state, shape (nc,).")
      .def_readonly("phi_dot", &KktSolution::phi_dot, "J q̇ + ∂φ/∂t, shape (nc,).")
      .def_readonly("gamma", &KktSolution::gamma, "γ, shape (nc,).")
      .def_readonly("jacobian", &KktSolution::jacobian, "J, shape (nc, nq).")
      .def("__repr__", [](const KktSolution& s) {
        return "<KktSolution " + std::string(toString(s.result.status)) +
               (s.result.ok() ? "" : ": " + s.result.message) + ">";
      });

  m.def(
      "solve_kkt",
      [](const ConstrainedSystem& system, py::handle q, py::handle v, double t, py::handle u,
         const Stabilization& stabilization, const KktOptions& options) {
        const Vector qv = toVector(q, system.nq(), "solve_kkt", "q");
        const Vector vv = toVector(v, system.nq(), "solve_kkt", "v");
        const Vector uv = u.is_none() ? Vector::Zero(system.nu()) : toVector(u, system.nu(), "solve_kkt", "u");
        options.validate();
        stabilization.validate();
        KktWorkspace ws(system, options);
        KktSolution out;
        out.result = solveAccelerations(system, t, qv, vv, uv, stabilization, options, ws);
        out.qdd = toNumpy(ws.qdd);
        out.lambda = toNumpy(ws.lambda);
        out.phi = toNumpy(ws.phi);
        out.phi_dot = toNumpy(ws.phi_dot);
        out.gamma = toNumpy(ws.gamma);
        out.jacobian = toNumpy(ws.jacobian());
        return out;
      },
      py::arg("system"), py::arg("q"), py::arg("v"), py::arg("t") = 0.0, py::arg("u") = py::none(),
      py::arg("stabilization") = Stabilization::none(), py::arg("options") = KktOptions{},
      "Solves M q̈ + h = Sᵀu + Jᵀλ with J q̈ + γ + 2α φ̇ + β² φ = 0 for (q̈, λ) at (t, q, v) in the form\n"
      "options.form selects. Numerical trouble comes back as a KktSolution with a failed status, never NaN\n"
      "as success. Raises ValueError for wrong sizes or invalid options.");
}

}  // namespace kktdae::python
