// The parameters PendulumChain and SpringChain declare (ParametricSystem; the lengths enter φ): names, values,
// withParameterValues(), their derivatives against central differences of their own terms
// (checkParameterDerivatives), and one short forward-sensitivity run of each against central
// differences of whole runs (the kinetic-energy cost counts the masses' ½ q̇ᵀ ∂M/∂p q̇).
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <utility>

#include "kktdae/models/pendulum_chain.hpp"
#include "kktdae/models/spring_chain.hpp"
#include "kktdae/sensitivity/sensitivity.hpp"
#include "support/test_models.hpp"

using namespace kktdae;
using Catch::Contains;
using kktdae::testing::randomVector;

namespace {

PendulumChainParams declaredUnevenChain() {
  PendulumChainParams params;
  params.masses = {1.0, 1.5, 0.7};
  params.lengths = {0.6, 0.5, 0.4};
  params.pivot << 0.1, -0.2, 0.0;
  return params;
}

SpringChain unevenSpringChain() {
  SpringChainParams params;
  params.chain = declaredUnevenChain();
  params.joint_stiffness = 8.0;
  params.joint_damping = 0.3;
  return SpringChain(params);
}

/// The chain's start at tilt 0.4 moved by up to ±0.1, with random rates and accelerations.
struct DeclaredPoint {
  Vector q, v, a, dq, dv;
};

DeclaredPoint randomDeclaredPoint(const ConstrainedSystem& model, const State& start, std::mt19937_64& rng) {
  const int n = model.nq();
  return {start.q + randomVector(rng, n, 0.1), randomVector(rng, n, 1.0), randomVector(rng, n, 2.0),
          randomVector(rng, n, 1.0), randomVector(rng, n, 1.0)};
}

SimulationOptions shortRun() {
  SimulationOptions options;
  options.integrator = Integrator::IdaGgl;
  options.end_time = 1.0;
  options.dt = 0.5;
  options.adaptive.rtol = options.adaptive.atol = 1e-9;
  return options;
}

/// Forward against central differences at the end of a short run: per column, the largest
/// |difference| in the q, v rows of s, and the largest over dG/dp (central differences at rtol
/// 1e-9 are good to about 1e-5 on masses, gravity, stiffness and damping).
std::pair<Vector, double> forwardAgainstDifferences(const ParametricSystem& model, const State& start) {
  SensitivityOptions sensitivity;
  sensitivity.integrand = kineticEnergyIntegrand(model);
  const SensitivityResult forward = computeSensitivities(model, start, shortRun(), sensitivity);
  sensitivity.method = SensitivityMethod::CentralDifferences;
  const SensitivityResult differences = computeSensitivities(model, start, shortRun(), sensitivity);
  INFO(forward.summary.briefReport() << "\n" << differences.summary.briefReport());
  REQUIRE(forward.summary.ok());
  REQUIRE(differences.summary.ok());
  const int rows = 2 * model.nq();
  const Vector s_error = (forward.sensitivities.back() - differences.sensitivities.back())
                             .topRows(rows)
                             .cwiseAbs()
                             .colwise()
                             .maxCoeff()
                             .transpose();
  const double g_error = (forward.cost_gradient - differences.cost_gradient).cwiseAbs().maxCoeff();
  return {s_error, g_error};
}

}  // namespace

TEST_CASE("declared parameters: PendulumChain's masses, gravity and lengths", "[models][sensitivity]") {
  const PendulumChain chain(declaredUnevenChain());
  CHECK(chain.parameterNames() == std::vector<std::string>{"masses[0]", "masses[1]", "masses[2]", "gravity",
                                                           "lengths[0]", "lengths[1]", "lengths[2]"});
  CHECK(chain.parameterValues() == (Vector(7) << 1.0, 1.5, 0.7, 9.81, 0.6, 0.5, 0.4).finished());
  CHECK(chain.constraintsDependOnParameters());
  const auto heavier = chain.withParameterValues((Vector(7) << 1.0, 2.5, 0.7, 3.0, 0.6, 0.9, 0.4).finished());
  Vector d(chain.nq());
  heavier->massDiagonal(Vector::Zero(chain.nq()), d);
  CHECK(d.segment<3>(3) == Eigen::Vector3d::Constant(2.5));
  CHECK(dynamic_cast<const PendulumChain&>(*heavier).params().lengths == std::vector<double>{0.6, 0.9, 0.4});
  CHECK_THROWS_WITH(chain.withParameterValues((Vector(7) << 1.0, -1.0, 0.7, 3.0, 0.6, 0.5, 0.4).finished()),
                    Contains("masses[1]") && Contains("-1"));
  CHECK_THROWS_WITH(chain.withParameterValues((Vector(7) << 1.0, 1.0, 0.7, 3.0, 0.6, 0.5, 0.0).finished()),
                    Contains("lengths[2]"));
  CHECK_THROWS_WITH(chain.withParameterValues(Vector(4)), Contains("p") && Contains("4"));
  CHECK_THROWS_WITH(chain.parameterIndex("length"),
                    Contains("masses[0], masses[1], masses[2], gravity, lengths[0], lengths[1], lengths[2]"));

  std::mt19937_64 rng(4545);
  for (int trial = 0; trial < 3; ++trial) {
    const DeclaredPoint x = randomDeclaredPoint(chain, chain.initialState(0.4), rng);
    const ParameterDerivativeCheck check = checkParameterDerivatives(chain, x.q, x.v, x.a, 0.0, x.dq, x.dv);
    INFO("D " << check.dynamics_parameter_error << ", dphi/dp " << check.constraint_parameter_error
              << ", d(J, gamma, phi_t)/dp " << check.constraint_tangent_error << ", tangent " << check.tangent_error);
    // M a + h is linear in p, φ quadratic in L, J linear in q and γ quadratic in q̇: central
    // differences are exact but for rounding; J, γ and ∂φ/∂t do not depend on p at all.
    CHECK(check.dynamics_parameter_error < 1e-9);
    CHECK(check.constraint_parameter_error < 1e-9);
    CHECK(check.constraint_parameter_error > 0.0);  // the lengths' columns are compared, not skipped
    CHECK(check.constraint_tangent_error == 0.0);
    CHECK(check.tangent_error < 1e-9);
  }
  // Central differences are the lesser method here: on the lengths' columns (L = 0.4 … 0.6, the
  // tip's sensitivity to the shortest link) their O(δ²) truncation is 1.1e-4 at the default
  // δ = 1e-3 and 8.1e-4 at 3e-3, while forward is within 9e-8 of an rtol-1e-12 ida_index1 run on
  // every column (measured once; the length scaling is checked exactly in
  // constraint_parameters_test.cpp).
  const auto [s_error, g_error] = forwardAgainstDifferences(chain, chain.initialState(0.4));
  INFO("s per column " << s_error.transpose() << ", dG/dp " << g_error);
  CHECK(s_error.head(4).maxCoeff() < 1e-4);  // masses, gravity
  CHECK(s_error.tail(3).maxCoeff() < 3e-4);  // lengths
  CHECK(g_error < 1e-4);
}

TEST_CASE("declared parameters: SpringChain's masses, gravity, joint stiffness and damping, lengths",
          "[models][sensitivity]") {
  const SpringChain chain = unevenSpringChain();
  CHECK(chain.parameterNames() == std::vector<std::string>{"masses[0]", "masses[1]", "masses[2]", "gravity",
                                                           "joint_stiffness", "joint_damping", "lengths[0]",
                                                           "lengths[1]", "lengths[2]"});
  CHECK(chain.parameterValues() == (Vector(9) << 1.0, 1.5, 0.7, 9.81, 8.0, 0.3, 0.6, 0.5, 0.4).finished());
  CHECK_THROWS_WITH(chain.withParameterValues((Vector(9) << 1.0, 1.5, 0.7, 9.81, -2.0, 0.3, 0.6, 0.5, 0.4).finished()),
                    Contains("joint_stiffness") && Contains("-2"));
  const auto longer = chain.withParameterValues((Vector(9) << 1.0, 1.5, 0.7, 9.81, 8.0, 0.3, 0.6, 0.5, 0.45).finished());
  CHECK(dynamic_cast<const SpringChain&>(*longer).params().chain.lengths == std::vector<double>{0.6, 0.5, 0.45});
  CHECK(dynamic_cast<const SpringChain&>(*longer).params().joint_damping == 0.3);
  std::mt19937_64 rng(4546);
  for (const double step : {1e-3, 1e-4}) {
    const DeclaredPoint x = randomDeclaredPoint(chain, chain.initialState(0.4), rng);
    const ParameterDerivativeCheck check = checkParameterDerivatives(chain, x.q, x.v, x.a, 0.0, x.dq, x.dv, step);
    INFO("step " << step << ": D " << check.dynamics_parameter_error << ", dphi/dp " << check.constraint_parameter_error
                 << ", tangent " << check.tangent_error);
    CHECK(check.dynamics_parameter_error < 1e-9);  // linear in p
    CHECK(check.constraint_parameter_error < 1e-9);  // quadratic in L
    CHECK(check.constraint_tangent_error == 0.0);
    CHECK(check.tangent_error < 100.0 * step * step);  // atan2 and 1/|a|²: O(step²)
  }
  const auto [s_error, g_error] = forwardAgainstDifferences(chain, chain.initialState(0.4));
  INFO("s per column " << s_error.transpose() << ", dG/dp " << g_error);
  CHECK(s_error.maxCoeff() < 1e-4);
  CHECK(g_error < 1e-4);
}
