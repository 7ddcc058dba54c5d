#include "kkt_tangent.hpp"

#include <limits>

#include "kktdae/core/checks.hpp"

namespace kktdae::detail::forward_sensitivity {

KktTangent::KktTangent(const ParametricSystem& system, double alpha, double beta)
    : system_(system), nq_(system.nq()), nc_(system.nc()),
      constraint_parameters_(system.constraintsDependOnParameters()), alpha_(alpha), beta_(beta), q_(nq_),
      v_(nq_), M_(nq_, nq_), J_(nc_, nq_), dM_(nq_, nq_), dJ_(nc_, nq_), D_(nq_, system.np()),
      K_(Matrix::Zero(nq_ + nc_, nq_ + nc_)), P_(nc_, system.np()), dJ_dp_(nc_, nq_), h_(nq_), phi_(nc_),
      gamma_(nc_), phi_t_(nc_), dh_(nq_), dgamma_(nc_), dphi_t_(nc_), dgamma_dp_(nc_), dphi_t_dp_(nc_), a_(nq_),
      lambda_(nc_), rhs_(nq_ + nc_), solution_(nq_ + nc_), lu_(nq_ + nc_) {}

bool KktTangent::evaluate(double t, ConstVectorRef q, ConstVectorRef v, std::string& failure) {
  t_ = t;
  q_ = q;
  v_ = v;
  ModelTermsOutput out{h_, phi_, J_, no_values_, gamma_, phi_t_};
  system_.evaluateTerms(q, v, t, out);
  system_.massMatrix(q, M_);
  if (!(h_.allFinite() && phi_.allFinite() && J_.allFinite() && gamma_.allFinite() && phi_t_.allFinite() &&
        M_.allFinite())) {
    failure = system_.name() + "'s terms are not finite at t = " + formatDouble(t) + " s";
    return false;
  }
  K_.topLeftCorner(nq_, nq_) = M_;
  K_.topRightCorner(nq_, nc_) = -J_.transpose();
  K_.bottomLeftCorner(nc_, nq_) = J_;
  lu_.compute(K_);
  rhs_.head(nq_) = -h_;
  rhs_.tail(nc_) = -gamma_ - 2.0 * alpha_ * (J_ * v + phi_t_) - beta_ * beta_ * phi_;
  solution_.noalias() = lu_.solve(rhs_);
  // PartialPivLU does not report singularity; a zero pivot shows as a non-finite solution, and a
  // nearly singular block (redundant constraints) as a condition estimate at rounding level.
  if (!solution_.allFinite() || !(lu_.rcond() > 16.0 * std::numeric_limits<double>::epsilon())) {
    failure = "the KKT matrix [M -J^T; J 0] of " + system_.name() + " is singular at t = " + formatDouble(t) +
              " s (the sensitivities need J of full row rank)";
    return false;
  }
  a_ = solution_.head(nq_);
  lambda_ = solution_.tail(nc_);
  system_.dynamicsParameterJacobian(q, v, a_, t, D_);
  if (constraint_parameters_) system_.constraintParameterJacobian(q, t, P_);
  if (!D_.allFinite() || (constraint_parameters_ && !P_.allFinite())) {
    failure = system_.name() + "'s parameter Jacobian is not finite at t = " + formatDouble(t) + " s";
    return false;
  }
  return true;
}

void KktTangent::tangent(ConstVectorRef s_q, ConstVectorRef s_v, int parameter, VectorRef da, VectorRef dlambda) {
  ModelTermsTangent tangent{dM_, dh_, dJ_, dgamma_, dphi_t_};
  system_.termsTangent(q_, v_, t_, s_q, s_v, tangent);
  rhs_.head(nq_).noalias() = -(dM_ * a_);
  rhs_.head(nq_) -= dh_;
  rhs_.head(nq_).noalias() += dJ_.transpose() * lambda_;
  if (parameter >= 0) rhs_.head(nq_) -= D_.col(parameter);
  rhs_.tail(nc_).noalias() = -(dJ_ * a_);
  rhs_.tail(nc_) -= dgamma_;
  if (alpha_ != 0.0) {
    rhs_.tail(nc_).noalias() -= 2.0 * alpha_ * (dJ_ * v_);
    rhs_.tail(nc_).noalias() -= 2.0 * alpha_ * (J_ * s_v);
    rhs_.tail(nc_) -= 2.0 * alpha_ * dphi_t_;
  }
  if (beta_ != 0.0) rhs_.tail(nc_).noalias() -= beta_ * beta_ * (J_ * s_q);
  if (parameter >= 0 && constraint_parameters_) {
    ConstraintParameterTangent column{dJ_dp_, dgamma_dp_, dphi_t_dp_};
    system_.constraintParameterTangent(q_, v_, t_, parameter, column);
    rhs_.head(nq_).noalias() += dJ_dp_.transpose() * lambda_;
    rhs_.tail(nc_).noalias() -= dJ_dp_ * a_;
    rhs_.tail(nc_) -= dgamma_dp_;
    if (alpha_ != 0.0) {
      rhs_.tail(nc_).noalias() -= 2.0 * alpha_ * (dJ_dp_ * v_);
      rhs_.tail(nc_) -= 2.0 * alpha_ * dphi_t_dp_;
    }
    if (beta_ != 0.0) rhs_.tail(nc_) -= beta_ * beta_ * P_.col(parameter);
  }
  solution_.noalias() = lu_.solve(rhs_);
  da = solution_.head(nq_);
  dlambda = solution_.tail(nc_);
}

}  // namespace kktdae::detail::forward_sensitivity
