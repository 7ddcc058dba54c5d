#include "kktdae/kkt/kkt_workspace.hpp"

#include <limits>

namespace kktdae {

// The factorizations are built in the initializer list: Eigen's LLT(size) constructor leaves its
// `info` flag unset, so copying or moving a size-constructed LLT reads an indeterminate value
// (UBSan flags it).
KktWorkspace::KktWorkspace(const ConstrainedSystem& system, const KktOptions& options)
    : nq((checkDimensions(system), system.nq())),
      nc(system.nc()),
      nu(system.nu()),
      mass_structure(system.massStructure()),
      sparse(usesSparsePath(system, options)),
      resolved_from{&system, options.path, options.rank_deficiency, options.sparse_min_coordinates},
      mass_llt(sparse ? 0 : system.nq()),
      schur_llt(sparse ? 0 : system.nc()),
      reduced_llt(Matrix()) {
  // The model's outputs start as NaN: an entry the model never writes (a forgotten constraint row,
  // a comma initializer one short) then fails the finiteness checks as "non-finite J" instead of
  // passing as a zero that the solve would misreport as dependent rows. Models write every entry
  // on every call (constrained_system.hpp), so the sentinels cost nothing per step.
  const double unset = std::numeric_limits<double>::quiet_NaN();
  qdd = Vector::Zero(nq);
  lambda = Vector::Zero(nc);
  mass_diagonal = Vector::Constant(nq, unset);
  inverse_mass_diagonal = Vector::Ones(nq);
  if (mass_structure == MassStructure::General && !sparse) M = Matrix::Constant(nq, nq, unset);
  h = Vector::Constant(nq, unset);
  S = Matrix::Constant(nu, nq, unset);
  force = Vector::Zero(nq);
  phi = Vector::Constant(nc, unset);
  phi_t = Vector::Constant(nc, unset);
  phi_dot = Vector::Zero(nc);
  gamma = Vector::Constant(nc, unset);
  if (!sparse) J = Matrix::Constant(nc, nq, unset);
  constraint_target = Vector::Zero(nc);
  constraint_diagonal = Vector::Zero(nc);
  regularization = Vector::Zero(nc);
  free_acceleration = Vector::Zero(nq);
  if (sparse) {
    constraint_space.emplace(system);
  } else {
    inverse_mass_jt = Matrix::Zero(nq, nc);
    schur = Matrix::Zero(nc, nc);
  }
  schur_rhs = Vector::Zero(nc);
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

void KktWorkspace::ensureNullSpaceStorage() {
  const int free_directions = nq > nc ? nq - nc : 0;
  if (null_space.rows() == nq && reduced_mass.rows() == free_directions) return;
  jacobian_qr = Eigen::HouseholderQR<Matrix>(nq, nc);
  null_space = Matrix::Identity(nq, nq);
  null_space_mass = Matrix::Zero(nq, free_directions);
  reduced_mass = Matrix::Zero(free_directions, free_directions);
  reduced_llt = Eigen::LLT<Matrix>(reduced_mass);
  householder_work = Vector::Zero(nq);
}

void KktWorkspace::ensureRankDeficientStorage() {
  if (rank_regularization.size() == nc) return;
  pseudo_inverse.resize(nc);
  rank_regularization = Vector::Zero(nc);
  refinement_rhs = Vector::Zero(nq + nc);
  refinement_step = Vector::Zero(nq + nc);
}

Matrix KktWorkspace::jacobian() const {
  if (!sparse) return J;
  return Matrix(constraint_space->J);
}

}  // namespace kktdae
