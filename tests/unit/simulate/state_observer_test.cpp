// simulate() with a StateObserver: the same observed states, bits and Summary as with an Observer.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include "support/test_models.hpp"

using namespace kktdae;
using Catch::Matchers::Contains;

namespace {

/// One observed state, copied.
struct Seen {
  double t;
  Vector q, v, lambda;
};

class Recording final : public StateObserver {
 public:
  void observe(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) override {
    seen.push_back({t, q, v, lambda});
    if (throw_at_call >= 0 && static_cast<long>(seen.size()) == throw_at_call + 1) throw std::runtime_error("enough");
  }
  std::vector<Seen> seen;
  long throw_at_call = -1;
};

std::vector<Seen> viaFunction(const ConstrainedSystem& system, const State& start, const SimulationOptions& options,
                              Summary& summary) {
  std::vector<Seen> seen;
  summary = simulate(system, start, options, [&](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) {
    seen.push_back({t, q, v, lambda});
  });
  return seen;
}

void requireSameRuns(const std::vector<Seen>& a, const std::vector<Seen>& b, const Summary& sa, const Summary& sb) {
  REQUIRE(sa.ok());
  REQUIRE(sb.ok());
  CHECK(sa.steps == sb.steps);
  CHECK(sa.outputs == sb.outputs);
  CHECK(sa.kkt_solves == sb.kkt_solves);
  CHECK(sa.max_phi_inf == sb.max_phi_inf);
  CHECK(sa.t_final == sb.t_final);
  REQUIRE(a.size() == b.size());
  REQUIRE(a.size() > 2);
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("observed state " << i);
    CHECK(a[i].t == b[i].t);
    CHECK(a[i].q == b[i].q);  // bit for bit: the same run, only the call path differs
    CHECK(a[i].v == b[i].v);
    CHECK(a[i].lambda == b[i].lambda);
  }
}

}  // namespace

TEST_CASE("simulate: a StateObserver sees the states, bits and counters an Observer sees", "[simulate][observer]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const State start = chain.initialState(0.3);
  SimulationOptions options;
  options.stabilization = Stabilization::baumgarte(20, 20);
  options.steps = 60;
  options.observe_every = 7;  // t0, every 7th step and the last
  for (const Integrator integrator : {Integrator::SemiImplicitEuler, Integrator::Rk4, Integrator::CvodeBdf}) {
    INFO(toString(integrator));
    options.integrator = integrator;
    Summary by_function;
    const std::vector<Seen> expected = viaFunction(chain, start, options, by_function);
    Recording recording;
    const Summary by_object = simulate(chain, start, options, recording);
    requireSameRuns(recording.seen, expected, by_object, by_function);
    CHECK(recording.seen.size() == 1 + 60 / 7 + 1);
  }
}

TEST_CASE("simulate: a StateObserver that throws ends the run as ModelError, keeping what it saw",
          "[simulate][observer]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  SimulationOptions options;
  options.steps = 50;
  Recording recording;
  recording.throw_at_call = 5;  // the state after step 5
  const Summary s = simulate(chain, chain.initialState(0.3), options, recording);
  CHECK(s.status == RunStatus::ModelError);
  CHECK_THAT(s.message, Contains("the observer threw in step 5") && Contains("enough"));
  CHECK(s.steps == 5);
  CHECK(recording.seen.size() == 6);
}

namespace {

/// Counts which entry point each driver calls, recording the states either way.
class BothEntries final : public StateObserver {
 public:
  void observe(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) override {
    ++by_ref;
    seen.push_back({t, q, v, lambda});
  }
  void observeState(double t, const Vector& q, const Vector& v, const Vector& lambda) override {
    ++by_vector;
    seen.push_back({t, q, v, lambda});
  }
  std::vector<Seen> seen;
  long by_ref = 0, by_vector = 0;
};

}  // namespace

TEST_CASE("simulate: the fixed-step driver calls observeState(), the adaptive ones observe(), with the same states",
          "[simulate][observer]") {
  const PendulumChain chain(PendulumChainParams::uniform(2));
  const State start = chain.initialState(0.3);
  SimulationOptions options;
  options.stabilization = Stabilization::baumgarte(20, 20);
  options.steps = 40;
  options.observe_every = 3;
  for (const Integrator integrator :
       {Integrator::SemiImplicitEuler, Integrator::ExplicitEuler, Integrator::Rk4, Integrator::Rattle,
        Integrator::CvodeBdf}) {
    INFO(toString(integrator));
    options.integrator = integrator;
    Summary by_function;
    const std::vector<Seen> expected = viaFunction(chain, start, options, by_function);
    BothEntries observer;
    const Summary by_object = simulate(chain, start, options, observer);
    requireSameRuns(observer.seen, expected, by_object, by_function);
    const long calls = static_cast<long>(observer.seen.size());
    if (isAdaptive(integrator)) {
      CHECK(observer.by_ref == calls);
      CHECK(observer.by_vector == 0);
    } else {
      CHECK(observer.by_vector == calls);
      CHECK(observer.by_ref == 0);
    }
  }
}
