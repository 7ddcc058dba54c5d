#pragma once
// Diagnostics for a failed KKT solve (internal header): which constraint rows are to blame.

#include <vector>

#include "kktdae/core/types.hpp"

namespace kktdae::detail {

/// The rows a linear dependency among the rows of J runs through: the support of the null space
/// of Jᵀ, from a column-pivoted QR of Jᵀ (relative threshold nc·eps·|R₀₀|) — every row of a loop
/// closed twice, both copies of a row written twice. When J has full numerical rank, the weakest
/// row (the last pivot) is returned so that an ill-conditioned failure still names a row.
/// Allocates: failure path only.
std::vector<int> dependentConstraintRows(ConstMatrixRef J);

/// As above with the QR's relative threshold given (|R_ii| ≤ threshold · |R₀₀| counts as zero);
/// returns no row when J has full rank at that threshold.
std::vector<int> dependentConstraintRows(ConstMatrixRef J, double relative_threshold);

/// Rows of a matrix (or entries of a vector) holding a non-finite value.
std::vector<int> nonFiniteRows(ConstMatrixRef values);

}  // namespace kktdae::detail
