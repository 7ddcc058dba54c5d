// An outside program against the installed library, built with whatever flags the test gives it
// (-march=native, -mavx2 -mfma, a sanitizer): Eigen objects cross the boundary both ways, and every
// integrator runs. Exits 1 with a line per failed check.
#include <cmath>
#include <cstdio>
#include <string>

#include <kktdae/kktdae.hpp>

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what.c_str());
    ++failures;
  }
}

// The library allocates a State's vectors; this side copies, grows (a realloc of the library's
// block), shrinks and frees them.
void stateCrossesTheBoundary(const kktdae::PendulumChain& chain) {
  kktdae::State state = chain.initialState(0.3);
  const kktdae::Vector q0 = state.q;
  state.q.conservativeResize(state.q.size() + 5);
  state.q.conservativeResize(q0.size());
  check(state.q == q0, "State::q keeps its values through conservativeResize on this side");
  kktdae::State copy = state;
  state = kktdae::State{};
  check(copy.q == q0, "a copied State keeps q after the original is freed");
}

// The library sizes a workspace this side constructs and destroys (both forms: the block form's
// buffers are allocated at its first solve, inside the library).
void workspaceCrossesTheBoundary(const kktdae::PendulumChain& chain) {
  const kktdae::State state = chain.initialState(0.3);
  const kktdae::Vector u(0);
  kktdae::Vector qdd[2];
  const kktdae::KktForm forms[2] = {kktdae::KktForm::Schur, kktdae::KktForm::Block};
  for (int k = 0; k < 2; ++k) {
    kktdae::KktOptions options;
    options.form = forms[k];
    kktdae::KktWorkspace ws(chain, options);
    const kktdae::KktResult result = kktdae::solveAccelerations(
        chain, state.t, state.q, state.v, u, kktdae::Stabilization::critical(20.0), options, ws);
    check(result.ok(), std::string("solveAccelerations, form ") + std::string(kktdae::toString(forms[k])));
    qdd[k] = ws.qdd;
  }
  check(qdd[0].size() == qdd[1].size() && (qdd[0] - qdd[1]).lpNorm<Eigen::Infinity>() < 1e-9,
        "the Schur and the block form give the same q̈");
}

// One second of the double pendulum with every integrator the library has (allIntegrators(), so
// an integrator added later is run here too); the observer copies what it is handed.
void everyIntegrator(const kktdae::PendulumChain& chain) {
  for (const kktdae::Integrator integrator : kktdae::allIntegrators()) {
    const std::string name(kktdae::toString(integrator));
    kktdae::SimulationOptions options;
    options.integrator = integrator;
    options.dt = 0.005;
    options.steps = 200;
    options.stabilization = kktdae::Stabilization::critical(20.0);
    kktdae::Vector last_q;
    long observed = 0;
    const kktdae::Summary summary = kktdae::simulate(
        chain, chain.initialState(0.3), options,
        [&](double, kktdae::ConstVectorRef q, kktdae::ConstVectorRef, kktdae::ConstVectorRef) {
          last_q = q;
          ++observed;
        });
    std::printf("%-14s %s\n", name.c_str(), summary.briefReport().c_str());
    check(summary.ok(), name + ": the run ends ok");
    check(observed == 201, name + ": the observer sees the 201 grid states");
    check(last_q.size() == chain.nq() && last_q.allFinite(), name + ": the last state is finite");
    check(summary.max_phi_inf < 1e-2, name + ": the links hold (max |phi| < 1e-2)");
  }
}

}  // namespace

int main() {
  const kktdae::PendulumChain chain(kktdae::PendulumChainParams::uniform(2));
  stateCrossesTheBoundary(chain);
  workspaceCrossesTheBoundary(chain);
  everyIntegrator(chain);
  std::printf("%s\n", failures == 0 ? "consumer: all checks passed" : "consumer: checks failed");
  return failures == 0 ? 0 : 1;
}
