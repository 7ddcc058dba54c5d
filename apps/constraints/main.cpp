// kktdae-constraints: seed 000's chapter run (pendulum chains, none vs Baumgarte) on kktdae.
#include <CLI/CLI.hpp>
#include <chrono>
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

/// The chapter's only randomness: one draw of the launch tilt from numpy's default_rng(seed).
double seededTilt(std::uint64_t seed) {
  NumpyPcg64 rng = NumpyPcg64::fromUnsignedSeed(seed);
  return rng.uniform(-0.05, 0.05);
}

SimulationOptions simulationOptions(const ConstraintsFlags& flags, long steps) {
  SimulationOptions options;
  options.integrator = parseIntegrator(flags.integrator);
  options.kkt.form = parseKktForm(flags.form);
  options.kkt.path = parseKktPath(flags.path);
  options.dt = flags.dt;
  options.steps = steps;
  options.adaptive.rtol = flags.rtol;
  options.adaptive.atol = flags.atol;
  return options;
}

std::vector<ChainMode> chainModes(const ConstraintsFlags& flags) {
  std::vector<ChainMode> modes;
  const bool every = flags.stabilization == "every";
  if (flags.stabilization != "baumgarte") modes.push_back({"none", Stabilization::none()});
  if (flags.stabilization != "none") modes.push_back({"baumgarte", Stabilization::critical(flags.baumgarte_omega)});
  if (every) {
    modes.push_back({"projection", Stabilization::projection()});
    modes.push_back({"soft", Stabilization::softConstraint()});  // MuJoCo's default solref/solimp
  }
  return modes;
}

/// --seeds: the chapter's comparison once per seed, the seeds spread over the cores.
int runSeeds(const ConstraintsRun& run, const PendulumChain& chain) {
  const ConstraintsFlags& flags = *run.flags;
  const SimulationOptions options = simulationOptions(flags, run.steps);
  const std::vector<ChainMode> modes = chainModes(flags);
  SweepOptions parallel;
  parallel.threads = flags.threads;
  const int threads = sweepThreadCount(flags.seeds.size(), parallel);
  const auto started = std::chrono::steady_clock::now();
  // Each task owns its results; the chain, options and modes are only read.
  const std::vector<SeedRun> runs = sweep(
      flags.seeds.size(),
      [&](std::size_t i) {
        SeedRun seed_run;
        seed_run.seed = flags.seeds[i];
        seed_run.tilt = seededTilt(seed_run.seed);
        seed_run.results = runChainComparison(chain, chain.initialState(seed_run.tilt), modes, options, false);
        return seed_run;
      },
      parallel);
  const double wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  std::fputs(formatSeedTable(run, runs, threads).c_str(), stdout);
  writeSeedRows(run, runs);
  writeSeedTiming(run, runs, threads, wall_seconds);
  std::printf("rows: %s, %s\n", (run.out / "seeds.csv").c_str(), (run.out / "seeds.json").c_str());
  return 0;
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

  const PendulumChain chain(PendulumChainParams::uniform(run.links));
  run.energy_scale = chain.energyScale();
  if (!flags.seeds.empty()) return runSeeds(run, chain);

  run.tilt = flags.tilt.value_or(seededTilt(flags.seed));
  const auto results = runChainComparison(chain, chain.initialState(run.tilt), chainModes(flags),
                                          simulationOptions(flags, run.steps), flags.rerun);

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
