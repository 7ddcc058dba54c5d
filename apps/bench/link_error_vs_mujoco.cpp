// kktdae-bench-accuracy: how well each engine holds the links of an N-link chain. Our chain
// (semi-implicit Euler, Schur form, projection onto φ = 0 after every step) against MuJoCo's
// maximal-coordinate chain (tendon equality constraints, default soft solref/solimp, Euler),
// same launch state (seed 000's tilt), same dt and step count. Prints JSON: the max relative
// link-length error max_k ||d_k| − L_k| / L_k over the run for each, and their ratio.
//
// If our run stops early (a failed projection), the JSON says so and MuJoCo's error is also
// given over the steps ours completed; the exit status is then 1.
//
// Our KKT solve and projection take KktOptions::path (auto by default: sparse from 4 links on).
// The projection tolerance defaults to max(1e-12, 4e-16 · N · L) [m]: an N-link chain's
// positions carry a round-off of about N · L · eps, which a fixed 1e-12 cannot beat for
// N ≳ 5000.
//
//   kktdae-bench-accuracy --links 10 [--steps 1000] [--dt 0.005] [--seed 0] [--csv errors.csv]
//                         [--path auto|dense|sparse] [--projection-iterations 20]
//                         [--projection-tolerance T]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>
#include <string>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "bench_setup.hpp"
#include "common/cli_validators.hpp"
#include "mujoco_chain.hpp"

namespace {

using namespace kktdae;
using namespace kktdae::bench;

/// max_k ||p_k − p_{k−1}| − L_k| / L_k with p_{−1} = pivot (the origin).
double relativeLinkError(const std::vector<Eigen::Vector3d>& positions, const PendulumChainParams& params) {
  double worst = 0.0;
  Eigen::Vector3d previous = params.pivot;
  for (std::size_t k = 0; k < positions.size(); ++k) {
    worst = std::max(worst, std::abs((positions[k] - previous).norm() - params.lengths[k]) / params.lengths[k]);
    previous = positions[k];
  }
  return worst;
}

std::vector<Eigen::Vector3d> chainPositions(ConstVectorRef q) {
  std::vector<Eigen::Vector3d> positions(static_cast<std::size_t>(q.size() / 3));
  for (std::size_t k = 0; k < positions.size(); ++k) positions[k] = q.segment<3>(3 * static_cast<Eigen::Index>(k));
  return positions;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Max relative link-length error: kktdae (projection) vs MuJoCo (soft maximal-coordinate chain), JSON"};
  int links = 10;
  long steps = 1000;
  double dt = 0.005;
  std::uint64_t seed = 0;
  app.add_option("--links,-N", links, "links of the chain")->check(CLI::Range(1, 100000));
  app.add_option("--steps", steps, "steps of each run")->check(CLI::Range(1L, 10000000L))->capture_default_str();
  app.add_option("--dt", dt, "step [s] of both engines")->check(apps::finitePositive())->capture_default_str();
  app.add_option("--seed", seed, "seed of the launch tilt (seed 000's numpy draw)")->capture_default_str();
  std::string csv_path;
  app.add_option("--csv", csv_path, "also write step,kktdae,mujoco relative link errors per step to this file");
  std::string path_name = "auto";
  std::string integrator_name = "semi_implicit";
  app.add_option("--integrator", integrator_name, "our fixed-step integrator (MuJoCo always steps with Euler)")
      ->check(CLI::IsMember({"semi_implicit", "rk4", "euler"}))
      ->capture_default_str();
  app.add_option("--path", path_name, "KKT and projection linear algebra: auto, dense or sparse")
      ->check(CLI::IsMember({"auto", "dense", "sparse"}))
      ->capture_default_str();
  int projection_iterations = ProjectionOptions{}.max_iterations;
  app.add_option("--projection-iterations", projection_iterations, "Gauss–Newton iterations of each projection")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  double projection_tolerance = 0.0;
  app.add_option("--projection-tolerance", projection_tolerance,
                 "projection tolerance on |phi|_inf [m] (default max(1e-12, 4e-16 N L))")
      ->check(apps::finitePositive());
  CLI11_PARSE(app, argc, argv);

  try {
    const double tilt = seedTilt(seed);
    const PendulumChainParams params = PendulumChainParams::uniform(links);
    const PendulumChain chain(params);

    SimulationOptions options;
    options.integrator = parseIntegrator(integrator_name);
    options.kkt.form = KktForm::Schur;
    options.stabilization = Stabilization::projection();
    options.kkt.path = parseKktPath(path_name);
    options.projection.max_iterations = projection_iterations;
    double total_length = 0.0;
    for (const double length : params.lengths) total_length += length;
    options.projection.tolerance =
        projection_tolerance > 0.0 ? projection_tolerance : std::max(1e-12, 4e-16 * total_length);
    options.dt = dt;
    options.steps = steps;
    const bool sparse = usesSparsePath(chain, options.kkt);
    std::vector<double> ours_trace;  // per observed state: the launch state, then every step
    // How violently the chain moves: the fastest mass, and the largest gain of the total energy
    // over the launch state's (semi-implicit Euler with projection should lose energy, not gain).
    double max_speed = 0.0, max_energy_gain = 0.0, launch_energy = 0.0;
    bool launch = true;
    auto start = std::chrono::steady_clock::now();
    const Summary summary = simulate(chain, chain.initialState(tilt), options,
                                     [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
                                       ours_trace.push_back(relativeLinkError(chainPositions(q), params));
                                       const double energy = chain.kineticEnergy(q, v) + chain.potentialEnergy(q, t);
                                       if (launch) launch_energy = energy;
                                       launch = false;
                                       max_energy_gain = std::max(max_energy_gain, energy - launch_energy);
                                       for (Eigen::Index k = 0; k < q.size() / 3; ++k) {
                                         max_speed = std::max(max_speed, v.segment<3>(3 * k).norm());
                                       }
                                     });
    const double ours_seconds = secondsSince(start);
    const double ours_error = *std::max_element(ours_trace.begin(), ours_trace.end());
    const long ours_steps = static_cast<long>(ours_trace.size()) - 1;

    MujocoChain mujoco = makeMujocoChain(MujocoCoordinates::Maximal, links, tilt);
    mujoco.model->opt.timestep = dt;
    std::vector<double> theirs_trace{relativeLinkError(mujoco.massPositions(), params)};
    start = std::chrono::steady_clock::now();
    for (long k = 0; k < steps; ++k) {
      mj_step(mujoco.model.get(), mujoco.data.get());
      theirs_trace.push_back(relativeLinkError(mujoco.massPositions(), params));
    }
    const double theirs_seconds = secondsSince(start);
    const double theirs_error = *std::max_element(theirs_trace.begin(), theirs_trace.end());
    // Over the span both runs covered, so that the ratio compares like with like.
    const double theirs_error_common =
        *std::max_element(theirs_trace.begin(), theirs_trace.begin() + std::min<long>(ours_steps, steps) + 1);

    if (!csv_path.empty()) {
      std::ofstream csv(csv_path);
      csv << "step,kktdae_rel_link_error,mujoco_rel_link_error\n";
      csv.precision(17);
      for (std::size_t k = 0; k < theirs_trace.size(); ++k) {
        csv << k << ',';
        if (k < ours_trace.size()) csv << ours_trace[k];
        csv << ',' << theirs_trace[k] << '\n';
      }
      if (!csv) throw std::runtime_error("cannot write " + csv_path);
    }

    nlohmann::json doc;
    doc["links"] = links;
    doc["steps"] = steps;
    doc["dt"] = dt;
    doc["seed"] = seed;
    doc["tilt"] = tilt;
    doc["kktdae"] = {{"integrator", integrator_name},
                     {"form", "schur"},
                     {"path", path_name},
                     {"resolved_path", sparse ? "sparse" : "dense"},
                     {"stabilization", options.stabilization.describe()},
                     {"projection_tolerance", options.projection.tolerance},
                     {"projection_max_iterations", options.projection.max_iterations},
                     {"status", summary.ok() ? "success" : summary.message},
                     {"steps_completed", ours_steps},
                     {"max_position_correction", summary.max_position_correction},
                     {"max_rel_link_error", ours_error},
                     {"max_mass_speed", max_speed},
                     {"max_energy_gain", max_energy_gain},
                     {"wall_seconds", ours_seconds}};
    doc["mujoco_maximal"] = {{"version", mj_versionString()},
                             {"integrator", "Euler"},
                             {"constraints", "tendon equality, default solref (0.02, 1) and solimp (0.9, 0.95, 0.001)"},
                             {"max_rel_link_error", theirs_error},
                             {"max_rel_link_error_over_kktdae_steps", theirs_error_common},
                             {"wall_seconds", theirs_seconds}};
    // MuJoCo's error over ours, both over the steps ours completed; null if ours is exactly 0.
    doc["ratio_mujoco_over_kktdae"] =
        ours_error > 0.0 ? nlohmann::json(theirs_error_common / ours_error) : nlohmann::json();
    std::puts(doc.dump(2).c_str());
    return summary.ok() ? 0 : 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kktdae-bench-accuracy: %s\n", error.what());
    return 1;
  }
}
