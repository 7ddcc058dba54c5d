// MuJoCo's mj_step on the same chains (mujoco_chain.hpp), in joint and in maximal coordinates,
// over N (the maximal chain also at 1000 links, to compare with our sparse step there, with our
// step there: stepDt()); and the once-printed check that those models are our chains.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "bench_setup.hpp"
#include "mujoco_bench.hpp"
#include "mujoco_chain.hpp"

namespace kktdae::bench {
namespace {

void mujocoStep(benchmark::State& state, MujocoCoordinates coordinates, int links) {
  MujocoChain chain = makeMujocoChain(coordinates, links, seedTilt());
  chain.model->opt.timestep = stepDt(links);  // the same step as ours at this size
  mjModel* m = chain.model.get();
  mjData* d = chain.data.get();
  long since_reset = 0;
  for (auto _ : state) {
    if (since_reset++ == kStepsBetweenResets) {
      chain.reset();
      since_reset = 1;
    }
    mj_step(m, d);
    benchmark::DoNotOptimize(d->qpos);
    benchmark::ClobberMemory();
  }
  if (d->warning[mjWARN_CNSTRFULL].number > 0) {
    state.SkipWithError("MuJoCo ran out of constraint rows (njmax): it dropped links");
  }
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

void registerMujocoBenchmarks() {
  for (const MujocoCoordinates coordinates : {MujocoCoordinates::Joint, MujocoCoordinates::Maximal}) {
    std::vector<int> sizes = chainSizes();
    if (coordinates == MujocoCoordinates::Maximal) sizes.push_back(1000);
    registerOverSizes(std::string("mujoco_step/") + toString(coordinates),
                      [coordinates](benchmark::State& state, int links) { mujocoStep(state, coordinates, links); },
                      sizes);
  }
}

bool checkMujocoChains(std::FILE* out) {
  constexpr long kCheckSteps = 100;  // 0.5 s of swing
  const double tilt = seedTilt();
  bool all_ok = true;
  for (const MujocoCoordinates coordinates : {MujocoCoordinates::Joint, MujocoCoordinates::Maximal}) {
    double worst_launch_mismatch = 0.0, smallest_swing = 1e300, largest_tip_gap = 0.0;
    for (const int links : chainSizes()) {
      const PendulumChain ours(PendulumChainParams::uniform(links));
      State state = ours.initialState(tilt);
      MujocoChain theirs = makeMujocoChain(coordinates, links, tilt);
      const std::vector<Eigen::Vector3d> launch = theirs.massPositions();
      for (int k = 0; k < links; ++k) {
        worst_launch_mismatch =
            std::max(worst_launch_mismatch, (launch[k] - state.q.segment<3>(3 * k)).cwiseAbs().maxCoeff());
      }
      for (long step = 0; step < kCheckSteps; ++step) mj_step(theirs.model.get(), theirs.data.get());
      const Eigen::Vector3d tip = theirs.massPositions().back();
      smallest_swing = std::min(smallest_swing, (tip - launch.back()).norm());

      SimulationOptions options;  // semi-implicit Euler, Schur, dt 0.005, no stabilization
      options.steps = kCheckSteps;
      options.dt = kDt;
      const Summary summary = simulate(ours, state, options, [&](double, ConstVectorRef q, ConstVectorRef, ConstVectorRef) {
        state.q = q;
      });
      if (summary.ok()) largest_tip_gap = std::max(largest_tip_gap, (ours.tip(state.q) - tip).norm());
    }
    const bool ok = worst_launch_mismatch < 1e-9 && smallest_swing > 0.1;
    all_ok = all_ok && ok;
    std::fprintf(out,
                 "[sanity] mujoco %-7s chains, N = 2 … 200: launch positions match ours to %.1e m; after %ld steps "
                 "every tip has moved >= %.3f m (swings); tip vs ours (semi-implicit, no stabilization) <= %.3g m: %s\n",
                 toString(coordinates), worst_launch_mismatch, kCheckSteps, smallest_swing, largest_tip_gap,
                 ok ? "ok" : "FAILED");
  }
  return all_ok;
}

}  // namespace kktdae::bench
