// ParameterSelection and SensitivityOptions::parameters: some of a model's parameters by name.
// The selection's derivatives are the model's columns; a run asked for a subset gives the
// full run's columns (to the runs' tolerance: IDAS's error test sees other columns), with the
// integrand still called with the model's whole p.
#include <catch2/catch.hpp>

#include <memory>

#include "kktdae/models/spring_chain.hpp"
#include "kktdae/sensitivity/parameter_selection.hpp"
#include "kktdae/sensitivity/sensitivity.hpp"

using namespace kktdae;
using Catch::Contains;

namespace {

SpringChain selectionChain() {
  SpringChainParams params;
  params.chain.masses = {1.0, 1.5};
  params.chain.lengths = {0.6, 0.5};
  params.joint_stiffness = 8.0;
  params.joint_damping = 0.3;
  return SpringChain(params);
}

}  // namespace

TEST_CASE("parameter selection: names, values, shifted models and derivatives are the model's chosen columns",
          "[sensitivity]") {
  const SpringChain chain = selectionChain();  // masses[0], masses[1], gravity, k, c, lengths[0], lengths[1]
  const ParameterSelection chosen(chain, {"lengths[1]", "joint_damping", "masses[0]"});
  CHECK(chosen.np() == 3);
  CHECK(chosen.parameterNames() == std::vector<std::string>{"lengths[1]", "joint_damping", "masses[0]"});
  CHECK(chosen.modelIndices() == std::vector<int>{6, 4, 0});
  CHECK(chosen.parameterValues() == Eigen::Vector3d(0.5, 0.3, 1.0));
  CHECK(chosen.name() == chain.name());
  CHECK(chosen.constraintsDependOnParameters());

  const auto shifted = chosen.withParameterValues(Eigen::Vector3d(0.55, 0.0, 2.0));
  CHECK(shifted->parameterValues() == Eigen::Vector3d(0.55, 0.0, 2.0));
  const auto& shifted_selection = dynamic_cast<const ParameterSelection&>(*shifted);
  CHECK(shifted_selection.model().parameterValues() ==
        (Vector(7) << 2.0, 1.5, 9.81, 8.0, 0.0, 0.6, 0.55).finished());

  const State start = chain.initialState(0.4);
  const int nq = chain.nq(), nc = chain.nc();
  const Vector v = Vector::LinSpaced(nq, -1.0, 1.0), a = Vector::LinSpaced(nq, 2.0, -0.5);
  Matrix D_all(nq, 7), D(nq, 3), P_all(nc, 7), P(nc, 3);
  chain.dynamicsParameterJacobian(start.q, v, a, 0.0, D_all);
  chosen.dynamicsParameterJacobian(start.q, v, a, 0.0, D);
  chain.constraintParameterJacobian(start.q, 0.0, P_all);
  chosen.constraintParameterJacobian(start.q, 0.0, P);
  for (int i = 0; i < 3; ++i) {
    CHECK(D.col(i) == D_all.col(chosen.modelIndices()[static_cast<std::size_t>(i)]));
    CHECK(P.col(i) == P_all.col(chosen.modelIndices()[static_cast<std::size_t>(i)]));
  }
  CHECK(P(1, 0) == -0.5);  // ∂φ₁/∂L₁ = −L₁

  // The terms are the model's, forwarded.
  Vector h_model(nq), h_chosen(nq);
  chain.bias(start.q, v, 0.0, h_model);
  chosen.bias(start.q, v, 0.0, h_chosen);
  CHECK(h_model == h_chosen);
  CHECK(chosen.jacobianNonZeros() == chain.jacobianNonZeros());
  CHECK(chosen.biasJacobianBandwidth() == chain.biasJacobianBandwidth());

  CHECK_THROWS_WITH(ParameterSelection(chain, {"length"}), Contains("length") && Contains("lengths[0]"));
  CHECK_THROWS_WITH(ParameterSelection(chain, {"gravity", "gravity"}), Contains("'gravity' is selected twice"));
  CHECK_THROWS_WITH(ParameterSelection(chain, {}), Contains("at least one name"));
  CHECK_THROWS_WITH(chosen.withParameterValues(Eigen::Vector2d(1.0, 2.0)), Contains("p") && Contains("2"));
  CHECK_THROWS_WITH(chosen.parameterName(3), Contains("parameter index 3"));
}

TEST_CASE("parameter selection: a run asked for some parameters gives the full run's columns and dG/dp",
          "[sensitivity][sundials]") {
  // Measured (ida_ggl, rtol 1e-10, 1 s; max |s| 34): the chosen columns within 3.2e-8 of the
  // full run's (7.9e-7 at rtol 1e-9: the step sequences differ, the error is the runs'), dG/dp
  // within 1.1e-8; central differences on the selection equal the full differences' columns to the
  // bit (the same runs).
  const SpringChain chain = selectionChain();
  const State start = chain.initialState(0.4);
  SimulationOptions options;
  options.integrator = Integrator::IdaGgl;
  options.end_time = 1.0;
  options.dt = 1.0;
  options.adaptive.rtol = options.adaptive.atol = 1e-10;
  SensitivityOptions all;
  all.integrand = kineticEnergyIntegrand(chain);
  SensitivityOptions some = all;
  some.parameters = {"lengths[0]", "masses[1]"};
  const SensitivityResult full = computeSensitivities(chain, start, options, all);
  const SensitivityResult chosen = computeSensitivities(chain, start, options, some);
  REQUIRE(full.summary.ok());
  REQUIRE(chosen.summary.ok());
  CHECK(chosen.column_names == some.parameters);
  CHECK(chosen.parameter_names == some.parameters);
  CHECK(chosen.cost == Approx(full.cost).epsilon(1e-8));
  const Matrix& s_full = full.sensitivities.back();
  const Matrix& s_chosen = chosen.sensitivities.back();
  const double s_error = std::max((s_chosen.col(0) - s_full.col(5)).cwiseAbs().maxCoeff(),
                                  (s_chosen.col(1) - s_full.col(1)).cwiseAbs().maxCoeff());
  const double g_error = std::max(std::abs(chosen.cost_gradient[0] - full.cost_gradient[5]),
                                  std::abs(chosen.cost_gradient[1] - full.cost_gradient[1]));
  WARN("selection against the full run: s " << s_error << ", dG/dp " << g_error << " (|s| max "
                                            << s_full.cwiseAbs().maxCoeff() << ")");
  CHECK(s_full.col(5).cwiseAbs().maxCoeff() > 0.1);
  CHECK(s_error < 1e-7);
  CHECK(g_error < 1e-7);

  SensitivityOptions all_differences = all, some_differences = some;
  all_differences.method = some_differences.method = SensitivityMethod::CentralDifferences;
  const SensitivityResult full_fd = computeSensitivities(chain, start, options, all_differences);
  const SensitivityResult chosen_fd = computeSensitivities(chain, start, options, some_differences);
  REQUIRE(full_fd.summary.ok());
  REQUIRE(chosen_fd.summary.ok());
  CHECK(chosen_fd.sensitivities.back().col(0) == full_fd.sensitivities.back().col(5));
  CHECK(chosen_fd.cost_gradient[1] == full_fd.cost_gradient[1]);

  some.parameters = {"joint_stiffness", "stiffness"};
  CHECK_THROWS_WITH(computeSensitivities(chain, start, options, some), Contains("stiffness") && Contains("joint_stiffness"));
}
