// kktdae-bench-newton: the before/after table of docs/performance-adaptive.md for the analytic
// Newton matrices (AdaptiveOptions::newton_matrix): cvode_bdf, ida_index1 and ida_ggl on the
// double pendulum and Andrews' squeezer at two tolerances, the analytic matrix and SUNDIALS'
// difference quotient side by side. Prints a Markdown table: steps, Newton-matrix evaluations,
// residual/right-hand-side evaluations, the model calls of the analytic matrices, KKT solves,
// the median wall time of the repetitions (run interleaved, A B A B ...) with its min–max, and
// how far the two final states are apart.
//
//   kktdae-bench-newton [--repetitions 5] [--horizon 10]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "kktdae/kktdae.hpp"

namespace {

using namespace kktdae;

struct Measured {
  Summary summary;
  Vector final_q;
  std::vector<double> seconds;
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

Measured runOnce(const ConstrainedSystem& system, const State& start, const SimulationOptions& options) {
  Measured m;
  const auto begin = std::chrono::steady_clock::now();
  m.summary = simulate(system, start, options,
                       [&](double, ConstVectorRef q, ConstVectorRef, ConstVectorRef) { m.final_q = q; });
  m.seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
  return m;
}

}  // namespace

int main(int argc, char** argv) try {
  CLI::App app{"Analytic vs difference-quotient Newton matrices of cvode_bdf and ida_* (Markdown table)"};
  int repetitions = 5;
  double horizon = 10.0;
  app.add_option("--repetitions", repetitions, "runs per configuration (median reported)")->check(CLI::PositiveNumber);
  app.add_option("--horizon", horizon, "double pendulum horizon [s]")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  const PendulumChain pendulum(PendulumChainParams::uniform(2));
  const AndrewsSqueezer squeezer;
  struct Problem {
    const char* name;
    const ConstrainedSystem* system;
    State start;
    double dt;
    long steps;
  };
  const Problem problems[] = {
      {"double pendulum", &pendulum, pendulum.initialState(0.5), 0.01, std::lround(horizon / 0.01)},
      {"Andrews' squeezer", &squeezer, andrewsSqueezerStart().state, 0.03, 1},
  };
  std::printf("| problem | integrator | rtol | Newton matrix | steps | matrices | residuals/RHS | model calls in matrices "
              "| KKT solves | wall ms (median, min–max) | max Δq analytic vs DQ |\n");
  std::printf("|---|---|---|---|---:|---:|---:|---:|---:|---|---:|\n");
  for (const Problem& problem : problems) {
    for (Integrator integrator : {Integrator::CvodeBdf, Integrator::IdaIndex1, Integrator::IdaGgl}) {
      for (double rtol : {1e-7, 1e-10}) {
        SimulationOptions options;
        options.integrator = integrator;
        options.dt = problem.dt;
        options.steps = problem.steps;
        options.stabilization = Stabilization::none();  // as the Test Set runs: the solver's own accuracy
        options.adaptive.rtol = rtol;
        options.adaptive.atol = rtol;
        options.adaptive.max_steps = 1000000;
        options.adaptive.linear_solver = NewtonLinearSolver::Dense;
        options.observe_every = static_cast<int>(problem.steps);
        Measured measured[2];
        for (int r = 0; r < repetitions; ++r) {
          for (int k = 0; k < 2; ++k) {
            options.adaptive.newton_matrix = k == 0 ? NewtonMatrix::Analytic : NewtonMatrix::DifferenceQuotient;
            Measured once = runOnce(*problem.system, problem.start, options);
            if (r == 0) {
              measured[k] = once;
            } else {
              measured[k].seconds.push_back(once.seconds.front());
            }
          }
        }
        const double difference = measured[0].final_q.size() == measured[1].final_q.size()
                                      ? (measured[0].final_q - measured[1].final_q).lpNorm<Eigen::Infinity>()
                                      : std::nan("");
        char difference_text[32];
        std::snprintf(difference_text, sizeof difference_text, "%.2g", difference);
        for (int k = 0; k < 2; ++k) {
          const Summary& s = measured[k].summary;
          const auto& t = measured[k].seconds;
          std::printf("| %s | %s | %g | %s | %ld | %ld | %ld | %ld | %ld | %.2f (%.2f–%.2f) | %s |\n", problem.name,
                      std::string(toString(integrator)).c_str(), rtol,
                      k == 0 ? "analytic" : "difference quotient", s.steps, s.jacobian_evaluations,
                      s.rhs_evaluations, s.newton_model_evaluations, s.kkt_solves, 1e3 * median(t),
                      1e3 * *std::min_element(t.begin(), t.end()), 1e3 * *std::max_element(t.begin(), t.end()),
                      !s.ok() ? ("run failed: " + s.message).c_str()
                              : k == 0 ? "" : difference_text);
        }
      }
    }
  }
  return 0;
} catch (const std::exception& error) {
  std::fprintf(stderr, "kktdae-bench-newton: %s\n", error.what());
  return 1;
}
