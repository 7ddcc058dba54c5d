#include "kktdae/kkt/kkt_workspace.hpp"

namespace kktdae {

KktWorkspace::KktWorkspace(const ConstrainedSystem& system)
    : nq(system.nq()), nc(system.nc()), nu(system.nu()), mass_structure(system.massStructure()) {
  qdd = Vector::Zero(nq);
  lambda = Vector::Zero(nc);
  mass_diagonal = Vector::Ones(nq);
  inverse_mass_diagonal = Vector::Ones(nq);
  if (mass_structure == MassStructure::General) M = Matrix::Zero(nq, nq);
  h = Vector::Zero(nq);
  S = Matrix::Zero(nu, nq);
  force = Vector::Zero(nq);
  phi = Vector::Zero(nc);
  phi_t = Vector::Zero(nc);
  phi_dot = Vector::Zero(nc);
  gamma = Vector::Zero(nc);
  J = Matrix::Zero(nc, nq);
  constraint_target = Vector::Zero(nc);
  constraint_diagonal = Vector::Zero(nc);
  regularization = Vector::Zero(nc);
  mass_llt = Eigen::LLT<Matrix>(nq);
  inverse_mass_jt = Matrix::Zero(nq, nc);
  free_acceleration = Vector::Zero(nq);
  schur = Matrix::Zero(nc, nc);
  schur_rhs = Vector::Zero(nc);
  schur_llt = Eigen::LLT<Matrix>(nc);
  schur_condition.ensureSize(nc);
}

void KktWorkspace::ConditionWork::ensureSize(Eigen::Index n) {
  if (x.size() == n) return;
  x = Vector::Zero(n);
  y = Vector::Zero(n);
  z = Vector::Zero(n);
}

void KktWorkspace::ensureBlockStorage() {
  const int n = nq + nc;
  if (block.rows() == n) return;
  block = Matrix::Zero(n, n);
  block_rhs = Vector::Zero(n);
  block_solution = Vector::Zero(n);
  block_lu = Eigen::PartialPivLU<Matrix>(n);
  block_condition.ensureSize(n);
  block_constant_part_ready = false;
}

}  // namespace kktdae
