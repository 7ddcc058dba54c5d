#include "newton_matrices.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kktdae::detail {
namespace {

double baumgarteAlpha(const Stabilization& s) { return s.kind == Stabilization::Kind::Baumgarte ? s.alpha : 0.0; }
double baumgarteBeta(const Stabilization& s) { return s.kind == Stabilization::Kind::Baumgarte ? s.beta : 0.0; }

}  // namespace

std::string analyticNewtonUnsupported(const Stabilization& stabilization) {
  if (stabilization.kind == Stabilization::Kind::Soft) {
    return "the soft constraint's R lambda term is not differentiated analytically";
  }
  return "";
}

ControlledDynamics::ControlledDynamics(const ConstrainedSystem& system, const Controller& controller)
    : controller_(controller),
      dynamics_(system),
      nq_(system.nq()),
      nu_(system.nu()),
      stiffness_(Matrix::Zero(nq_, nq_)),
      damping_(Matrix::Zero(nq_, nq_)),
      u0_(Vector::Zero(nu_)),
      u1_(Vector::Zero(nu_)),
      x_(Vector::Zero(nq_)) {}

void ControlledDynamics::evaluate(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef a,
                                  ConstVectorRef lambda) {
  const bool controlled = nu_ > 0 && static_cast<bool>(controller_);
  u0_.setZero();
  if (controlled) {
    controller_(t, q, v, u0_);
    ++controller_calls_;
  }
  dynamics_.evaluate(t, q, v, a, lambda, u0_);
  stiffness_ = dynamics_.stiffness();
  damping_ = dynamics_.damping();
  if (!controlled) return;
  // r contains −S(q)ᵀ u(t, q, v): the controller's columns, S held at q (its own q-derivative is
  // already in K). Forward differences, √eps relative, as everywhere in the Newton matrices.
  const Matrix& S = dynamics_.inputMap();
  const double eps = std::sqrt(std::numeric_limits<double>::epsilon());
  for (int pass = 0; pass < 2; ++pass) {
    ConstVectorRef x0 = pass == 0 ? q : v;
    Matrix& block = pass == 0 ? stiffness_ : damping_;
    x_ = x0;
    for (int j = 0; j < nq_; ++j) {
      const double step = (x0[j] + eps * std::max(1.0, std::abs(x0[j]))) - x0[j];
      x_[j] = x0[j] + step;
      if (pass == 0) {
        controller_(t, x_, v, u1_);
      } else {
        controller_(t, q, x_, u1_);
      }
      ++controller_calls_;
      x_[j] = x0[j];
      block.col(j).noalias() -= S.transpose() * ((u1_ - u0_) / step);
    }
  }
}

IdaDenseNewton::IdaDenseNewton(const ConstrainedSystem& system, bool ggl, const Stabilization& stabilization,
                               const Controller& controller)
    : dynamics_(system, controller),
      ggl_(ggl),
      alpha_(ggl ? 0.0 : baumgarteAlpha(stabilization)),
      beta_(ggl ? 0.0 : baumgarteBeta(stabilization)),
      nq_(system.nq()),
      nc_(system.nc()),
      n_(2 * nq_ + (ggl ? 2 : 1) * nc_) {}

void IdaDenseNewton::assemble(double t, const double* y, const double* y_dot, double c, double* data) {
  Eigen::Map<Matrix> G(data, n_, n_);
  const Eigen::Map<const Vector> q(y, nq_), v(y + nq_, nq_), lambda(y + 2 * nq_, nc_);
  const Eigen::Map<const Vector> v_dot(y_dot + nq_, nq_);
  dynamics_.evaluate(t, q, v, v_dot, lambda);
  DynamicsJacobian& d = dynamics_.terms();
  const int lam = 2 * nq_;
  G.setZero();
  // F_q = q̇ − v (+ Jᵀμ)
  G.block(0, 0, nq_, nq_).diagonal().setConstant(c);
  G.block(0, nq_, nq_, nq_).diagonal().setConstant(-1.0);
  // F_v = M v̇ + h − Sᵀu − Jᵀλ
  G.block(nq_, 0, nq_, nq_) = dynamics_.stiffness();
  G.block(nq_, nq_, nq_, nq_) = dynamics_.damping() + c * d.mass();
  G.block(nq_, lam, nq_, nc_) = -d.jacobian().transpose();
  if (nc_ == 0) return;
  if (ggl_) {
    const int mu0 = 2 * nq_ + nc_;
    const Eigen::Map<const Vector> mu(y + mu0, nc_);
    d.evaluateConstraintCurvature(t, q, v, mu);
    G.block(0, 0, nq_, nq_) += d.transposedCurvature();
    G.block(0, mu0, nq_, nc_) = d.jacobian().transpose();
    // F_φ̇ = J v + ∂φ/∂t, F_φ = φ
    G.block(lam, 0, nc_, nq_) = d.velocityConstraintQ();
    G.block(lam, nq_, nc_, nq_) = d.jacobian();
    G.block(mu0, 0, nc_, nq_) = d.jacobian();
    return;
  }
  // F_c = J v̇ + γ + 2α(J v + ∂φ/∂t) + β²φ
  G.block(lam, 0, nc_, nq_) = d.constraintQ() + beta_ * beta_ * d.jacobian();
  if (alpha_ != 0.0) {
    d.evaluateConstraintCurvature(t, q, v, Vector());
    G.block(lam, 0, nc_, nq_) += 2.0 * alpha_ * d.velocityConstraintQ();
  }
  G.block(lam, nq_, nc_, nq_) = d.constraintV() + (2.0 * alpha_ + c) * d.jacobian();
}

CvodeDenseJacobian::CvodeDenseJacobian(const ConstrainedSystem& system, const Stabilization& stabilization,
                                       const Controller& controller)
    : dynamics_(system, controller),
      alpha_(baumgarteAlpha(stabilization)),
      beta_(baumgarteBeta(stabilization)),
      nq_(system.nq()),
      nc_(system.nc()),
      kkt_(Matrix::Zero(nq_ + nc_, nq_ + nc_)),
      rhs_(Matrix::Zero(nq_ + nc_, 2 * nq_)),
      solution_(Matrix::Zero(nq_ + nc_, 2 * nq_)),
      decomposition_(nq_ + nc_, nq_ + nc_),
      transformed_(Matrix::Zero(nq_ + nc_, 2 * nq_)),
      unpermuted_(Matrix::Zero(nq_ + nc_, 2 * nq_)),
      householder_workspace_(Eigen::RowVectorXd::Zero(2 * nq_)) {}

void CvodeDenseJacobian::solveMinimumNorm() {
  const Eigen::Index rank = decomposition_.rank();
  if (rank < decomposition_.cols()) {
    // Redundant constraints: the minimum-norm solution needs the complete decomposition's Z step;
    // Eigen's own solve does it (and allocates: rank deficiency is the rare case).
    solution_ = decomposition_.solve(rhs_);
    return;
  }
  // Full rank: x = P (T⁻¹ Qᵀ rhs), Eigen's _solve_impl without its Z step (absent at full rank).
  transformed_ = rhs_;
  decomposition_.matrixQ().setLength(rank).adjoint().applyThisOnTheLeft(transformed_, householder_workspace_);
  unpermuted_ = transformed_;
  decomposition_.matrixT().topLeftCorner(rank, rank).triangularView<Eigen::Upper>().solveInPlace(unpermuted_);
  solution_.noalias() = decomposition_.colsPermutation() * unpermuted_;
}

bool CvodeDenseJacobian::assemble(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef a,
                                  ConstVectorRef lambda, double* data) {
  dynamics_.evaluate(t, q, v, a, lambda);
  DynamicsJacobian& d = dynamics_.terms();
  kkt_.topLeftCorner(nq_, nq_) = d.mass();
  kkt_.topRightCorner(nq_, nc_) = -d.jacobian().transpose();
  kkt_.bottomLeftCorner(nc_, nq_) = d.jacobian();
  kkt_.bottomRightCorner(nc_, nc_).setZero();
  rhs_.topLeftCorner(nq_, nq_) = -dynamics_.stiffness();
  rhs_.topRightCorner(nq_, nq_) = -dynamics_.damping();
  if (nc_ > 0) {
    rhs_.bottomLeftCorner(nc_, nq_) = -(d.constraintQ() + beta_ * beta_ * d.jacobian());
    if (alpha_ != 0.0) {
      d.evaluateConstraintCurvature(t, q, v, Vector());
      rhs_.bottomLeftCorner(nc_, nq_) -= 2.0 * alpha_ * d.velocityConstraintQ();
    }
    rhs_.bottomRightCorner(nc_, nq_) = -(d.constraintV() + 2.0 * alpha_ * d.jacobian());
  }
  decomposition_.compute(kkt_);
  solveMinimumNorm();
  Eigen::Map<Matrix> jac(data, 2 * nq_, 2 * nq_);
  jac.topRows(nq_).setZero();
  jac.block(0, nq_, nq_, nq_).diagonal().setOnes();
  jac.bottomRows(nq_) = solution_.topRows(nq_);
  return solution_.allFinite();
}

}  // namespace kktdae::detail
