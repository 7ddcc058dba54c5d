#pragma once
// TEMPORARY stand-in for kktdae/system/dynamics_jacobian.hpp (branch `newton` owns the real one):
// the same class and accessors, by plain forward differences. Removed when `newton` lands.

#include <algorithm>
#include <cmath>

#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

struct DynamicsJacobianOptions {
  double relative_step = 1.4901161193847656e-8;
  void validate() const {}
};

class DynamicsJacobian {
 public:
  DynamicsJacobian(const ConstrainedSystem& system, DynamicsJacobianOptions options = {})
      : system_(system), options_(options) {
    const int nq = system.nq(), nc = system.nc(), nu = system.nu();
    M_ = Matrix::Zero(nq, nq); K_ = Matrix::Zero(nq, nq); C_ = Matrix::Zero(nq, nq);
    J_ = Matrix::Zero(nc, nq); Jp_ = Matrix::Zero(nc, nq); S_ = Matrix::Zero(nu, nq);
    cq_ = Matrix::Zero(nc, nq); cv_ = Matrix::Zero(nc, nq);
    r0_ = Vector::Zero(nq); r1_ = Vector::Zero(nq); h_ = Vector::Zero(nq); qp_ = Vector::Zero(nq);
    vp_ = Vector::Zero(nq); Mp_ = Matrix::Zero(nq, nq);
  }
  void evaluate(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef a, ConstVectorRef lambda,
                ConstVectorRef u) {
    residual(t, q, v, a, lambda, u, M_, J_, r0_);
    qp_ = q;
    for (int j = 0; j < q.size(); ++j) {
      const double step = options_.relative_step * std::max(std::abs(q[j]), 1.0);
      qp_[j] = q[j] + step;
      residual(t, qp_, v, a, lambda, u, Mp_, Jp_, r1_);
      K_.col(j) = (r1_ - r0_) / step;
      qp_[j] = q[j];
    }
    vp_ = v;
    system_.bias(q, v, t, r0_);
    ++evaluations_;
    for (int j = 0; j < v.size(); ++j) {
      const double step = options_.relative_step * std::max(std::abs(v[j]), 1.0);
      vp_[j] = v[j] + step;
      system_.bias(q, vp_, t, r1_);
      ++evaluations_;
      C_.col(j) = (r1_ - r0_) / step;
      vp_[j] = v[j];
    }
  }
  const Matrix& mass() const { return M_; }
  const Matrix& stiffness() const { return K_; }
  const Matrix& damping() const { return C_; }
  const Matrix& jacobian() const { return J_; }
  const Matrix& constraintQ() const { return cq_; }
  const Matrix& constraintV() const { return cv_; }
  long modelEvaluations() const { return evaluations_; }

 private:
  const ConstrainedSystem& system_;
  DynamicsJacobianOptions options_;
  Matrix M_, K_, C_, J_, Jp_, S_, cq_, cv_, Mp_;
  Vector r0_, r1_, h_, qp_, vp_;
  long evaluations_ = 0;

  void residual(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef a, ConstVectorRef lambda,
                ConstVectorRef u, Matrix& M, Matrix& J, Vector& r) {
    system_.massMatrix(q, M);
    system_.bias(q, v, t, h_);
    system_.constraintJacobian(q, t, J);
    r.noalias() = M * a;
    r += h_;
    r.noalias() -= J.transpose() * lambda;
    if (u.size() > 0) {
      system_.inputMap(q, t, S_);
      r.noalias() -= S_.transpose() * u;
    }
    ++evaluations_;
  }
};

}  // namespace kktdae
