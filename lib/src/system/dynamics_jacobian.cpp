#include "kktdae/system/dynamics_jacobian.hpp"

#include <algorithm>
#include <cmath>

#include "kktdae/core/checks.hpp"

namespace kktdae {

void DynamicsJacobianOptions::validate() const {
  if (!std::isfinite(relative_step) || relative_step <= 0.0 || relative_step > 0.1) {
    throwInvalid("dynamics_jacobian.relative_step", "must be in (0, 0.1], got " + formatDouble(relative_step));
  }
}

DynamicsJacobian::DynamicsJacobian(const ConstrainedSystem& system, DynamicsJacobianOptions options)
    : system_(system), options_(options) {
  options_.validate();
  checkDimensions(system);
  nq_ = system.nq();
  nc_ = system.nc();
  nu_ = system.nu();
  mass_varies_ = system.massStructure() != MassStructure::ConstantDiagonal;
  bias_varies_ = system.biasDependsOnState();
  mass_ = Matrix::Zero(nq_, nq_);
  stiffness_ = Matrix::Zero(nq_, nq_);
  damping_ = Matrix::Zero(nq_, nq_);
  jacobian_ = Matrix::Zero(nc_, nq_);
  constraint_q_ = Matrix::Zero(nc_, nq_);
  constraint_v_ = Matrix::Zero(nc_, nq_);
  input_map_ = Matrix::Zero(nu_, nq_);
  mass_work_ = Matrix::Zero(nq_, nq_);
  jacobian_work_ = Matrix::Zero(nc_, nq_);
  input_work_ = Matrix::Zero(nu_, nq_);
  q_work_ = Vector::Zero(nq_);
  v_work_ = Vector::Zero(nq_);
  diagonal_work_ = Vector::Zero(nq_);
  bias_work_ = Vector::Zero(nq_);
  gamma_work_ = Vector::Zero(nc_);
  r0_ = Vector::Zero(nq_);
  r1_ = Vector::Zero(nq_);
  c0_ = Vector::Zero(nc_);
  c1_ = Vector::Zero(nc_);
}

void DynamicsJacobian::evaluateMass(ConstVectorRef q, MatrixRef M) {
  ++model_evaluations_;
  if (system_.massStructure() == MassStructure::General) {
    system_.massMatrix(q, M);
  } else {
    system_.massDiagonal(q, diagonal_work_);
    M.setZero();
    M.diagonal() = diagonal_work_;
  }
}

void DynamicsJacobian::varyingParts(double t, ConstVectorRef a, ConstVectorRef lambda, ConstVectorRef u, bool vary_q,
                                    VectorRef r, VectorRef c) {
  r.setZero();
  c.setZero();
  if (bias_varies_) {
    system_.bias(q_work_, v_work_, t, bias_work_);
    ++model_evaluations_;
    r += bias_work_;
  }
  if (nc_ > 0) {
    system_.constraintBias(q_work_, v_work_, t, gamma_work_);
    ++model_evaluations_;
    c += gamma_work_;
  }
  if (!vary_q) return;
  if (mass_varies_) {
    evaluateMass(q_work_, mass_work_);
    r.noalias() += mass_work_ * a;
  }
  if (nu_ > 0) {
    system_.inputMap(q_work_, t, input_work_);
    ++model_evaluations_;
    r.noalias() -= input_work_.transpose() * u;
  }
  if (nc_ > 0) {
    system_.constraintJacobian(q_work_, t, jacobian_work_);
    ++model_evaluations_;
    r.noalias() -= jacobian_work_.transpose() * lambda;
    c.noalias() += jacobian_work_ * a;
  }
}

void DynamicsJacobian::evaluate(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef a, ConstVectorRef lambda,
                                ConstVectorRef u) {
  requireSize("dynamics_jacobian q", q.size(), nq_);
  requireSize("dynamics_jacobian v", v.size(), nq_);
  requireSize("dynamics_jacobian a", a.size(), nq_);
  requireSize("dynamics_jacobian lambda", lambda.size(), nc_);
  if (nu_ > 0) requireSize("dynamics_jacobian u", u.size(), nu_);

  // The blocks that are values, not derivatives.
  evaluateMass(q, mass_);
  if (nc_ > 0) {
    system_.constraintJacobian(q, t, jacobian_);
    ++model_evaluations_;
  }
  if (nu_ > 0) {
    system_.inputMap(q, t, input_map_);
    ++model_evaluations_;
  }

  // Column j of a derivative: (f(x + h eⱼ) − f(x)) / h, or (f(x + h eⱼ) − f(x − h eⱼ)) / 2h.
  // h is rounded so that x + h is exactly representable: the difference then divides by the
  // step actually taken.
  const bool central = options_.central;
  auto differentiate = [&](bool vary_q, MatrixRef dr, MatrixRef dc) {
    Vector& x = vary_q ? q_work_ : v_work_;
    ConstVectorRef x0 = vary_q ? q : v;
    q_work_ = q;
    v_work_ = v;
    if (!central) varyingParts(t, a, lambda, u, vary_q, r0_, c0_);
    for (int j = 0; j < nq_; ++j) {
      const double step = options_.relative_step * std::max(1.0, std::abs(x0[j]));
      const double forward = (x0[j] + step) - x0[j];
      x[j] = x0[j] + forward;
      varyingParts(t, a, lambda, u, vary_q, r1_, c1_);
      double width = forward;
      if (central) {
        x[j] = x0[j] - forward;
        varyingParts(t, a, lambda, u, vary_q, r0_, c0_);
        width = 2.0 * forward;
      }
      x[j] = x0[j];
      dr.col(j) = (r1_ - r0_) / width;
      if (nc_ > 0) dc.col(j) = (c1_ - c0_) / width;
    }
  };

  // Every term of r and c depends on q through J at least, unless the model has no constraints,
  // a constant M, a constant h and no inputs.
  const bool q_matters = mass_varies_ || bias_varies_ || nu_ > 0 || nc_ > 0;
  if (q_matters) {
    differentiate(true, stiffness_, constraint_q_);
  } else {
    stiffness_.setZero();
  }
  if (bias_varies_ || nc_ > 0) {
    differentiate(false, damping_, constraint_v_);
  } else {
    damping_.setZero();
  }
}

}  // namespace kktdae
