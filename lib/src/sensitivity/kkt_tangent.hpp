#pragma once
// The KKT system of a parametric model and its derivative along a sensitivity column (internal
// header of the sensitivity drivers). At (t, q, v), with the stabilization law (α, β),
//
//     [M  −Jᵀ] [a]   [−h                       ]
//     [J   0 ] [λ] = [−γ − 2α φ̇ − β² φ         ]      φ̇ = J v + ∂φ/∂t,
//
// and along a column (s_q, s_v, eᵢ) its tangent (δa, δλ) solves the same matrix with
//
//     [−(δM a + δh − δJᵀλ + ∂r/∂pᵢ − Jᵢᵀλ)                                                  ]
//     [−(δJ a + δγ + 2α (δJ v + J s_v + δ(∂φ/∂t)) + β² J s_q + Jᵢ a + γᵢ + 2α(Jᵢ v + φ_tᵢ) + β² φᵢ)],
//
// δ· the model's exact tangent along (s_q, s_v) (ParametricSystem::termsTangent), ∂r/∂pᵢ its
// dynamicsParameterJacobian at a, and, only when φ depends on p, Jᵢ = ∂J/∂pᵢ, γᵢ = ∂γ/∂pᵢ,
// φ_tᵢ = ∂(∂φ/∂t)/∂pᵢ (constraintParameterTangent) and φᵢ = ∂φ/∂pᵢ. One LU factorization per point serves (a, λ) and every
// column. With α = β = 0, λ is the physical multiplier of observed_multiplier.hpp and δλ its
// total derivative dλ/dp = ∂λ/∂q s_q + ∂λ/∂v s_v + ∂λ/∂p.
#include <Eigen/LU>
#include <string>

#include "kktdae/sensitivity/parametric_system.hpp"

namespace kktdae::detail::forward_sensitivity {

class KktTangent {
 public:
  /// Buffers sized once for `system`; the law's gains α, β ≥ 0 (0, 0: the physical multiplier).
  KktTangent(const ParametricSystem& system, double alpha, double beta);

  /// Evaluates the model at (t, q, v), factorizes the KKT matrix and solves for a and λ, and
  /// ∂r/∂p at a. False, with `failure` saying what and where, when a term is not finite or the
  /// matrix is singular.
  bool evaluate(double t, ConstVectorRef q, ConstVectorRef v, std::string& failure);
  /// δa and δλ along (s_q, s_v) and, for 0 ≤ parameter < np, the parameter's own column ∂/∂pᵢ
  /// (−1: a direction of the state alone). Requires a successful evaluate() at this point.
  void tangent(ConstVectorRef s_q, ConstVectorRef s_v, int parameter, VectorRef da, VectorRef dlambda);

  const Vector& acceleration() const { return a_; }  ///< a = q̈ at the last evaluate(), nq
  const Vector& lambda() const { return lambda_; }    ///< λ there, nc
  const Matrix& parameterJacobian() const { return D_; }  ///< ∂r/∂p at (q, v, a), nq × np

 private:
  const ParametricSystem& system_;
  int nq_, nc_;
  bool constraint_parameters_;  ///< φ depends on p
  double alpha_, beta_;
  double t_ = 0.0;
  Vector q_, v_;
  Matrix M_, J_, dM_, dJ_, D_, K_, P_, dJ_dp_;
  Vector h_, phi_, gamma_, phi_t_, no_values_, dh_, dgamma_, dphi_t_, dgamma_dp_, dphi_t_dp_;
  Vector a_, lambda_, rhs_, solution_;
  Eigen::PartialPivLU<Matrix> lu_;
};

}  // namespace kktdae::detail::forward_sensitivity
