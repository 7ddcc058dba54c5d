// kktdae/stabilization: Baumgarte and soft constraints, projection, the gain guidance and the
// stability limits of the discrete error dynamics.
#include <pybind11/stl.h>

#include <optional>

#include "arrays.hpp"
#include "binding_helpers.hpp"
#include "bindings.hpp"
#include "kktdae/stabilization/baumgarte_guidance.hpp"
#include "kktdae/stabilization/error_dynamics.hpp"
#include "kktdae/stabilization/projection.hpp"
#include "kktdae/stabilization/stabilization.hpp"

namespace kktdae::python {

void bindStabilization(py::module_& m) {
  py::class_<SoftConstraint> soft(m, "SoftConstraint", "MuJoCo's solref (timeconst, dampratio) and solimp parameters.");
  defKeywordInit(soft);
  soft.def_readwrite("timeconst", &SoftConstraint::timeconst, "τ > 0 [s]")
      .def_readwrite("dampratio", &SoftConstraint::dampratio, "ζ > 0")
      .def_readwrite("dmin", &SoftConstraint::dmin, "impedance at zero violation, in (0, 1)")
      .def_readwrite("dmax", &SoftConstraint::dmax, "impedance at |φ| ≥ width, in (0, 1)")
      .def_readwrite("width", &SoftConstraint::width, "violation over which d goes from dmin to dmax")
      .def_readwrite("midpoint", &SoftConstraint::midpoint, "inflection of the sigmoid, in (0, 1)")
      .def_readwrite("power", &SoftConstraint::power, "sigmoid power ≥ 1")
      .def("impedance", &SoftConstraint::impedance, py::arg("violation"), "d(|φ|) ∈ [dmin, dmax].")
      .def("validate", &SoftConstraint::validate, "Raises ValueError naming the bad field.");
  defRepr(soft, {"timeconst", "dampratio", "dmin", "dmax", "width", "midpoint", "power"});

  py::class_<Stabilization> stab(m, "Stabilization",
                                 "The constraint row J q̈ + γ + 2α φ̇ + β² φ = 0 (or a soft constraint), and whether\n"
                                 "to project after every step. Build one with the static constructors.");
  py::enum_<Stabilization::Kind>(stab, "Kind", "NONE, BAUMGARTE or SOFT.")
      .value("NONE", Stabilization::Kind::None)
      .value("BAUMGARTE", Stabilization::Kind::Baumgarte)
      .value("SOFT", Stabilization::Kind::Soft);
  defKeywordInit(stab);
  stab.def_readwrite("kind", &Stabilization::kind)
      .def_readwrite("alpha", &Stabilization::alpha, "α ≥ 0 [1/s]")
      .def_readwrite("beta", &Stabilization::beta, "β ≥ 0 [rad/s]")
      .def_readwrite("soft", &Stabilization::soft, "SoftConstraint, used when kind is SOFT")
      .def_readwrite("project_after_step", &Stabilization::project_after_step,
                     "Project q onto φ = 0 and q̇ onto φ̇ = 0 after every step.")
      .def_static("none", &Stabilization::none, "No correction.")
      .def_static("baumgarte", &Stabilization::baumgarte, py::arg("alpha"), py::arg("beta"), "Baumgarte with (α, β).")
      .def_static("from_damping_ratio", &Stabilization::fromDampingRatio, py::arg("zeta"), py::arg("omega_n"),
                  "α = ζ ωₙ, β = ωₙ.")
      .def_static("critical", &Stabilization::critical, py::arg("omega"), "Seed 000's gain ω: α = β = ω.")
      .def_static("projection", &Stabilization::projection, "No feedback, projection after every step.")
      .def_static("soft_constraint", &Stabilization::softConstraint, py::arg("parameters") = SoftConstraint{},
                  "MuJoCo-style soft constraints.")
      .def("validate", &Stabilization::validate, "Raises ValueError naming the bad field.")
      .def("describe", &Stabilization::describe, "'none', 'baumgarte(alpha=…, beta=…)', …")
      .def("__repr__", [](const Stabilization& s) { return "Stabilization(" + s.describe() + ")"; });

  py::class_<ProjectionOptions> popt(m, "ProjectionOptions", "Gauss–Newton iterations and tolerance of a projection.");
  defKeywordInit(popt);
  popt.def_readwrite("max_iterations", &ProjectionOptions::max_iterations, "≥ 1")
      .def_readwrite("tolerance", &ProjectionOptions::tolerance, "converged when ‖φ‖∞ ≤ tolerance")
      .def("validate", &ProjectionOptions::validate, "Raises ValueError naming the bad field.");
  defRepr(popt, {"max_iterations", "tolerance"});

  py::class_<ProjectionReport> report_class(m, "ProjectionReport", "What project_to_manifold did.");
  report_class.def_readonly("converged", &ProjectionReport::converged)
      .def_readonly("roundoff_limited", &ProjectionReport::roundoff_limited)
      .def_readonly("iterations", &ProjectionReport::iterations)
      .def_readonly("position_correction", &ProjectionReport::position_correction, "‖Δq‖∞")
      .def_readonly("velocity_correction", &ProjectionReport::velocity_correction, "‖Δq̇‖∞")
      .def_readonly("phi_before", &ProjectionReport::phi_before)
      .def_readonly("phi_after", &ProjectionReport::phi_after)
      .def_readonly("phi_dot_before", &ProjectionReport::phi_dot_before)
      .def_readonly("phi_dot_after", &ProjectionReport::phi_dot_after)
      .def_readonly("message", &ProjectionReport::message, "Why it failed; empty on success.");
  defRepr(report_class, {"converged", "iterations", "phi_before", "phi_after", "phi_dot_after", "message"});

  m.def(
      "project_to_manifold",
      [](const ConstrainedSystem& system, const State& state, const ProjectionOptions& options) {
        if (state.q.size() != system.nq() || state.v.size() != system.nq()) {
          throw py::value_error("project_to_manifold: state.q and state.v must have shape (" +
                                std::to_string(system.nq()) + ",), got (" + std::to_string(state.q.size()) + ",) and (" +
                                std::to_string(state.v.size()) + ",)");
        }
        options.validate();
        State projected = state;
        ProjectionReport report = projectToManifold(system, projected, options);
        return py::make_tuple(projected, report);
      },
      py::arg("system"), py::arg("state"), py::arg("options") = ProjectionOptions{},
      "Projects q onto φ(q, t) = 0 by Gauss–Newton in the mass metric, then q̇ onto J q̇ = −∂φ/∂t.\n"
      "Returns (projected_state, report); on failure the returned state is the input and the report says why.");

  py::class_<BaumgarteRecommendation> rec(m, "BaumgarteRecommendation", "Gains recommend_baumgarte chose and why.");
  rec.def_readonly("stabilization", &BaumgarteRecommendation::stabilization)
      .def_readonly("omega", &BaumgarteRecommendation::omega, "ω [rad/s]")
      .def_readonly("dt_omega", &BaumgarteRecommendation::dt_omega)
      .def_readonly("dt_omega_limit", &BaumgarteRecommendation::dt_omega_limit)
      .def_readonly("reasoning", &BaumgarteRecommendation::reasoning);
  defRepr(rec, {"omega", "dt_omega", "dt_omega_limit", "reasoning"});
  py::class_<BaumgarteGuidanceOptions> guidance(m, "BaumgarteGuidanceOptions",
                                                "What recommend_baumgarte weighs: ζ, the safety fraction, and for\n"
                                                "adaptive integrators the motion's rate and mean step.");
  defKeywordInit(guidance);
  guidance.def_readwrite("zeta", &BaumgarteGuidanceOptions::zeta, "damping ratio ζ ≥ 0 of the error dynamics")
      .def_readwrite("safety", &BaumgarteGuidanceOptions::safety,
                     "fraction of the stability limit in (0, 1); 0: the integrator's default")
      .def_readwrite("motion_rate", &BaumgarteGuidanceOptions::motion_rate,
                     "adaptive integrators (required > 0): the motion's own rate Ω [rad/s]")
      .def_readwrite("mean_step", &BaumgarteGuidanceOptions::mean_step,
                     "adaptive integrators: mean step without feedback [s]; 0: unknown, no stiffness cap")
      .def_readwrite("horizon", &BaumgarteGuidanceOptions::horizon,
                     "adaptive integrators: the run's length [s]; ida_index1 then takes ω·h̄ = "
                     "IDA_INDEX1_OMEGA_STEP_PER_RADIAN·Ω·horizon (capped); 0: unknown")
      .def_readwrite("measured_limit", &BaumgarteGuidanceOptions::measured_limit,
                     "fixed-step integrators: a measured limit of dt·ω; 0: the linear model's closed form")
      .def("validate", &BaumgarteGuidanceOptions::validate, "Raises ValueError naming the bad field.");
  defRepr(guidance, {"zeta", "safety", "motion_rate", "mean_step", "horizon", "measured_limit"});
  m.attr("IDA_INDEX1_OMEGA_STEP_PER_RADIAN") = kIdaIndex1OmegaStepPerRadian;
  m.def(
      "recommend_baumgarte",
      [](Integrator integrator, double dt, std::optional<double> zeta, std::optional<double> safety,
         std::optional<double> motion_rate, std::optional<double> mean_step, std::optional<double> horizon,
         std::optional<double> measured_limit, std::optional<BaumgarteGuidanceOptions> options) {
        BaumgarteGuidanceOptions used = options.value_or(BaumgarteGuidanceOptions{});
        if (zeta) used.zeta = *zeta;
        if (safety) used.safety = *safety;
        if (motion_rate) used.motion_rate = *motion_rate;
        if (mean_step) used.mean_step = *mean_step;
        if (horizon) used.horizon = *horizon;
        if (measured_limit) used.measured_limit = *measured_limit;
        return recommendBaumgarte(integrator, dt, used);
      },
      py::arg("integrator"), py::arg("dt"), py::arg("zeta") = py::none(), py::arg("safety") = py::none(),
      py::kw_only(), py::arg("motion_rate") = py::none(), py::arg("mean_step") = py::none(),
      py::arg("horizon") = py::none(), py::arg("measured_limit") = py::none(), py::arg("options") = py::none(),
      "Baumgarte gains for `integrator` at step dt: fixed-step ones from the discrete stability limit (safety 0:\n"
      "the integrator's default fraction of it, or of measured_limit), adaptive ones (cvode_*, ida_index1) from\n"
      "motion_rate, capped by mean_step (ida_index1: from mean_step, and from motion_rate and horizon when given).\n"
      "Each keyword given overrides the same field of `options`\n"
      "(a BaumgarteGuidanceOptions; default-constructed when None). Raises ValueError for ida_ggl, rattle,\n"
      "generalized_alpha and hht (no gain), an adaptive integrator without motion_rate, dt ≤ 0 or invalid options.");
  m.def("adaptive_stiffness_cap", &adaptiveStiffnessCap, py::arg("integrator"),
        "The ω·h above which an adaptive integrator's work grows with ω (recommend_baumgarte caps ω at it over\n"
        "mean_step); raises ValueError for integrators without an adaptive Baumgarte gain.");
  m.def("baumgarte_stability_limit", &baumgarteStabilityLimit, py::arg("integrator"), py::arg("zeta"),
        "The largest dt·ω for which the discrete Baumgarte error dynamics stay stable under `integrator`.");
  m.def("error_step_spectral_radius", &errorStepSpectralRadius, py::arg("integrator"), py::arg("dt"),
        py::arg("alpha"), py::arg("beta"), "Spectral radius of one step's map of (e, ė): < 1 decays.");
  m.def(
      "error_step_matrix",
      [](Integrator integrator, double dt, double alpha, double beta) {
        return toNumpy(Matrix(errorStepMatrix(integrator, dt, alpha, beta)));
      },
      py::arg("integrator"), py::arg("dt"), py::arg("alpha"), py::arg("beta"),
      "The 2×2 matrix one fixed step applies to (e, ė) on a linear constraint.");
  m.def(
      "baumgarte_error_at",
      [](double alpha, double beta, double e0, double e_dot0, double t) {
        const ErrorValue value = baumgarteErrorAt(alpha, beta, e0, e_dot0, t);
        return py::make_tuple(value.e, value.e_dot);
      },
      py::arg("alpha"), py::arg("beta"), py::arg("e0"), py::arg("e_dot0"), py::arg("t"),
      "(e, ė) at t of ë + 2αė + β²e = 0 from (e0, ė0), in closed form.");
}

}  // namespace kktdae::python
