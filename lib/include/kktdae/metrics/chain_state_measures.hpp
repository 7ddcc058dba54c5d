#pragma once
/// @file
/// Seed 000's per-state numbers of a pendulum chain, computed in one pass over the state.

#include <Eigen/Core>

#include "kktdae/models/pendulum_chain.hpp"

namespace kktdae {

/// What seed 000's metrics and recording need from one state: the link-length violation, the
/// total energy and the tip. Each is bit-identical to the chain's own linkLengthViolation(),
/// totalEnergy() and tip(): one pass performs their floating-point operations in their order.
struct ChainStateMeasures {
  double violation = 0.0;  ///< max_k | |d_k| − L_k | [m]
  double energy = 0.0;     ///< T + V [J]
  Eigen::Vector3d tip = Eigen::Vector3d::Zero();  ///< last particle [m]
};

/// The measures of state (q, v) of `chain`, walking the links once (no virtual call, no
/// allocation). Sizes: q, v of size chain.nq(). t does not enter (the chain's energy is
/// time-independent); it is kept for the signature of the observers that call this.
ChainStateMeasures measureChainState(const PendulumChain& chain, ConstVectorRef q, ConstVectorRef v, double t);

}  // namespace kktdae
