#include "sweep/sweep_estimate.hpp"

#include <algorithm>

#include "common/memory_budget.hpp"

namespace kktdae::apps {
namespace {

/// Peak resident sizes (/usr/bin/time -f %M) of sweeps of 10^5 and 2·10^5 one-step circle runs,
/// per run, rounded up: each run's parameters as JSON on every rank, 1.6 kB (the sweep refused at
/// a locked directory, after parsing); the whole sweep 8.9 kB, the rest rank 0's: the rows
/// gathered, merged and written to sweep.csv and sweep.json (the documents and their text at once).
constexpr double kPlanBytesPerRun = 2000.0, kRootBytesPerRun = 8000.0;

/// One run's peak memory [bytes]: a chain's by chainRunMemory(); the other models' are a few kB.
double runMemory(const SweepPlan& plan, const nlohmann::json& params) {
  if (plan.model != "chain") return 0.0;
  const double links = params.at("links").get<double>();
  const std::string path = params.contains("path") ? params.at("path").get<std::string>() : "auto";
  return chainRunMemory(links, path == "dense" || (path == "auto" && links < 4),
                        parseIntegrator(params.at("integrator").get<std::string>()));
}

}  // namespace

double sweepMemoryEstimate(const SweepPlan& plan, int threads, bool root) {
  double largest_run = 0.0;
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    largest_run = std::max(largest_run, runMemory(plan, plan.runs[i]));
    if (plan.reference) largest_run = std::max(largest_run, runMemory(plan, referenceParameters(plan, i)));
  }
  const double runs = static_cast<double>(plan.runs.size());
  return 16e6 + runs * (kPlanBytesPerRun + (root ? kRootBytesPerRun : 0.0)) + largest_run * threads;
}

}  // namespace kktdae::apps
