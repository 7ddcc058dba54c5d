// The SUNDIALS drivers allocate per run, not per step or output: a run four times as long
// allocates exactly as often (setup and teardown only), after one warm-up run (the process's
// first run allocates a dozen more, once). cvode_bdf with the analytic Newton matrix used to
// allocate 3 times per matrix (Eigen's complete-orthogonal-decomposition solve, now into
// CvodeDenseJacobian's members), and the difference-quotient matrices of cvode_bdf and
// ida_index1 3 times per matrix too (SUNDIALS' dense DQ Jacobians clone an empty vector per
// call: sd::EmptyClonePool lends them one); those configurations are here so that neither comes back.
#include <catch2/catch.hpp>

#include "alloc/allocation_counter.hpp"
#include "kktdae/kktdae.hpp"

using namespace kktdae;
using kktdae::testing::AllocationCounter;

namespace {

struct Counted {
  long allocations = 0;
  long steps = 0;
};

Counted countRun(const CircleMass& system, SimulationOptions options, long outputs, bool observed) {
  options.steps = outputs;
  const Observer observer = [](double, ConstVectorRef, ConstVectorRef, ConstVectorRef) {};
  const Observer none;
  Summary summary;
  long allocations = 0;
  {
    AllocationCounter counter;
    summary = simulate(system, system.initialState(), options, observed ? observer : none);
    allocations = counter.count();
  }
  INFO(summary.briefReport());
  REQUIRE(summary.ok());
  return {allocations, summary.steps};
}

}  // namespace

TEST_CASE("allocation: cvode_adams and ida_index1 runs allocate per run, not per step or output (seed 002's circle, both forms)",
          "[allocation][sundials]") {
  const CircleMass circle;
  for (const Integrator integrator : {Integrator::CvodeAdams, Integrator::IdaIndex1}) {
    for (const KktForm form : {KktForm::Block, KktForm::Schur}) {
      for (const bool observed : {false, true}) {
        SimulationOptions options;
        options.integrator = integrator;
        options.dt = 0.005;
        options.stabilization = Stabilization::baumgarte(5.0, 10.0);
        options.kkt.form = form;
        countRun(circle, options, 10, observed);  // warm-up: the process's first run sets up statics
        const Counted short_run = countRun(circle, options, 100, observed);
        const Counted long_run = countRun(circle, options, 400, observed);
        INFO(toString(integrator) << " " << toString(form) << (observed ? " observed" : " unobserved"));
        REQUIRE(long_run.steps > short_run.steps);
        CHECK(long_run.allocations == short_run.allocations);
      }
    }
  }
}

TEST_CASE("allocation: cvode_bdf (analytic and difference-quotient Newton matrices) and ida_index1 with difference quotients allocate per run, not per step, output or Newton matrix",
          "[allocation][sundials]") {
  const CircleMass circle;
  struct Configuration {
    Integrator integrator;
    NewtonMatrix newton_matrix;
  };
  for (const Configuration configuration : {Configuration{Integrator::CvodeBdf, NewtonMatrix::Analytic},
                                            Configuration{Integrator::CvodeBdf, NewtonMatrix::DifferenceQuotient},
                                            Configuration{Integrator::IdaIndex1, NewtonMatrix::DifferenceQuotient}}) {
    for (const KktForm form : {KktForm::Block, KktForm::Schur}) {
      for (const bool observed : {false, true}) {
        SimulationOptions options;
        options.integrator = configuration.integrator;
        options.adaptive.newton_matrix = configuration.newton_matrix;
        options.dt = 0.005;
        options.stabilization = Stabilization::baumgarte(5.0, 10.0);
        options.kkt.form = form;
        countRun(circle, options, 10, observed);  // warm-up
        const Counted short_run = countRun(circle, options, 100, observed);
        const Counted long_run = countRun(circle, options, 400, observed);
        INFO(toString(configuration.integrator) << " " << toString(configuration.newton_matrix) << " "
                                                << toString(form) << (observed ? " observed" : " unobserved"));
        REQUIRE(long_run.steps > short_run.steps);
        CHECK(long_run.allocations == short_run.allocations);
      }
    }
  }
}
