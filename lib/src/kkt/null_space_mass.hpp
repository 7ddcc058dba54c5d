#pragma once
// Whether a singular M still gives a nonsingular block matrix (internal header).

#include <Eigen/Cholesky>
#include <Eigen/QR>

#include "kktdae/core/types.hpp"
#include "kktdae/kkt/kkt_workspace.hpp"

namespace kktdae::detail {

/// Q of the QR of Jᵀ (nq×nc) into `basis` (nq×nq, orthonormal): for a J of full row rank its
/// last nq − nc columns span null(J). `work` has nq entries. Allocates nothing once sized.
void nullSpaceBasis(const Eigen::HouseholderQR<Matrix>& qr, Matrix& basis, Vector& work);

/// Whether M (ws.M) is positive definite on null(J) (ws.J): the Cholesky factorization of ZᵀMZ,
/// Z the last nq − nc columns of nullSpaceBasis(). With J of full row rank this is exactly when
/// [M −Jᵀ; J 0] is nonsingular with the inertia of a mechanism's (the block solve's LU still
/// tests J's rank). True when nc ≥ nq: null(J) is then {0} for a full-rank J. Uses the
/// workspace's null-space buffers (sized at the first call).
bool massPositiveOnNullSpace(KktWorkspace& ws);

/// The smallest eigenvalue of ZᵀMZ (as above), +∞ when null(J) = {0}. Allocates: for checkModel.
double smallestNullSpaceMassEigenvalue(ConstMatrixRef M, ConstMatrixRef J);

}  // namespace kktdae::detail
