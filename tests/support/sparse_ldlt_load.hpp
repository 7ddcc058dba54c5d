#pragma once
// Loads a dense symmetric matrix into an analyzed SparseLdlt: the tests' way to give it a pattern.

#include <utility>
#include <vector>

#include "kktdae/linalg/sparse_ldlt.hpp"

namespace kktdae::test {

/// Analyzes the pattern of A's upper-triangle non-zeros (and every diagonal) and writes their
/// values at the positions analyze() returns.
inline void loadUpperTriangle(SparseLdlt& ldlt, const Matrix& A, bool reorder,
                              int max_bandwidth = SparseLdlt::kDefaultMaxBandwidth) {
  std::vector<std::pair<int, int>> entries;
  std::vector<double> values;
  for (int j = 0; j < A.cols(); ++j) {
    for (int i = 0; i <= j; ++i) {
      if (i == j || A(i, j) != 0.0) {
        entries.emplace_back(i, j);
        values.push_back(A(i, j));
      }
    }
  }
  const std::vector<int> position = ldlt.analyze(static_cast<int>(A.rows()), entries, reorder, max_bandwidth);
  for (std::size_t e = 0; e < entries.size(); ++e) ldlt.values()[position[e]] = values[e];
}

}  // namespace kktdae::test
