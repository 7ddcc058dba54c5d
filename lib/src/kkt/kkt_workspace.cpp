#include "kktdae/kkt/kkt_workspace.hpp"

namespace kktdae {

KktWorkspace::KktWorkspace(const ConstrainedSystem& system)
    : nq(system.nq()), nc(system.nc()), nu(system.nu()), mass_structure(system.massStructure()) {
  qdd = Vector::Zero(nq);
  lambda = Vector::Zero(nc);
  mass_diagonal = Vector::Ones(nq);
  inverse_mass_diagonal = Vector::Ones(nq);
  M = Matrix::Zero(nq, nq);
  h = Vector::Zero(nq);
  S = Matrix::Zero(nu, nq);
  force = Vector::Zero(nq);
  phi = Vector::Zero(nc);
  phi_t = Vector::Zero(nc);
  phi_dot = Vector::Zero(nc);
  gamma = Vector::Zero(nc);
  J = Matrix::Zero(nc, nq);
  constraint_target = Vector::Zero(nc);
  mass_llt = Eigen::LLT<Matrix>(nq);
  inverse_mass_jt = Matrix::Zero(nq, nc);
  free_acceleration = Vector::Zero(nq);
  schur = Matrix::Zero(nc, nc);
  schur_rhs = Vector::Zero(nc);
  schur_llt = Eigen::LLT<Matrix>(nc);
  block = Matrix::Zero(nq + nc, nq + nc);
  block_rhs = Vector::Zero(nq + nc);
  block_solution = Vector::Zero(nq + nc);
  block_lu = Eigen::PartialPivLU<Matrix>(nq + nc);
}

}  // namespace kktdae
