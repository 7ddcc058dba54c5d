// kktdae/contact: joint limits as gaps, the shipped contact problems and the event-driven run with
// its impacts, accumulation time and recording. The library locates and solves; this file only
// translates.
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "arrays.hpp"
#include "binding_helpers.hpp"
#include "bindings.hpp"
#include "field_pickle.hpp"
#include "kktdae/contact/event_driven.hpp"
#include "kktdae/models/contact_problems.hpp"

namespace kktdae::python {
namespace {

using namespace kktdae::contact;

/// A run's summary and what the observer saw, as numpy arrays (one row per observed state; two
/// rows at an impact, with q̇⁻ and q̇⁺).
struct ContactRunResult {
  ContactSummary summary;
  py::array_t<double> t, q, v, lambda_N;
};

ContactRunResult runContact(const ConstrainedSystem& system, const UnilateralConstraints& gaps, const State& initial,
                            const ContactRunOptions& options) {
  std::vector<double> t, q, v, lambda_N;
  const ContactSummary summary = simulateContact(
      system, gaps, initial, options,
      [&](double time, ConstVectorRef qs, ConstVectorRef vs, ConstVectorRef, ConstVectorRef ln) {
        t.push_back(time);
        q.insert(q.end(), qs.data(), qs.data() + qs.size());
        v.insert(v.end(), vs.data(), vs.data() + vs.size());
        lambda_N.insert(lambda_N.end(), ln.data(), ln.data() + ln.size());
      });
  const auto n = static_cast<py::ssize_t>(t.size());
  ContactRunResult result;
  result.summary = summary;
  result.t = adopt(std::move(t), {n});
  result.q = adopt(std::move(q), {n, system.nq()});
  result.v = adopt(std::move(v), {n, system.nq()});
  result.lambda_N = adopt(std::move(lambda_N), {n, gaps.ng()});
  return result;
}

/// An array field of the result, pickled as the array itself (restored as a float64 array).
PickledField<ContactRunResult> pickledArray(std::string name, py::array_t<double> ContactRunResult::*member) {
  const std::string where = "ContactRunResult." + name;
  return {std::move(name), [member](const ContactRunResult& self) { return py::object(self.*member); },
          [member, where](ContactRunResult& self, py::handle value) {
            self.*member = py::reinterpret_borrow<py::array_t<double>>(realArray(value, where, "value"));
          }};
}

}  // namespace

void bindContact(py::module_& m) {
  py::class_<UnilateralConstraints> gaps(m, "UnilateralConstraints",
                                         "Gaps g(q, t) ≥ 0 beside a model's equalities (push, never pull).");
  gaps.def("ng", &UnilateralConstraints::ng, "Number of gaps.")
      .def("gap_name", &UnilateralConstraints::gapName, py::arg("k"), "The name of gap k.")
      .def("restitution", &UnilateralConstraints::restitution, py::arg("k"), "Newton's restitution e_k ∈ [0, 1].")
      .def(
          "gap",
          [](const UnilateralConstraints& self, py::handle q, double t) {
            const Vector qv = toVector(q, realArray(q, "UnilateralConstraints.gap", "q").size(), "UnilateralConstraints.gap", "q");
            Vector g(self.ng());
            self.gap(qv, t, g);
            return toNumpy(g);
          },
          py::arg("q"), py::arg("t") = 0.0, "g(q, t), shape (ng,).");

  py::class_<JointLimit> limit(m, "JointLimit", "A bound c·q ≥ bound (lower) or c·q ≤ bound (upper) as a gap.");
  limit.def_static("lower", &JointLimit::lower, py::arg("name"), py::arg("i"), py::arg("a"), py::arg("e"), "q_i ≥ a.")
      .def_static("upper_bound", &JointLimit::upperBound, py::arg("name"), py::arg("i"), py::arg("b"), py::arg("e"),
                  "q_i ≤ b.")
      .def_readonly("name", &JointLimit::name)
      .def_readonly("bound", &JointLimit::bound)
      .def_readonly("upper", &JointLimit::upper)
      .def_readonly("restitution", &JointLimit::restitution);
  py::class_<JointLimits, UnilateralConstraints>(m, "JointLimits", "Joint limits as gaps (constant Jacobian rows).")
      .def(py::init<int, std::vector<JointLimit>>(), py::arg("nq"), py::arg("limits"),
           "Raises ValueError naming a limit with a bad index, coefficients or restitution.");

  py::class_<ContactRunOptions> run_options(m, "ContactRunOptions", "Options of simulate_contact (docs/contact.md).");
  defKeywordInit(run_options);
  run_options.def_readwrite("integrator", &ContactRunOptions::integrator, "Only rk4 so far; others are refused by name.")
      .def_readwrite("dt", &ContactRunOptions::dt, "Step between events [s].")
      .def_readwrite("end_time", &ContactRunOptions::end_time, "The run ends here [s].")
      .def_readwrite("time_tolerance", &ContactRunOptions::time_tolerance, "Bracket width of a located event [s], ≤ 1e-13.")
      .def_readwrite("gap_tolerance", &ContactRunOptions::gap_tolerance, "A gap within this of zero is closed.")
      .def_readwrite("velocity_tolerance", &ContactRunOptions::velocity_tolerance,
                     "A closed gap slower than this after an impact may stay in contact.")
      .def_readwrite("zeno_horizon", &ContactRunOptions::zeno_horizon,
                     "Extrapolated time left below which impacts are an accumulation [s].")
      .def_readwrite("max_impacts", &ContactRunOptions::max_impacts, "Stop with a failure after this many impacts.")
      .def("validate", &ContactRunOptions::validate, "Raises ValueError naming the bad field.");
  defRepr(run_options, {"integrator", "dt", "end_time", "time_tolerance", "zeno_horizon"});

  py::class_<ImpactRecord> impact(m, "ImpactRecord", "One impact of one gap (speeds along its normal).");
  impact.def_readonly("t", &ImpactRecord::t)
      .def_readonly("contact", &ImpactRecord::contact, "The gap's index.")
      .def_readonly("name", &ImpactRecord::name)
      .def_readonly("v_minus", &ImpactRecord::v_minus, "Approach speed −ġ⁻.")
      .def_readonly("v_plus", &ImpactRecord::v_plus, "Separation speed ġ⁺.")
      .def_readonly("impulse", &ImpactRecord::impulse)
      .def_readonly("kinetic_energy_loss", &ImpactRecord::kinetic_energy_loss)
      .def_readonly("restitution", &ImpactRecord::restitution)
      .def_readonly("effective_mass", &ImpactRecord::effective_mass)
      .def_readonly("closed_form_loss", &ImpactRecord::closed_form_loss);
  py::class_<ContactTransition> transition(m, "ContactTransition", "A gap entering persistent contact or lifting off.");
  transition.def_readonly("t", &ContactTransition::t)
      .def_readonly("contact", &ContactTransition::contact)
      .def_readonly("name", &ContactTransition::name)
      .def_readonly("kind", &ContactTransition::kind, "'persistent' or 'lift_off'.");
  py::class_<ContactSummary> summary(m, "ContactSummary", "How an event-driven contact run went.");
  summary.def_readonly("status", &ContactSummary::status)
      .def_readonly("message", &ContactSummary::message)
      .def_readonly("steps", &ContactSummary::steps)
      .def_readonly("acceleration_solves", &ContactSummary::acceleration_solves)
      .def_readonly("lcp_solves", &ContactSummary::lcp_solves)
      .def_readonly("root_searches", &ContactSummary::root_searches)
      .def_readonly("root_trials", &ContactSummary::root_trials, "Trial steps of the root searches.")
      .def_readonly("impacts", &ContactSummary::impacts)
      .def_readonly("transitions", &ContactSummary::transitions)
      .def_readonly("zeno_time", &ContactSummary::zeno_time, "The extrapolated accumulation time [s], or None.")
      .def_readonly("zeno_contact", &ContactSummary::zeno_contact)
      .def_readonly("max_complementarity_residual", &ContactSummary::max_complementarity_residual)
      .def_readonly("max_phi_inf", &ContactSummary::max_phi_inf)
      .def_readonly("t_final", &ContactSummary::t_final)
      .def_readonly("wall_seconds", &ContactSummary::wall_seconds)
      .def_property_readonly("ok", &ContactSummary::ok, "status == RunStatus.SUCCESS")
      .def("brief_report", &ContactSummary::briefReport)
      .def("__repr__", [](const ContactSummary& s) { return "<ContactSummary " + s.briefReport() + ">"; });
  py::class_<ContactRunResult> result(m, "ContactRunResult", "The summary and the observed states (two rows at an impact).");
  result.def_readonly("summary", &ContactRunResult::summary)
      .def_readonly("t", &ContactRunResult::t, "shape (n,)")
      .def_readonly("q", &ContactRunResult::q, "shape (n, nq)")
      .def_readonly("v", &ContactRunResult::v, "shape (n, nq)")
      .def_readonly("lambda_N", &ContactRunResult::lambda_N, "contact forces, shape (n, ng)");
  // pickle, copy and deepcopy of what a contact run returns (multiprocessing sends results back
  // so): every field.
  defFieldTablePickle(impact, {pickledField("t", &ImpactRecord::t), pickledField("contact", &ImpactRecord::contact),
                               pickledField("name", &ImpactRecord::name),
                               pickledField("v_minus", &ImpactRecord::v_minus),
                               pickledField("v_plus", &ImpactRecord::v_plus),
                               pickledField("impulse", &ImpactRecord::impulse),
                               pickledField("kinetic_energy_loss", &ImpactRecord::kinetic_energy_loss),
                               pickledField("restitution", &ImpactRecord::restitution),
                               pickledField("effective_mass", &ImpactRecord::effective_mass),
                               pickledField("closed_form_loss", &ImpactRecord::closed_form_loss)});
  defFieldTablePickle(transition, {pickledField("t", &ContactTransition::t),
                                   pickledField("contact", &ContactTransition::contact),
                                   pickledField("name", &ContactTransition::name),
                                   pickledField("kind", &ContactTransition::kind)});
  defFieldTablePickle(
      summary, {pickledField("status", &ContactSummary::status), pickledField("message", &ContactSummary::message),
                pickledField("steps", &ContactSummary::steps),
                pickledField("acceleration_solves", &ContactSummary::acceleration_solves),
                pickledField("lcp_solves", &ContactSummary::lcp_solves),
                pickledField("root_searches", &ContactSummary::root_searches),
                pickledField("root_trials", &ContactSummary::root_trials),
                pickledField("impacts", &ContactSummary::impacts),
                pickledField("transitions", &ContactSummary::transitions),
                pickledField("zeno_time", &ContactSummary::zeno_time),
                pickledField("zeno_contact", &ContactSummary::zeno_contact),
                pickledField("max_complementarity_residual", &ContactSummary::max_complementarity_residual),
                pickledField("max_phi_inf", &ContactSummary::max_phi_inf),
                pickledField("t_final", &ContactSummary::t_final),
                pickledField("wall_seconds", &ContactSummary::wall_seconds)});
  defFieldTablePickle(result, {pickledField("summary", &ContactRunResult::summary),
                               pickledArray("t", &ContactRunResult::t), pickledArray("q", &ContactRunResult::q),
                               pickledArray("v", &ContactRunResult::v),
                               pickledArray("lambda_N", &ContactRunResult::lambda_N)});

  // The shipped problems own their model: Python sees the problem, its gaps and its start.
  py::class_<ContactProblem>(m, "ContactProblem", "A shipped model with gaps and its start (docs/contact.md).")
      .def_readonly("name", &ContactProblem::name)
      .def_readonly("initial", &ContactProblem::initial)
      .def_property_readonly("gaps", [](const ContactProblem& p) { return p.gaps.get(); },
                             py::return_value_policy::reference_internal)
      .def_property_readonly("nq", [](const ContactProblem& p) { return p.system->nq(); });
  m.def("contact_problem", &contactProblem, py::arg("name"),
        "'ball', 'impact_pendulum' or 'limited_chain' with its defaults; ValueError otherwise.");
  m.def(
      "simulate_contact",
      [](const ContactProblem& problem, const ContactRunOptions& options) {
        return runContact(*problem.system, *problem.gaps, problem.initial, options);
      },
      py::arg("problem"), py::arg("options") = ContactRunOptions{},
      "Runs a shipped problem event-driven; raises ValueError for bad options.");
  m.def("simulate_contact", &runContact, py::arg("system"), py::arg("gaps"), py::arg("initial"),
        py::arg("options") = ContactRunOptions{},
        "Runs a model with gaps event-driven from `initial`; ValueError for bad options, gaps or a penetrating start.");
}

}  // namespace kktdae::python
