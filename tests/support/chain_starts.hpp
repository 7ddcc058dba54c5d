#pragma once
// Seed 000's start and the chains' off-manifold start of docs/baumgarte.md §3–§5 (and kktdae-errdyn's), shared by the
// tests that compare limits against the docs' tables.

#include "kktdae/kktdae.hpp"

namespace kktdae::testing {

/// Seed 000's start: the tilt numpy's default_rng(0).uniform(-0.05, 0.05) draws first.
inline constexpr double kSeed0Tilt = 0.013696168732145436;

/// Tilted 0.3 rad, every link 2 % long, and a velocity that stretches the links (J q̇ ≠ 0).
inline State stretchedChainStart(const PendulumChain& chain) {
  State s = chain.initialState(0.3);
  s.q *= 1.02;
  for (Eigen::Index i = 0; i < s.v.size(); ++i) s.v[i] = 0.1 * static_cast<double>((i * 7) % 5 - 2);
  return s;
}

}  // namespace kktdae::testing
