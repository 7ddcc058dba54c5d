#pragma once
/// @file
/// The state of a constrained system: time, coordinates and their rates. Plain data.

#include "kktdae/core/types.hpp"

namespace kktdae {

/// (t, q, v) with v = q̇. Sizes: q and v both have nq entries.
struct State {
  double t = 0.0;
  Vector q;
  Vector v;
};

}  // namespace kktdae
