#pragma once
// Runs that must agree state by state (two matrices, two paths): every observed (q, q̇, λ)
// stacked into one vector, and their worst relative difference.

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kktdae/simulate/simulate.hpp"

namespace kktdae::testing {

/// simulate() with an observer that keeps (q, q̇, λ) of every observed state, in order.
inline std::vector<Vector> recordStates(const ConstrainedSystem& system, const State& initial,
                                        const SimulationOptions& options, Summary& summary) {
  std::vector<Vector> states;
  summary = simulate(system, initial, options, [&](double, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) {
    Vector x(q.size() + v.size() + lambda.size());
    x << q, v, lambda;
    states.push_back(x);
  });
  return states;
}

/// max over states k and entries i of |a_k[i] − b_k[i]| / max(1, |a_k[i]|); the two records must
/// have the same length and shapes (the caller checks).
inline double worstRelativeDifference(const std::vector<Vector>& a, const std::vector<Vector>& b) {
  double worst = 0.0;
  for (std::size_t k = 0; k < std::min(a.size(), b.size()); ++k) {
    for (Eigen::Index i = 0; i < a[k].size(); ++i) {
      worst = std::max(worst, std::abs(a[k][i] - b[k][i]) / std::max(1.0, std::abs(a[k][i])));
    }
  }
  return worst;
}

/// One generalized-α / HHT run with the dense LU (index 0) and one with the sparse KLU (index 1)
/// iteration matrix, from the same options otherwise.
struct DenseAndSparseRuns {
  std::vector<Vector> states[2];
  Summary summaries[2];

  /// Both succeeded and observed the same number of states.
  bool ok() const {
    return summaries[0].ok() && summaries[1].ok() && states[0].size() == states[1].size();
  }
  /// Both runs' messages, for a failing check.
  std::string messages() const { return "dense: " + summaries[0].message + " | sparse: " + summaries[1].message; }
  /// worstRelativeDifference() of the two records.
  double worstDifference() const { return worstRelativeDifference(states[0], states[1]); }
};

inline DenseAndSparseRuns runDenseAndSparse(const ConstrainedSystem& system, const State& initial,
                                            SimulationOptions options) {
  DenseAndSparseRuns runs;
  const IterationMatrix matrices[] = {IterationMatrix::Dense, IterationMatrix::Sparse};
  for (int m = 0; m < 2; ++m) {
    options.generalized_alpha.iteration_matrix = matrices[m];
    runs.states[m] = recordStates(system, initial, options, runs.summaries[m]);
  }
  return runs;
}

}  // namespace kktdae::testing
