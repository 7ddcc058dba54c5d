// The stiff case of generalized-α (docs/integrators.md, "A stiff case: the spring chain"): on a
// chain with stiff bending springs, at a step far beyond the explicit steppers' stability limit
// (dt·ω_max ≫ 2.8), rk4 diverges while generalized-α follows the slow motion and damps the
// unresolved bending modes; and the sparse iteration matrix with the springs' band agrees with
// the dense one.
#include <catch2/catch.hpp>

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "../../support/recorded_states.hpp"
#include "kktdae/kktdae.hpp"
#include "kktdae/system/sparse_dynamics_jacobian.hpp"

using namespace kktdae;

namespace {

/// n links of 1 kg over 1 m in total, joint springs k [N·m/rad].
SpringChain stiffChain(int links, double stiffness, double damping = 0.0) {
  SpringChainParams params;
  params.chain = PendulumChainParams::uniform(links, 1.0, 1.0 / links);
  params.joint_stiffness = stiffness;
  params.joint_damping = damping;
  return SpringChain(params);
}

/// ω_max of the chain linearized at q (springs and gravity, on the constraint manifold):
/// √ of the largest eigenvalue of (Zᵀ ∂h/∂q Z, Zᵀ M Z), Z a basis of J's null space, ∂h/∂q by
/// central differences. The tension term −Σ λᵢ ∇²φᵢ (O(m g / L)) is left out: it is a few
/// percent of the spring term here.
double highestFrequency(const SpringChain& chain, const Vector& q) {
  const int n = chain.nq();
  Matrix K(n, n), J(chain.nc(), n);
  Vector plus(n), minus(n), h_plus(n), h_minus(n), d(n);
  const Vector v = Vector::Zero(n);
  for (int j = 0; j < n; ++j) {
    plus = q;
    minus = q;
    plus[j] += 1e-6;
    minus[j] -= 1e-6;
    chain.bias(plus, v, 0.0, h_plus);
    chain.bias(minus, v, 0.0, h_minus);
    K.col(j) = (h_plus - h_minus) / 2e-6;
  }
  chain.constraintJacobian(q, 0.0, J);
  chain.massDiagonal(q, d);
  const Matrix Z = Eigen::FullPivLU<Matrix>(J).kernel();
  const Matrix Kz = Z.transpose() * (0.5 * (K + K.transpose())) * Z;
  const Matrix Mz = Z.transpose() * d.asDiagonal() * Z;
  Eigen::GeneralizedSelfAdjointEigenSolver<Matrix> eigen(Kz, Mz, Eigen::EigenvaluesOnly);
  return std::sqrt(eigen.eigenvalues().maxCoeff());
}

struct RunRecord {
  Summary summary;
  std::vector<Eigen::Vector3d> tips;  // tip position at every step
  std::vector<double> energies;       // E = T + V at every step
};

RunRecord run(const SpringChain& chain, const State& start, SimulationOptions options) {
  RunRecord record;
  record.summary = simulate(chain, start, options, [&](double, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
    record.tips.push_back(chain.tip(q));
    record.energies.push_back(chain.kineticEnergy(q, v) + chain.potentialEnergy(q, 0.0));
  });
  return record;
}

SimulationOptions fixedStep(Integrator integrator, double dt, double t_end) {
  SimulationOptions options;
  options.integrator = integrator;
  options.dt = dt;
  options.steps = std::lround(t_end / dt);
  return options;
}

}  // namespace

TEST_CASE("spring chain at dt*omega_max >= 10: rk4 diverges, generalized-alpha (rho_inf 0.5) follows the slow "
          "motion and its energy does not grow",
          "[integrators][generalized_alpha][stiff]") {
  const SpringChain chain = stiffChain(5, 1e4);
  const State start = chain.initialState(0.3);
  const double dt = 0.01, t_end = 1.0;
  const double omega_max = highestFrequency(chain, start.q);
  INFO("omega_max " << omega_max << " rad/s, dt*omega_max " << dt * omega_max);
  REQUIRE(dt * omega_max >= 10.0);

  // Reference: rk4 resolving every mode (dt·ω_max = 0.5), the same grid every 20th step.
  const double fine = 0.5 / omega_max;
  const int ratio = static_cast<int>(std::ceil(dt / fine));
  const RunRecord reference = run(chain, start, fixedStep(Integrator::Rk4, dt / ratio, t_end));
  REQUIRE(reference.summary.ok());

  const RunRecord explicit_run = run(chain, start, fixedStep(Integrator::Rk4, dt, t_end));
  INFO("rk4 at dt " << dt << ": " << explicit_run.summary.message);
  const RunStatus status = explicit_run.summary.status;
  CHECK((status == RunStatus::Diverged || status == RunStatus::NonFiniteState || status == RunStatus::KktFailure));

  SimulationOptions options = fixedStep(Integrator::GeneralizedAlpha, dt, t_end);
  options.generalized_alpha.rho_inf = 0.5;
  const RunRecord implicit_run = run(chain, start, options);
  INFO("generalized-alpha: " << implicit_run.summary.message);
  REQUIRE(implicit_run.summary.ok());
  REQUIRE(implicit_run.tips.size() * ratio == reference.tips.size() + ratio - 1);
  double tip_error = 0.0, energy_rise = 0.0;
  for (std::size_t k = 0; k < implicit_run.tips.size(); ++k) {
    tip_error = std::max(tip_error, (implicit_run.tips[k] - reference.tips[k * ratio]).norm());
    energy_rise = std::max(energy_rise, implicit_run.energies[k] - implicit_run.energies.front());
  }
  const double energy_scale = chain.chain().energyScale();
  INFO("tip error " << tip_error << " m, energy rise " << energy_rise << " J of scale " << energy_scale << " J");
  // The slow motion (a near-rigid swing, dt·ω ≈ 0.04) to second order: (dt·ω)² ≈ 2e-3 of the
  // 1 m chain; 1 cm leaves a factor 5 for the bending modes' share the method damps away.
  CHECK(tip_error < 1e-2);
  // ρ∞ < 1 dissipates: the energy may fall, and not rise beyond round-off of Newton's tolerance.
  CHECK(energy_rise < 1e-6 * energy_scale);
}

TEST_CASE("sparse dynamics jacobian: on the damped spring chain its banded dh/dq, dh/dv and constraint curvature "
          "match the dense DynamicsJacobian entrywise",
          "[system][sparse_dynamics_jacobian][stiff]") {
  const SpringChain chain = stiffChain(4, 300.0, 5.0);
  REQUIRE(SparseDynamicsJacobian::unsupportedReason(chain).empty());
  State state = chain.initialState(0.4);
  std::mt19937_64 rng(2026120105);
  std::uniform_real_distribution<double> uniform(-0.05, 0.05);
  for (Eigen::Index i = 0; i < state.q.size(); ++i) {
    state.q[i] += uniform(rng);
    state.v[i] = 20 * uniform(rng);
  }
  Vector lambda(chain.nc()), a = Vector::Zero(chain.nq());
  for (int i = 0; i < chain.nc(); ++i) lambda[i] = -10.0 - i;
  DynamicsJacobian dense(chain);
  dense.evaluate(0.0, state.q, state.v, a, lambda, Vector());
  SparseDynamicsJacobian sparse(chain);
  sparse.evaluate(0.0, state.q, state.v, false);
  REQUIRE(sparse.biasBandwidth() == 8);
  const int n = chain.nq();
  Matrix K = Matrix::Zero(n, n), C = Matrix::Zero(n, n);
  for (int k = 0; k < n; ++k) {
    for (int i = std::max(0, k - 8); i <= std::min(n - 1, k + 8); ++i) {
      K(i, k) = sparse.biasQ(i, k);
      C(i, k) = sparse.biasV(i, k);
    }
  }
  for (int i = 0; i < chain.nc(); ++i) {
    const int size = sparse.rowSize(i);
    for (int x = 0; x < size; ++x) {
      for (int y = 0; y < size; ++y) {
        K(sparse.cols()[sparse.rowEntry(i, x)], sparse.cols()[sparse.rowEntry(i, y)]) -=
            lambda[i] * sparse.hessianValues()[sparse.hessianStart(i) + x * size + y];
      }
    }
  }
  // Both are forward differences with √eps steps of the same model calls: they agree to a few
  // 1e-8 of the largest entry (k/L² ~ 5e3 here); a missing term or a band too narrow is O(1) of it.
  const double scale_k = dense.stiffness().lpNorm<Eigen::Infinity>();
  const double scale_c = dense.damping().lpNorm<Eigen::Infinity>();
  INFO("|K| " << scale_k << ", |C| " << scale_c << "\ndense K\n" << dense.stiffness() << "\nsparse K\n" << K);
  REQUIRE(scale_c > 1.0);
  CHECK((K - dense.stiffness()).lpNorm<Eigen::Infinity>() < 1e-6 * scale_k);
  CHECK((C - dense.damping()).lpNorm<Eigen::Infinity>() < 1e-6 * scale_c);
  CHECK(sparse.modelEvaluations() == 3 + 2 * sparse.colors() + 1 + 2 * sparse.biasColors());
}

TEST_CASE("generalized-alpha and hht: on the damped spring chain the sparse KLU and dense LU iteration matrices "
          "take the same steps",
          "[integrators][generalized_alpha][stiff]") {
  const SpringChain chain = stiffChain(10, 500.0, 0.5);
  for (Integrator integrator : {Integrator::GeneralizedAlpha, Integrator::Hht}) {
    SimulationOptions options = fixedStep(integrator, 0.01, 0.5);
    options.generalized_alpha.rho_inf = 0.5;
    const testing::DenseAndSparseRuns runs = testing::runDenseAndSparse(chain, chain.initialState(0.3), options);
    INFO(runs.messages());
    REQUIRE(runs.ok());
    const Summary* summaries = runs.summaries;
    const double worst = runs.worstDifference();
    INFO(toString(integrator) << ": worst relative difference " << worst << "; dense "
                              << summaries[0].rhs_evaluations << " model evaluations, sparse "
                              << summaries[1].rhs_evaluations << "; notes: " << summaries[1].notes);
    // Newton stops at its tolerance from (nearly) the same matrices: round-off of the solves.
    CHECK(worst <= 1e-10);
    CHECK(summaries[0].newton_iterations == summaries[1].newton_iterations);
    CHECK_THAT(summaries[1].notes, Catch::Contains("band colors"));
  }
}

// Not part of the suite (hidden tag): the stiff-chain comparison of docs/integrators.md, measured
// once with `kktdae_tests "[.stiff_measure]"` from the build's tests directory (STIFF_MEASURE_LINKS
// = 20 or 50 runs one chain). The chain is one flexible rod of 1 m and 1 kg per link discretized
// into n links, bending stiffness EI = 70 N·m² (k = EI·n per joint), so its lowest bending modes
// stay slow while ω_max grows as n^1.5. Released straight at tilt 0.3, at rest, for 2 s. Error:
// max over the 0.01 s grid of |tip − tip_ref|, the reference rk4 at dt·ω_max = 0.25 (its own
// accuracy: the same at half that step). Model evaluations count every model call, Newton
// matrices included; wall is the median of 3 runs (one for IDA at 50 links).
TEST_CASE("spring chain: work and accuracy of generalized-alpha, hht, explicit steppers and IDA", "[.stiff_measure]") {
  const char* only = std::getenv("STIFF_MEASURE_LINKS");
  for (int links : {20, 50}) {
    if (only != nullptr && std::atoi(only) != links) continue;
    const SpringChain chain = stiffChain(links, 70.0 * links);
    const State start = chain.initialState(0.3);
    const double t_end = 2.0, grid = 0.01;
    const double omega_max = highestFrequency(chain, start.q);
    std::printf("%d links, k = %g N m/rad, omega_max = %.0f rad/s (dt*omega_max at dt 0.01: %.1f)\n", links,
                chain.params().joint_stiffness, omega_max, grid * omega_max);
    // Tips on the 0.01 s grid from a run whose steps divide (or are multiples of) 0.01.
    auto tips = [&](SimulationOptions options, Summary& summary, int repetitions) {
      std::vector<std::pair<double, Eigen::Vector3d>> samples;
      std::vector<double> walls;
      for (int r = 0; r < repetitions; ++r) {
        samples.clear();
        summary = simulate(chain, start, options, [&](double t, ConstVectorRef q, ConstVectorRef, ConstVectorRef) {
          const double cell = t / grid;
          if (std::abs(cell - std::round(cell)) < 1e-6) samples.emplace_back(t, chain.tip(q));
        });
        walls.push_back(summary.wall_seconds);
        if (!summary.ok()) break;
      }
      std::sort(walls.begin(), walls.end());
      summary.wall_seconds = walls[walls.size() / 2];
      return samples;
    };
    const double fine = grid / std::ceil(grid * omega_max / 0.25);
    Summary reference_summary, check_summary;
    const auto reference = tips(fixedStep(Integrator::Rk4, fine, t_end), reference_summary, 1);
    const auto check = tips(fixedStep(Integrator::Rk4, fine / 2, t_end), check_summary, 1);
    REQUIRE(reference_summary.ok());
    REQUIRE(check_summary.ok());
    auto error = [&](const std::vector<std::pair<double, Eigen::Vector3d>>& samples) {
      double worst = 0.0;
      for (const auto& [t, tip] : samples) {
        const auto at = static_cast<std::size_t>(std::lround(t / grid));
        if (at < reference.size()) worst = std::max(worst, (tip - reference[at].second).norm());
      }
      return worst;
    };
    std::printf("reference rk4 dt %.3g: %ld steps, %.3f s; at half the step the tip moves %.2e m\n", fine,
                reference_summary.steps, reference_summary.wall_seconds, error(check));
    struct Row {
      Integrator integrator;
      double dt, parameter;  // rho_inf (generalized-α), alpha (hht), rtol (IDA)
      JacobianReuse reuse = JacobianReuse::EveryStep;
    };
    std::vector<Row> rows;
    for (double c : {1.0, 2.0, 2.7, 3.0}) rows.push_back(Row{Integrator::Rk4, grid / std::ceil(grid * omega_max / c), 0});
    for (double c : {1.0, 1.9, 2.1}) {
      rows.push_back(Row{Integrator::SemiImplicitEuler, grid / std::ceil(grid * omega_max / c), 0});
    }
    rows.push_back(Row{Integrator::Rk4, grid, 0});
    for (double rho : {0.0, 0.5, 0.8}) {
      for (double dt : {0.02, 0.01, 0.005, 0.0025}) rows.push_back(Row{Integrator::GeneralizedAlpha, dt, rho});
    }
    for (double dt : {0.02, 0.01}) rows.push_back(Row{Integrator::GeneralizedAlpha, dt, 0.5, JacobianReuse::UntilSlow});
    for (double dt : {0.01, 0.005}) rows.push_back(Row{Integrator::Hht, dt, -0.1});
    // At 50 links IDA's tight tolerance (it resolves the bending modes) does not fit the
    // measurement's time: 1e-3 and 1e-4 only, once each.
    for (double rtol : {1e-3, 1e-4, 1e-6}) {
      if (links > 20 && rtol < 1e-4) continue;
      rows.push_back(Row{Integrator::IdaGgl, grid, rtol});
      rows.push_back(Row{Integrator::IdaIndex1, grid, rtol});
    }
    for (const Row& row : rows) {
      SimulationOptions options = fixedStep(row.integrator, row.dt, t_end);
      if (row.integrator == Integrator::GeneralizedAlpha) options.generalized_alpha.rho_inf = row.parameter;
      if (row.integrator == Integrator::Hht) options.generalized_alpha.hht_alpha = row.parameter;
      options.generalized_alpha.jacobian_reuse = row.reuse;
      if (row.integrator == Integrator::IdaGgl || row.integrator == Integrator::IdaIndex1) {
        options.adaptive.rtol = row.parameter;
        options.adaptive.atol = 1e-2 * row.parameter;
      }
      Summary summary;
      const bool adaptive = row.integrator == Integrator::IdaGgl || row.integrator == Integrator::IdaIndex1;
      const auto samples = tips(options, summary, adaptive && links > 20 ? 1 : 3);
      std::printf("%3d links %-18s %-9s par %-7g dt %-9.3g dt*w %-7.2f %-14s steps %7ld model %9ld newton %6ld jac %5ld "
                  "wall %8.4f s tip error %.2e | %s\n",
                  links, std::string(toString(row.integrator)).c_str(),
                  row.reuse == JacobianReuse::UntilSlow ? "untilslow" : "", row.parameter, row.dt, row.dt * omega_max,
                  std::string(toString(summary.status)).c_str(), summary.steps,
                  summary.rhs_evaluations + summary.newton_model_evaluations, summary.newton_iterations,
                  summary.jacobian_evaluations, summary.wall_seconds, summary.ok() ? error(samples) : NAN,
                  summary.ok() ? summary.notes.c_str() : summary.message.c_str());
      std::fflush(stdout);
    }
  }
}
