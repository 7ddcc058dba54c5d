// Swings seed 000's double pendulum for one second through the installed library.
#include <cstdio>

#include <kktdae/kktdae.hpp>

int main() {
  const kktdae::PendulumChain chain(kktdae::PendulumChainParams::uniform(2));
  kktdae::SimulationOptions options;
  options.steps = 200;
  options.stabilization = kktdae::Stabilization::critical(20.0);
  const kktdae::Summary summary = kktdae::simulate(chain, chain.initialState(0.0), options);
  std::printf("%s\n", summary.briefReport().c_str());
  return summary.ok() && summary.max_phi_inf < 0.1 ? 0 : 1;
}
