// kktdae/integrators: the Integrator vocabulary (members made from allIntegrators(), so a new
// integrator reaches Python without an edit here), the SUNDIALS options and the options of the
// implicit fixed-step methods (RATTLE, generalized-α / HHT).
#include <pybind11/stl.h>

#include "arrays.hpp"
#include "binding_helpers.hpp"
#include "bindings.hpp"
#include "kktdae/integrators/adaptive_options.hpp"
#include "kktdae/integrators/generalized_alpha_options.hpp"
#include "kktdae/integrators/integrator.hpp"
#include "kktdae/integrators/rattle_options.hpp"

namespace kktdae::python {
namespace {

void bindImplicitFixedStepOptions(py::module_& m) {
  py::class_<RattleOptions> rattle(m, "RattleOptions", "The position Newton of Integrator.RATTLE.");
  defKeywordInit(rattle);
  rattle.def_readwrite("newton_tolerance", &RattleOptions::newton_tolerance, "stop when ‖φ(qₙ₊₁)‖∞ ≤ this (> 0)")
      .def_readwrite("newton_max_iterations", &RattleOptions::newton_max_iterations,
                     "iterations allowed per step (≥ 1); more fails the run")
      .def("validate", &RattleOptions::validate, "Raises ValueError naming the bad field and value.");
  defRepr(rattle, {"newton_tolerance", "newton_max_iterations"});

  py::enum_<JacobianReuse> reuse(m, "JacobianReuse",
                                 "When generalized-α rebuilds its Newton matrix: EVERY_ITERATION (full Newton),\n"
                                 "EVERY_STEP (at the predictor) or UNTIL_SLOW (kept while Newton contracts fast).");
  addNamedValues(reuse, std::vector<JacobianReuse>{JacobianReuse::EveryIteration, JacobianReuse::EveryStep,
                                                    JacobianReuse::UntilSlow});

  py::enum_<IterationMatrix> matrix(m, "IterationMatrix",
                                    "How generalized-α stores and factorizes its Newton matrix: AUTO (sparse KLU when\n"
                                    "the model allows it and is large enough), DENSE (LU, any model) or SPARSE (KLU).");
  addNamedValues(matrix, std::vector<IterationMatrix>{IterationMatrix::Auto, IterationMatrix::Dense,
                                                      IterationMatrix::Sparse});

  py::class_<GeneralizedAlphaOptions> galpha(
      m, "GeneralizedAlphaOptions",
      "ρ∞ of Integrator.GENERALIZED_ALPHA, α of Integrator.HHT and their per-step Newton (docs/integrators.md).");
  defKeywordInit(galpha);
  galpha.def_readwrite("rho_inf", &GeneralizedAlphaOptions::rho_inf,
                       "spectral radius at infinite frequency in [0, 1] (1: no numerical damping)")
      .def_readwrite("hht_alpha", &GeneralizedAlphaOptions::hht_alpha, "HHT's α in [−1/3, 0] (0: the trapezoidal rule)")
      .def_readwrite("newton_tolerance", &GeneralizedAlphaOptions::newton_tolerance,
                     "scaled residual (position units) at which Newton stops (> 0)")
      .def_readwrite("newton_max_iterations", &GeneralizedAlphaOptions::newton_max_iterations,
                     "iterations allowed per step (≥ 1)")
      .def_readwrite("jacobian_reuse", &GeneralizedAlphaOptions::jacobian_reuse, "JacobianReuse (or its label)")
      .def_readwrite("slow_convergence_ratio", &GeneralizedAlphaOptions::slow_convergence_ratio,
                     "UNTIL_SLOW: the contraction ratio in (0, 1) above which the matrix is rebuilt")
      .def_readwrite("max_step_halvings", &GeneralizedAlphaOptions::max_step_halvings,
                     "times a step whose Newton fails may be split in halves (0: the run fails at once)")
      .def_readwrite("iteration_matrix", &GeneralizedAlphaOptions::iteration_matrix,
                     "IterationMatrix (or its label): dense LU or sparse KLU of the Newton matrix")
      .def("validate", &GeneralizedAlphaOptions::validate, "Raises ValueError naming the bad field and value.");
  defRepr(galpha, {"rho_inf", "hht_alpha", "newton_tolerance", "newton_max_iterations", "jacobian_reuse",
                   "slow_convergence_ratio", "max_step_halvings", "iteration_matrix"});

  py::class_<GeneralizedAlphaParameters> parameters(m, "GeneralizedAlphaParameters",
                                                    "α_m, α_f, β, γ of one generalized-α step.");
  parameters.def_readonly("alpha_m", &GeneralizedAlphaParameters::alpha_m)
      .def_readonly("alpha_f", &GeneralizedAlphaParameters::alpha_f)
      .def_readonly("beta", &GeneralizedAlphaParameters::beta)
      .def_readonly("gamma", &GeneralizedAlphaParameters::gamma);
  defRepr(parameters, {"alpha_m", "alpha_f", "beta", "gamma"});
  m.def("chung_hulbert_parameters", &chungHulbertParameters, py::arg("rho_inf"),
        "Chung–Hulbert's α_m, α_f, β, γ for ρ∞ ∈ [0, 1]; raises ValueError outside.");
  m.def("hht_parameters", &hhtParameters, py::arg("alpha"), "HHT-α's α_m = 0, α_f = −α, β, γ for α ∈ [−1/3, 0].");
}

}  // namespace

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

  py::enum_<NewtonMatrix> newton_matrix(m, "NewtonMatrix",
                                         "Where the dense Newton matrix of cvode_bdf and ida_* comes from: ANALYTIC (the\n"
                                         "model's derivatives) or DIFFERENCE_QUOTIENT (SUNDIALS' own, one call per column).");
  addNamedValues(newton_matrix, valuesUntilUnknown<NewtonMatrix>());

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
      .def_readwrite("newton_matrix", &AdaptiveOptions::newton_matrix,
                     "NewtonMatrix of the dense Newton matrix (ANALYTIC falls back for soft constraints)")
      .def_readwrite("krylov_dimension", &AdaptiveOptions::krylov_dimension, "SPGMR's maxl")
      .def("validate", &AdaptiveOptions::validate, py::arg("nq"), "Raises ValueError naming the bad field.");
  defRepr(adaptive, {"rtol", "atol", "max_step", "max_steps", "initial_step", "stop_at_outputs", "linear_solver",
                     "newton_matrix"});

  bindImplicitFixedStepOptions(m);
}

}  // namespace kktdae::python
