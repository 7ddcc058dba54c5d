#pragma once
/// @file
/// What a benchmark problem from the literature ships besides its model: consistent initial
/// values and a published reference solution, both in kktdae's sign conventions, with the
/// factor that turns our multipliers into the source's.

#include <string>
#include <vector>

#include "kktdae/core/state.hpp"

namespace kktdae {

/// A consistent start: (t0, q, q̇) with φ = 0 and φ̇ = 0, and the accelerations and multipliers
/// the source gives there (they satisfy M q̈ + h = Jᵀλ and J q̈ + γ = 0, our signs).
/// Sizes: state.q, state.v, qdd nq; lambda nc.
struct ConsistentStart {
  State state;    ///< (t0, q, q̇) on the manifold
  Vector qdd;     ///< q̈ at the start
  Vector lambda;  ///< λ at the start, our sign
};

/// One solver's published score on the problem (the Test Set's report of a run at
/// rtol = atol = tolerance), for plotting ours beside it.
struct PublishedResult {
  std::string solver;      ///< e.g. "RADAU5"
  double tolerance = 0.0;  ///< rtol = atol of the run
  double scd = 0.0;        ///< its significant correct digits on the scored components
  long steps = -1;         ///< −1: not published
  long evaluations = -1;   ///< f evaluations of the source's first-order DAE; −1: not published
};

/// The source's solution at t_end, our signs. Sizes: q, v nq; lambda nc.
struct ReferenceSolution {
  std::string source;   ///< where the numbers come from, in words
  double t_end = 0.0;   ///< the time they are given at [s]
  Vector q;       ///< positions at t_end
  Vector v;       ///< velocities at t_end
  Vector lambda;  ///< multipliers at t_end, our sign
  /// λ_source = lambda_to_source · λ_ours (−1 when the source writes M q̈ = f − Gᵀλ).
  double lambda_to_source = 1.0;
  /// The source scores a solver on q[0 .. scored_components−1] (its scd and mescd).
  int scored_components = 0;
  /// Solvers' published scores on this problem (possibly none).
  std::vector<PublishedResult> published;
};

}  // namespace kktdae
