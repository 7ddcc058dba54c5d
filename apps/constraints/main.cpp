// kktdae-constraints: seed 000's chapter run (pendulum chains, none vs Baumgarte) on kktdae.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "common/output_files.hpp"
#include "constraints/constraints_cli.hpp"
#include "constraints/constraints_report.hpp"
#include "kktdae/kktdae.hpp"

namespace {

using namespace kktdae;
using namespace kktdae::apps;

int linksFor(const ConstraintsFlags& flags) {
  if (flags.links) return *flags.links;
  return flags.system == "pendulum" ? 1 : flags.system == "double" ? 2 : 3;
}

std::string systemName(int links) {
  switch (links) {
    case 1: return "pendulum";
    case 2: return "double";
    case 3: return "triple";
    default: return "chain";
  }
}

int run(ConstraintsFlags& flags) {
  std::printf("[kktdae-constraints] device=%s\n", flags.device.c_str());
  ConstraintsRun run;
  run.flags = &flags;
  run.links = linksFor(flags);
  run.system_name = systemName(run.links);
  run.steps = flags.smoke ? 800 : flags.steps;  // smoke length is fixed so CI can diff two runs
  run.out = flags.out;
  prepareOutputDirectory(run.out);

  // The chapter's only randomness: one draw of the launch tilt from numpy's default_rng(seed).
  NumpyPcg64 rng = NumpyPcg64::fromUnsignedSeed(flags.seed);
  const double seeded_tilt = rng.uniform(-0.05, 0.05);
  run.tilt = flags.tilt.value_or(seeded_tilt);

  const PendulumChain chain(PendulumChainParams::uniform(run.links));
  run.energy_scale = chain.energyScale();
  SimulationOptions options;
  options.integrator = parseIntegrator(flags.integrator);
  options.kkt.form = parseKktForm(flags.form);
  options.kkt.path = parseKktPath(flags.path);
  options.dt = flags.dt;
  options.steps = run.steps;
  options.adaptive.rtol = flags.rtol;
  options.adaptive.atol = flags.atol;

  std::vector<ChainMode> modes;
  const bool every = flags.stabilization == "every";
  if (flags.stabilization != "baumgarte") modes.push_back({"none", Stabilization::none()});
  if (flags.stabilization != "none") modes.push_back({"baumgarte", Stabilization::critical(flags.baumgarte_omega)});
  if (every) {
    modes.push_back({"projection", Stabilization::projection()});
    modes.push_back({"soft", Stabilization::softConstraint()});  // MuJoCo's default solref/solimp
  }

  const auto results = runChainComparison(chain, chain.initialState(run.tilt), modes, options, flags.rerun);

  std::fputs(formatTable(run, results).c_str(), stdout);
  writeMetrics(run, results);
  writeTiming(run, results);
  std::printf("metrics: %s\n", (run.out / "metrics.json").c_str());
  if (flags.rerun) {
    for (const std::string& line : writeRecording(run, results)) std::printf("%s\n", line.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Pendulum chains held by distance constraints, solved through the KKT system, "
               "with and without Baumgarte stabilization (seed 000's chapter run)",
               "kktdae-constraints"};
  kktdae::apps::ConstraintsFlags flags;
  kktdae::apps::addConstraintsFlags(app, flags);
  try {
    app.parse(argc, argv);
    kktdae::apps::finishConstraintsFlags(flags);
  } catch (const CLI::ParseError& error) {
    return app.exit(error);
  }
  try {
    return run(flags);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kktdae-constraints: error: %s\n", error.what());
    return 2;
  }
}
