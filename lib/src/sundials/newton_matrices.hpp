#pragma once
// The analytic (model-derivative) Newton matrices of the dense SUNDIALS paths (internal header),
// all built from DynamicsJacobian: IDA's G = ∂F/∂y + c ∂F/∂ẏ for ida_index1 and ida_ggl, and
// CVODE's ∂f/∂y of the stabilized ODE. docs/newton-matrices.md derives every block.

#include <string>

#include "kktdae/integrators/acceleration_function.hpp"
#include "kktdae/stabilization/stabilization.hpp"
#include "kktdae/system/dynamics_jacobian.hpp"

#include <Eigen/QR>

namespace kktdae::detail {

/// Why the analytic Newton matrix cannot serve this stabilization ("" when it can): the soft
/// constraint's R λ term depends on M and J in ways DynamicsJacobian does not differentiate.
std::string analyticNewtonUnsupported(const Stabilization& stabilization);

/// DynamicsJacobian plus what a controller u(t, q, v) adds to K and C: −Sᵀ ∂u/∂q and −Sᵀ ∂u/∂v,
/// by forward differences of the controller (the model's S is not called again).
class ControlledDynamics {
 public:
  ControlledDynamics(const ConstrainedSystem& system, const Controller& controller);
  /// DynamicsJacobian::evaluate at u = controller(t, q, v), then the controller's columns.
  void evaluate(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef a, ConstVectorRef lambda);
  const DynamicsJacobian& terms() const { return dynamics_; }
  DynamicsJacobian& terms() { return dynamics_; }
  /// ∂r/∂q and ∂r/∂v with the controller's dependence included.
  const Matrix& stiffness() const { return stiffness_; }
  const Matrix& damping() const { return damping_; }
  /// Model and controller calls so far.
  long evaluations() const { return dynamics_.modelEvaluations() + controller_calls_; }

 private:
  const Controller& controller_;
  DynamicsJacobian dynamics_;
  int nq_, nu_;
  Matrix stiffness_, damping_;
  Vector u0_, u1_, x_;
  long controller_calls_ = 0;
};

/// G = ∂F/∂y + c ∂F/∂ẏ of ida_run.cpp's residual, dense (column-major n × n).
class IdaDenseNewton {
 public:
  IdaDenseNewton(const ConstrainedSystem& system, bool ggl, const Stabilization& stabilization,
                 const Controller& controller);
  /// Writes G at (t, y, ẏ) with coefficient c into the n × n column-major array `data`.
  void assemble(double t, const double* y, const double* y_dot, double c, double* data);
  long evaluations() const { return dynamics_.evaluations(); }
  int size() const { return n_; }

 private:
  ControlledDynamics dynamics_;
  bool ggl_;
  double alpha_, beta_;
  int nq_, nc_, n_;
};

/// ∂f/∂y of CVODE's y = (q, v), f = (v, a(t, q, v)): the KKT system differentiated,
///     [M −Jᵀ; J 0] [∂a; ∂λ] = −[K  C; ∂c/∂q + 2α ∂φ̇/∂q + β²J   ∂c/∂v + 2αJ],
/// solved by a complete orthogonal decomposition: with redundant constraints the block matrix is
/// singular, ∂λ is not unique but ∂a is, and the minimum-norm solution gives it.
class CvodeDenseJacobian {
 public:
  CvodeDenseJacobian(const ConstrainedSystem& system, const Stabilization& stabilization,
                     const Controller& controller);
  /// Writes ∂f/∂y at (t, q, v) with a = q̈ and λ of the KKT solve there into the 2nq × 2nq
  /// column-major array `data`. Returns false when the result is not finite (singular KKT block).
  bool assemble(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef a, ConstVectorRef lambda,
                double* data);
  long evaluations() const { return dynamics_.evaluations(); }

 private:
  ControlledDynamics dynamics_;
  double alpha_, beta_;
  int nq_, nc_;
  Matrix kkt_, rhs_, solution_;
  Eigen::CompleteOrthogonalDecomposition<Matrix> decomposition_;
  /// The solve's scratch, sized once: Qᵀ·rhs, the triangular solve's result before the column
  /// permutation, and the Householder reflectors' row workspace.
  Matrix transformed_, unpermuted_;
  Eigen::RowVectorXd householder_workspace_;

  /// solution_ = decomposition_.solve(rhs_) with the same arithmetic as Eigen's, into the members:
  /// Eigen's solve copies the right-hand side, sizes a Householder workspace and permutes through a
  /// temporary, three allocations per Newton matrix. A rank-deficient block (redundant constraints,
  /// where the Z factor must be applied too) goes through Eigen's solve, allocating.
  void solveMinimumNorm();
};

}  // namespace kktdae::detail
