// kktdae-constraints: seed 000's chapter run (pendulum chains, none vs Baumgarte) on kktdae.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <new>

#include "common/exit_codes.hpp"
#include "common/generalized_alpha_flags.hpp"
#include "common/interrupt.hpp"
#include "common/memory_budget.hpp"
#include "common/number_format.hpp"
#include "common/run_directory.hpp"
#include "constraints/constraints_cli.hpp"
#include "constraints/constraints_report.hpp"
#include "kktdae/kktdae.hpp"

namespace {

using namespace kktdae;
using namespace kktdae::apps;

/// The run's size and memory estimate, for a std::bad_alloc that gets past the estimate.
std::string g_size_note;

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
  options.generalized_alpha = flags.generalized_alpha;
  connectInterrupt(options);
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

/// The flags that size a run, as the user typed them, for messages about its size.
std::string sizeFlags(const ConstraintsRun& run) {
  return "--links " + std::to_string(run.links) + " --steps " + std::to_string(run.steps);
}

/// Peak memory of a run [bytes], measured with /usr/bin/time (docs/apps.md, "Memory"): each chain's
/// run (chainRunMemory), and with the recording about 170 bytes per step and mode (the trace
/// and its CSV text). Rounded up so that the estimate errs on the side of refusing.
double memoryEstimate(const ConstraintsRun& run, std::size_t modes, int threads) {
  const bool dense = run.flags->path == "dense" || (run.flags->path == "auto" && run.links < 4);
  const double per_chain = chainRunMemory(run.links, dense, parseIntegrator(run.flags->integrator));
  const double recording = run.flags->rerun && run.flags->seeds.empty()
                               ? 200.0 * static_cast<double>(modes) * (static_cast<double>(run.steps) + 1.0)
                               : 0.0;
  return 16e6 + per_chain * threads + recording;
}

/// The recording's times k·dt must stay finite for every step; an overflowing t is refused
/// before anything runs.
void requireFiniteTimes(const ConstraintsRun& run) {
  const double t_end = static_cast<double>(run.steps) * run.flags->dt;
  if (!std::isfinite(t_end)) {
    throw CLI::ValidationError("--dt", pythonRepr(run.flags->dt) + " s over " + std::to_string(run.steps) +
                                           " steps ends past the largest finite time (" + pythonRepr(t_end) +
                                           " s); give a smaller --dt or fewer --steps");
  }
}

/// Writes the manifest, prints what the run wrote (every file, with its size), then the table
/// last, where a user's eye lands after the build's output; returns the exit code. Interrupted
/// wins over a failed plot.
int finishRun(RunDirectory& dir, RunOutcome outcome, const std::string& message,
              const std::vector<std::string>& notes, const std::string& table) {
  if (interrupted()) outcome = RunOutcome::Interrupted;
  dir.finish(outcome, outcome == RunOutcome::Interrupted && message.empty() ? "interrupted by a signal" : message);
  for (const std::string& note : notes) std::printf("%s\n", note.c_str());
  std::printf("files written to %s (manifest.json: %s):\n", dir.path().c_str(), toString(outcome));
  std::vector<std::string> names = dir.published();
  names.emplace_back(kManifestName);
  for (const std::string& name : names) {
    std::printf("  %-18s %12ju bytes\n", name.c_str(), static_cast<std::uintmax_t>(std::filesystem::file_size(dir.file(name))));
  }
  std::fputs(table.c_str(), stdout);
  return exitCodeFor(outcome);
}

/// --seeds: the chapter's comparison once per seed, the seeds spread over the cores.
int runSeeds(ConstraintsRun& run, const PendulumChain& chain) {
  const ConstraintsFlags& flags = *run.flags;
  SimulationOptions options = simulationOptions(flags, run.steps);
  const std::vector<ChainMode> modes = chainModes(flags);
  SweepOptions parallel;
  parallel.threads = flags.threads;
  const int threads = sweepThreadCount(flags.seeds.size(), parallel);
  const double estimate = memoryEstimate(run, modes.size(), threads);
  g_size_note = sizeFlags(run) + " --threads " + std::to_string(threads);
  requireMemory(g_size_note, estimate);
  g_size_note += ": " + memoryShortfall(estimate);
  RunDirectory dir = openRunDirectory("--out", flags.out, "kktdae-constraints", constraintsFiles());
  run.dir = &dir;
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

  writeSeedRows(run, runs);
  writeSeedTiming(run, runs, threads, wall_seconds);
  return finishRun(dir, RunOutcome::Complete, {}, {}, formatSeedTable(run, runs, threads));
}

int run(ConstraintsFlags& flags) {
  std::printf("[kktdae-constraints] device=%s\n", flags.device.c_str());
  ConstraintsRun run;
  run.flags = &flags;
  run.links = linksFor(flags);
  run.system_name = systemName(run.links);
  run.steps = flags.smoke ? 800 : flags.steps;  // smoke length is fixed so CI can diff two runs
  requireFiniteTimes(run);
  if (!flags.seeds.empty()) {
    const PendulumChain chain(PendulumChainParams::uniform(run.links));
    run.energy_scale = chain.energyScale();
    return runSeeds(run, chain);
  }
  const std::vector<ChainMode> modes = chainModes(flags);
  const double estimate = memoryEstimate(run, modes.size(), 1);
  g_size_note = sizeFlags(run) + (flags.rerun ? "" : " --no-rerun");
  requireMemory(g_size_note, estimate);
  g_size_note += ": " + memoryShortfall(estimate);
  RunDirectory dir = openRunDirectory("--out", flags.out, "kktdae-constraints", constraintsFiles());
  run.dir = &dir;

  const PendulumChain chain(PendulumChainParams::uniform(run.links));
  run.energy_scale = chain.energyScale();
  run.tilt = flags.tilt.value_or(seededTilt(flags.seed));
  SimulationOptions options = simulationOptions(flags, run.steps);
  if (flags.stop_when) {
    try {
      options.events = {parseChainCondition("--stop-when", *flags.stop_when, chain)};
    } catch (const std::invalid_argument& error) {
      // throwInvalid's text starts with the field; CLI11 puts the flag's name in front itself.
      const std::string text = error.what();
      const std::string prefix = "--stop-when: ";
      throw CLI::ValidationError("--stop-when", text.rfind(prefix, 0) == 0 ? text.substr(prefix.size()) : text);
    }
    options.events[0].action = EventAction::Stop;
  }
  long observed = 0;  // states observed in the current mode, for the test-only signal hook
  double last_t = -1.0;
  Observer signal_hook;  // only when a test asks for it: every observed state pays for an observer
  if (testSignalAtStepRequested()) {
    signal_hook = [&](double t, ConstVectorRef, ConstVectorRef, ConstVectorRef) {
      if (t <= last_t) observed = 0;  // the next mode started
      last_t = t;
      testSignalAtStep(observed++);
    };
  }
  const auto results =
      runChainComparison(chain, chain.initialState(run.tilt), modes, options, flags.rerun, signal_hook);

  writeMetrics(run, results);
  writeTiming(run, results);
  RunOutcome outcome = RunOutcome::Complete;
  std::string message;
  std::vector<std::string> notes;
  if (flags.rerun) {
    const RecordingOutcome recording = writeRecording(run, results);
    outcome = recording.outcome;
    // The files themselves are listed with their sizes; what did not render is said here.
    for (const std::string& line : recording.lines) {
      if (line.rfind("plot: ", 0) != 0 && line.rfind("recording: ", 0) != 0) notes.push_back(line);
    }
    if (outcome == RunOutcome::Failed && !notes.empty()) message = "a plot could not be rendered: " + notes.front();
  }
  return finishRun(dir, outcome, message, notes, formatTable(run, results));
}

}  // namespace

int main(int argc, char** argv) {
  kktdae::apps::installInterruptHandlers();
  CLI::App app{"Pendulum chains held by distance constraints, solved through the KKT system, "
               "with and without Baumgarte stabilization (seed 000's chapter run)",
               "kktdae-constraints"};
  kktdae::apps::ConstraintsFlags flags;
  kktdae::apps::addConstraintsFlags(app, flags);
  try {
    app.parse(argc, argv);
    kktdae::apps::finishConstraintsFlags(flags);
    kktdae::apps::requireGeneralizedAlphaFlagsApply(app, {kktdae::parseIntegrator(flags.integrator)},
                                                    "--integrator " + flags.integrator);
    return run(flags);
  } catch (const CLI::ParseError& error) {
    return kktdae::apps::usageExit(app, error);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "kktdae-constraints: error: out of memory (%s)\n", g_size_note.c_str());
    return kktdae::apps::kExitFailed;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kktdae-constraints: error: %s\n", error.what());
    return kktdae::apps::kExitFailed;
  }
}
