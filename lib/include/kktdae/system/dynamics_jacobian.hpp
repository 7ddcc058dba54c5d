#pragma once
/// @file
/// The derivatives of the equations of motion and of the acceleration-level constraint at one
/// point, for the Newton matrices of implicit integrators (IDA, CVODE BDF, generalized-α):
///
///     r(q, v, a, λ) = M(q) a + h(q, v, t) − S(q,t)ᵀu − J(q,t)ᵀ λ        (nq rows)
///     c(q, v, a)    = J(q,t) a + γ(q, v, t)                               (nc rows)
///
/// with u held fixed (a controller's own dependence on the state is the caller's to add).
/// What the model does not supply analytically is differentiated by columns of differences of
/// its own calls; terms the model declares zero (constant M, !biasDependsOnState(), nu() = 0)
/// are skipped and cost no call. docs/newton-matrices.md derives every block.

#include "kktdae/core/types.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

/// How DynamicsJacobian differentiates what the model does not supply analytically.
struct DynamicsJacobianOptions {
  /// Relative difference step: h_j = step · max(|x_j|, 1).  Default √eps ≈ 1.5e-8 (forward);
  /// with `central` a step near eps^(1/3) ≈ 6e-6 balances truncation and round-off instead.
  double relative_step = 1.4901161193847656e-8;
  /// Central instead of forward differences: O(h²) instead of O(h) truncation error, at twice
  /// the model calls. Newton matrices need no more than forward differences give.
  bool central = false;
  /// Throws std::invalid_argument naming the field unless relative_step is finite and in (0, 0.1].
  void validate() const;
};

/// The derivative terms of r and c at one point (see the file comment). Allocates at
/// construction only; one instance per run (not thread-safe); the system must outlive it.
class DynamicsJacobian {
 public:
  /// Sizes every block from `system`; throws std::invalid_argument for bad options or dimensions.
  DynamicsJacobian(const ConstrainedSystem& system, DynamicsJacobianOptions options = {});

  /// Evaluates every term at (t, q, v, a, λ, u) (u empty when nu() == 0). Throws nothing for
  /// numerical trouble (non-finite model output shows up in the blocks); model exceptions
  /// propagate. Sizes: q, v, a nq; lambda nc; u nu (or empty when nu() == 0).
  void evaluate(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef a, ConstVectorRef lambda,
                ConstVectorRef u);

  const Matrix& mass() const { return mass_; }                ///< M(q)                      nq × nq
  const Matrix& stiffness() const { return stiffness_; }      ///< K = ∂r/∂q                 nq × nq
  const Matrix& damping() const { return damping_; }          ///< C = ∂r/∂v = ∂h/∂v         nq × nq
  const Matrix& jacobian() const { return jacobian_; }        ///< J(q)                      nc × nq
  const Matrix& constraintQ() const { return constraint_q_; } ///< ∂c/∂q = ∂(J a)/∂q + ∂γ/∂q nc × nq
  const Matrix& constraintV() const { return constraint_v_; } ///< ∂c/∂v = ∂γ/∂v             nc × nq
  /// The input map S(q, t) at the last point (nu × nq; 0 × nq without inputs), so that a caller
  /// differentiating a controller u(t, q, v) can add −Sᵀ ∂u/∂(q, v) without another model call.
  const Matrix& inputMap() const { return input_map_; }
  /// Model calls made by evaluate() so far (the cost a user sees): every massMatrix/massDiagonal,
  /// bias, inputMap, constraintJacobian and constraintBias call counts one.
  long modelEvaluations() const { return model_evaluations_; }

  /// The system this instance differentiates.
  const ConstrainedSystem& system() const { return system_; }

 private:
  /// The parts of r and c that depend on q (vary_q) or on v (otherwise), at (q_work_, v_work_)
  /// into (r, c): M(q)a + h − S(q)ᵀu − J(q)ᵀλ and J(q)a + γ, or h and γ; each term only when it
  /// can change, so that differences of two calls are the derivative.
  void varyingParts(double t, ConstVectorRef a, ConstVectorRef lambda, ConstVectorRef u, bool vary_q, VectorRef r,
                    VectorRef c);
  /// M(q) into `M` (dense or from the diagonal), one model call.
  void evaluateMass(ConstVectorRef q, MatrixRef M);

  const ConstrainedSystem& system_;
  DynamicsJacobianOptions options_;
  int nq_, nc_, nu_;
  bool mass_varies_, bias_varies_;
  Matrix mass_, stiffness_, damping_, jacobian_, constraint_q_, constraint_v_, input_map_;
  // Scratch (sized once).
  Matrix mass_work_, jacobian_work_, input_work_;
  Vector q_work_, v_work_, diagonal_work_, bias_work_, gamma_work_;
  Vector r0_, c0_, r1_, c1_;
  long model_evaluations_ = 0;
};

}  // namespace kktdae
