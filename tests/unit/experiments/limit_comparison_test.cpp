// compareStabilityLimits (experiments/limit_comparison.hpp): its interrupt ends the rows without
// computing their limits, so that an app stopped by a signal returns within one limit's time.
#include <catch2/catch.hpp>

#include <atomic>

#include "kktdae/kktdae.hpp"

using namespace kktdae;

TEST_CASE("limit comparison: an interrupt already set returns every row unfinished, without a run",
          "[experiments][errdyn][trajectory]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  State start = chain.initialState(0.3);
  start.q *= 1.02;  // off the manifold
  const std::vector<LimitComparisonCase> cases = {{"chain2", &chain, start, Integrator::Rk4, 0.005},
                                                  {"chain2", &chain, start, Integrator::SemiImplicitEuler, 0.01}};
  std::atomic<bool> stop{true};
  LimitComparisonOptions options;
  options.interrupt = &stop;
  // Uninterrupted these two rows make about a hundred runs of 20 s each.
  const std::vector<LimitComparisonRow> rows = compareStabilityLimits(cases, options);
  REQUIRE(rows.size() == 2);
  for (const LimitComparisonRow& row : rows) {
    INFO(toString(row.integrator));
    CHECK(row.model == "chain2");
    CHECK(row.closed_form == baumgarteStabilityLimit(row.integrator, options.zeta));
    CHECK_FALSE(row.predicted.found);
    CHECK(row.predicted.evaluations == 0);
    CHECK(row.runaway.probes == 0);
    CHECK(row.measured.runs == 0);
  }
}
