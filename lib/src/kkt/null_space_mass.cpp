#include "null_space_mass.hpp"

#include <Eigen/Eigenvalues>
#include <limits>

namespace kktdae::detail {

void nullSpaceBasis(const Eigen::HouseholderQR<Matrix>& qr, Matrix& basis, Vector& work) {
  basis.setIdentity();
  // Q = H₁ H₂ ⋯ H_nc applied to I in place, with the caller's workspace (householderQ()'s
  // conversion to a dense matrix allocates).
  qr.householderQ().applyThisOnTheLeft(basis, work);
}

bool massPositiveOnNullSpace(KktWorkspace& ws) {
  const int free_directions = ws.nq - ws.nc;
  if (free_directions <= 0) return true;
  ws.ensureNullSpaceStorage();
  ws.jacobian_qr.compute(ws.J.transpose());
  nullSpaceBasis(ws.jacobian_qr, ws.null_space, ws.householder_work);
  const auto Z = ws.null_space.rightCols(free_directions);
  ws.null_space_mass.noalias() = ws.M * Z;
  ws.reduced_mass.noalias() = Z.transpose() * ws.null_space_mass;
  ws.reduced_llt.compute(ws.reduced_mass);
  return ws.reduced_llt.info() == Eigen::Success;
}

double smallestNullSpaceMassEigenvalue(ConstMatrixRef M, ConstMatrixRef J) {
  const Eigen::Index nq = M.rows();
  const Eigen::Index free_directions = nq - J.rows();
  if (free_directions <= 0) return std::numeric_limits<double>::infinity();
  const Eigen::HouseholderQR<Matrix> qr(J.transpose());
  Matrix basis(nq, nq);
  Vector work(nq);
  nullSpaceBasis(qr, basis, work);
  const Matrix Z = basis.rightCols(free_directions);
  const Matrix symmetric = 0.5 * (M + M.transpose());
  const Matrix reduced = Z.transpose() * symmetric * Z;
  const Eigen::SelfAdjointEigenSolver<Matrix> eigen(reduced, Eigen::EigenvaluesOnly);
  if (eigen.info() != Eigen::Success) return std::numeric_limits<double>::quiet_NaN();
  return eigen.eigenvalues()[0];
}

}  // namespace kktdae::detail
