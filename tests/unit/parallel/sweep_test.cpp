// sweep(): results by index, exceptions, options, and real simulations bitwise equal on 1, 2, 4
// threads.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "kktdae/kktdae.hpp"
#include "support/same_bits.hpp"

using namespace kktdae;
using kktdae::testing::sameBits;
using Catch::Matchers::Contains;

namespace {

SweepOptions onThreads(int threads) {
  SweepOptions options;
  options.threads = threads;
  return options;
}

/// Same bits (NaN and −0 included), not merely equal values.
/// Every field of a Summary but the wall time, which measures the machine, not the run.
void checkSameSummary(const Summary& a, const Summary& b) {
  CHECK(a.status == b.status);
  CHECK(a.message == b.message);
  CHECK(a.integrator == b.integrator);
  CHECK(a.form == b.form);
  CHECK(a.steps == b.steps);
  CHECK(a.outputs == b.outputs);
  CHECK(a.kkt_solves == b.kkt_solves);
  CHECK(a.rhs_evaluations == b.rhs_evaluations);
  CHECK(a.jacobian_evaluations == b.jacobian_evaluations);
  CHECK(a.linear_solver_setups == b.linear_solver_setups);
  CHECK(a.error_test_failures == b.error_test_failures);
  CHECK(a.convergence_failures == b.convergence_failures);
  CHECK(sameBits(a.last_step, b.last_step));
  CHECK(a.projections == b.projections);
  CHECK(a.projection_iterations == b.projection_iterations);
  CHECK(sameBits(a.max_position_correction, b.max_position_correction));
  CHECK(sameBits(a.max_velocity_correction, b.max_velocity_correction));
  CHECK(a.notes == b.notes);
  CHECK(sameBits(a.t_final, b.t_final));
  CHECK(a.failed_step == b.failed_step);
  CHECK(sameBits(a.max_phi_inf, b.max_phi_inf));
  CHECK(sameBits(a.max_phi_dot_inf, b.max_phi_dot_inf));
  CHECK(sameBits(a.final_phi_inf, b.final_phi_inf));
  CHECK(sameBits(a.final_phi_dot_inf, b.final_phi_dot_inf));
  CHECK(sameBits(a.min_rcond, b.min_rcond));
  CHECK(a.rank_deficient_solves == b.rank_deficient_solves);
  CHECK(a.min_constraint_rank == b.min_constraint_rank);
}

struct ChainRun {
  Summary summary;
  Vector q_final, v_final;
  ChainRunMetrics metrics;
};

}  // namespace

TEST_CASE("sweep: results come back in index order, each index run exactly once", "[parallel][sweep]") {
  for (int threads : {1, 2, 4, 8}) {
    for (std::size_t count : {0u, 1u, 3u, 100u}) {
      INFO("threads " << threads << ", count " << count);
      std::vector<std::atomic<int>> calls(count);
      const std::vector<std::string> results = sweep(
          count,
          [&](std::size_t i) {
            // Uneven durations so that tasks finish out of order on several threads.
            if (i % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
            calls[i].fetch_add(1);
            return "task " + std::to_string(i);
          },
          onThreads(threads));
      REQUIRE(results.size() == count);
      for (std::size_t i = 0; i < count; ++i) {
        CHECK(results[i] == "task " + std::to_string(i));
        CHECK(calls[i].load() == 1);
      }
    }
  }
}

TEST_CASE("sweep: the lowest failing index's exception is rethrown, after every thread has joined",
          "[parallel][sweep]") {
  for (int threads : {1, 2, 4}) {
    INFO("threads " << threads);
    std::atomic<int> running{0};
    std::atomic<int> finished{0};
    auto task = [&](std::size_t i) {
      running.fetch_add(1);
      // Index 9 fails first in time; index 4 fails later but is the lower index.
      if (i == 4) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        running.fetch_sub(1);
        throw std::runtime_error("task 4 failed");
      }
      if (i == 9) {
        running.fetch_sub(1);
        throw std::runtime_error("task 9 failed");
      }
      std::this_thread::sleep_for(std::chrono::microseconds(100));
      finished.fetch_add(1);
      running.fetch_sub(1);
      return static_cast<int>(i);
    };
    CHECK_THROWS_WITH(sweep(40, task, onThreads(threads)), "task 4 failed");
    CHECK(running.load() == 0);  // no task still running when the exception arrives
    // The serial run stops at index 4; a parallel one stops handing out indices after a failure.
    if (threads == 1) CHECK(finished.load() == 4);
    CHECK(finished.load() < 38);
  }
}

TEST_CASE("sweep: threads must be 0 (all cores) to 1024", "[parallel][sweep][errors]") {
  CHECK_NOTHROW(onThreads(0).validate());
  CHECK_NOTHROW(onThreads(kMaxSweepThreads).validate());
  CHECK_THROWS_AS(onThreads(-1).validate(), std::invalid_argument);
  CHECK_THROWS_WITH(onThreads(-1).validate(), Contains("threads") && Contains("-1"));
  CHECK_THROWS_WITH(onThreads(1025).validate(), Contains("threads") && Contains("1025"));
  // sweep() itself validates, before running anything.
  int calls = 0;
  CHECK_THROWS_AS(sweep(3, [&](std::size_t) { return ++calls; }, onThreads(-2)), std::invalid_argument);
  CHECK(calls == 0);

  CHECK(sweepThreadCount(100, onThreads(3)) == 3);
  CHECK(sweepThreadCount(2, onThreads(8)) == 2);  // never more threads than tasks
  CHECK(sweepThreadCount(0, onThreads(8)) == 1);
  const unsigned hardware = std::thread::hardware_concurrency();
  CHECK(sweepThreadCount(100000, onThreads(0)) == static_cast<int>(hardware > 0 ? hardware : 1));
}

TEST_CASE("sweep: 16 pendulum-chain runs on 2 and 4 threads are bitwise the serial runs",
          "[parallel][sweep][determinism]") {
  // One model shared read-only by every task; everything a run writes is the task's own.
  const PendulumChain chain(PendulumChainParams::uniform(3));
  auto run = [&](std::size_t i) {
    NumpyPcg64 rng = NumpyPcg64::fromUnsignedSeed(i);
    const double tilt = rng.uniform(-0.05, 0.05) + 0.1 * static_cast<double>(i);
    SimulationOptions options;
    // Fixed-step and SUNDIALS runs mixed: each run owns its own solver memory and context.
    options.integrator = i % 4 == 3 ? Integrator::CvodeBdf : i % 2 ? Integrator::Rk4 : Integrator::SemiImplicitEuler;
    options.dt = 0.005;
    options.steps = 300;
    options.stabilization = Stabilization::critical(20.0);
    ChainRun result;
    ChainMetricsObserver metrics(chain);
    result.summary = simulate(chain, chain.initialState(tilt), options,
                              [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef) {
                                metrics.observe(t, q, v);
                                result.q_final = q;
                                result.v_final = v;
                              });
    result.metrics = metrics.metrics();
    return result;
  };
  const std::vector<ChainRun> serial = sweep(16, run, onThreads(1));
  for (int threads : {2, 4}) {
    const std::vector<ChainRun> parallel = sweep(16, run, onThreads(threads));
    REQUIRE(parallel.size() == serial.size());
    for (std::size_t i = 0; i < serial.size(); ++i) {
      INFO("threads " << threads << ", run " << i << ": " << serial[i].summary.briefReport());
      REQUIRE(serial[i].summary.ok());
      CHECK(sameBits(parallel[i].q_final, serial[i].q_final));
      CHECK(sameBits(parallel[i].v_final, serial[i].v_final));
      checkSameSummary(parallel[i].summary, serial[i].summary);
      CHECK(sameBits(parallel[i].metrics.max_violation, serial[i].metrics.max_violation));
      CHECK(sameBits(parallel[i].metrics.energy_rel_max, serial[i].metrics.energy_rel_max));
    }
  }
}
