#pragma once
/// @file
/// A planar pendulum chain with stiff bending springs (and optional dampers) at its inner joints:
/// the force-stiff chain, whose high frequencies come from the spring constant k, not from the
/// constraints (docs/integrators.md, "A stiff case").

#include <Eigen/Core>
#include <memory>
#include <string>

#include "kktdae/core/state.hpp"
#include "kktdae/models/pendulum_chain.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

/// Parameters of a SpringChain: the chain itself plus the joint springs and dampers.
struct SpringChainParams {
  PendulumChainParams chain;    ///< masses, lengths, gravity, pivot (as PendulumChain)
  double joint_stiffness = 0.0;  ///< k ≥ 0 [N·m/rad] of every inner joint; 0 leaves a PendulumChain
  double joint_damping = 0.0;    ///< c ≥ 0 [N·m·s/rad] of every inner joint (Rayleigh damping of θ̇_j)

  /// Throws std::invalid_argument naming the first bad field and its value.
  void validate() const;
};

/// PendulumChain's particles, links and constraints, with a bending spring and a damper at
/// each of the N − 1 joints between neighbouring links. With a_j = d_j and b_j = d_{j+1}
/// (d_k = p_k − p_{k−1}, p_{−1} the pivot), the relative angle of joint j in the x–y plane is
///
///     θ_j = atan2(a_x b_y − a_y b_x, a_x b_x + a_y b_y) ∈ (−π, π],
///
/// smooth wherever the links are not folded back onto each other; the straight chain is the rest
/// shape. Potential V = Σ m_k g y_k + ½ k Σ_j θ_j², dissipation ½ c Σ_j θ̇_j², so
///
///     h = h_gravity + Σ_j (k θ_j + c θ̇_j) ∇θ_j,   ∇_a θ_j = (a_y, −a_x)/|a|²,
///                                                  ∇_b θ_j = (−b_y, b_x)/|b|²  (x, y only),
///
/// with ∇θ_j on particles j−1 (−∇_a), j (∇_a − ∇_b) and j+1 (∇_b). Joint j couples particles
/// j − 1 … j + 1, so ∂h/∂(q, q̇) lies in a band of half-width 8 coordinates
/// (biasJacobianBandwidth()). The springs act in the x–y plane only (z is free, as in
/// PendulumChain). The highest bending frequency grows as √k (docs/integrators.md measures it).
///
/// Parameters (ParametricSystem, docs/sensitivities.md): "masses[k]", "gravity",
/// "joint_stiffness" (k), "joint_damping" (c), then "lengths[k]" (which enter φ alone, as in
/// PendulumChain; the joint forces depend on the link vectors, not on L).
class SpringChain final : public ParametricSystem {
 public:
  /// Throws std::invalid_argument for invalid parameters (naming the field).
  explicit SpringChain(SpringChainParams params);

  std::string name() const override;
  int nq() const override { return chain_.nq(); }
  int nc() const override { return chain_.nc(); }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  void massDiagonal(ConstVectorRef q, VectorRef d) const override { chain_.massDiagonal(q, d); }
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override;
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override { chain_.constraint(q, t, phi); }
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override {
    chain_.constraintJacobian(q, t, J);
  }
  /// h depends on q (the springs) and, with dampers, on q̇.
  bool biasDependsOnState() const override { return params_.joint_stiffness > 0.0 || params_.joint_damping > 0.0; }
  /// Joint j couples particles j − 1 … j + 1: |row − column| ≤ 8 in ∂h/∂q and ∂h/∂q̇.
  int biasJacobianBandwidth() const override { return 8; }
  int jacobianNonZeros() const override { return chain_.jacobianNonZeros(); }
  void constraintJacobianPattern(IndexVectorRef rows, IndexVectorRef cols) const override {
    chain_.constraintJacobianPattern(rows, cols);
  }
  void constraintJacobianValues(ConstVectorRef q, double t, VectorRef values) const override {
    chain_.constraintJacobianValues(q, t, values);
  }
  void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const override {
    chain_.constraintBias(q, v, t, gamma);
  }
  /// The chain's terms in its one pass, then the joint forces added to h: the per-term bits.
  void evaluateTerms(ConstVectorRef q, ConstVectorRef v, double t, ModelTermsOutput& out) const override;
  double kineticEnergy(ConstVectorRef q, ConstVectorRef v) const override { return chain_.kineticEnergy(q, v); }
  /// Gravity plus ½ k Σ θ_j².
  double potentialEnergy(ConstVectorRef q, double t) const override;
  /// Without dampers gravity and the springs alone do work: the energy is a first integral.
  bool isConservative() const override { return params_.joint_damping == 0.0; }
  /// The chain's Σm · g · ΣL [J] (the divergence rule also counts the start's spring energy).
  double energyScale() const override { return chain_.energyScale(); }

  int links() const { return chain_.links(); }  ///< number of links
  const SpringChainParams& params() const { return params_; }  ///< the parameters it was built with
  /// The chain without springs (its constraints, mass and gravity).
  const PendulumChain& chain() const { return chain_; }
  /// θ_j of joint j (0 ≤ j < links() − 1) [rad]. Sizes: q nq.
  double jointAngle(ConstVectorRef q, int joint) const;
  /// The straight chain (rest shape of the springs) tilted by `tilt` below +x, at rest (PendulumChain's).
  State initialState(double tilt) const { return chain_.initialState(tilt); }
  /// Position of the last particle (the tip).
  Eigen::Vector3d tip(ConstVectorRef q) const { return chain_.tip(q); }

  /// 2N + 3: the masses, gravity, k, c, then the lengths.
  int np() const override { return chain_.np() + 2; }
  /// "masses[k]", "gravity", "joint_stiffness", "joint_damping", "lengths[k]"; throws
  /// std::invalid_argument for an index out of range.
  std::string parameterName(int i) const override;
  /// (m_0, …, m_{N−1}, g, k, c, L_0, …, L_{N−1}).
  Vector parameterValues() const override;
  /// The chain with these values (validate() names a bad one); throws std::invalid_argument for
  /// a size other than 2N + 3.
  std::unique_ptr<ParametricSystem> withParameterValues(ConstVectorRef p) const override;
  /// φ depends on the lengths.
  bool constraintsDependOnParameters() const override { return true; }
  /// P(k, N + 3 + k) = −L_k, zero elsewhere. Sizes: q nq; P N×(2N + 3).
  void constraintParameterJacobian(ConstVectorRef q, double t, MatrixRef P) const override;
  /// Zeros (J, γ, ∂φ/∂t do not depend on p); throws std::invalid_argument for `parameter`
  /// outside [0, np).
  void constraintParameterTangent(ConstVectorRef q, ConstVectorRef v, double t, int parameter,
                                  ConstraintParameterTangent& out) const override;
  /// The chain's masses and gravity columns, ∂h/∂k = Σ_j θ_j ∇θ_j and ∂h/∂c = Σ_j θ̇_j ∇θ_j (h is
  /// linear in k, c), zeros for the lengths.
  void dynamicsParameterJacobian(ConstVectorRef q, ConstVectorRef v, ConstVectorRef a, double t,
                                 MatrixRef D) const override;
  /// The chain's tangent, plus δh of the joint forces by Dual numbers through the same formulas.
  void termsTangent(ConstVectorRef q, ConstVectorRef v, double t, ConstVectorRef dq, ConstVectorRef dv,
                    ModelTermsTangent& out) const override;

 private:
  /// h += Σ_j (k θ_j + c θ̇_j) ∇θ_j.
  void addJointForces(ConstVectorRef q, ConstVectorRef v, VectorRef h) const;

  SpringChainParams params_;
  PendulumChain chain_;
};

}  // namespace kktdae
