#pragma once
// Eigen-decomposition of a small symmetric matrix without allocation (internal header).

#include "kktdae/core/types.hpp"

namespace kktdae::detail {

/// A = V diag(w) Vᵀ by cyclic Jacobi rotations, in caller-owned buffers: `a` (n×n) holds A on
/// entry and is destroyed, V (n×n) and w (n) receive the result (unsorted). Eigen's
/// SelfAdjointEigenSolver allocates a Householder workspace on every compute(); this allocates
/// nothing, and Jacobi's rotations give small eigenvalues to high relative accuracy, which is
/// what deciding a numerical rank needs. O(n³) per sweep, a handful of sweeps: for the dense
/// constraint space of a rank-deficient solve, not for large systems.
void symmetricEigenJacobi(Matrix& a, Matrix& V, Vector& w);

}  // namespace kktdae::detail
