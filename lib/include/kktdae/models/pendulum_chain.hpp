#pragma once
/// @file
/// An open chain of point masses hanging from a fixed pivot, in maximal (Cartesian) coordinates.

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "kktdae/core/state.hpp"
#include "kktdae/sensitivity/parametric_system.hpp"

namespace kktdae {

/// Parameters of a PendulumChain. Link k joins particle k to particle k−1 (particle −1 is the pivot).
struct PendulumChainParams {
  std::vector<double> masses;   ///< m_k > 0 [kg], one per particle (= per link)
  std::vector<double> lengths;  ///< L_k > 0 [m], rest length of link k
  double gravity = 9.81;        ///< g ≥ 0 [m/s²], acting along −y
  Eigen::Vector3d pivot = Eigen::Vector3d::Zero();  ///< fixed anchor of the first link [m]

  /// n links of equal mass and length (seed 000 uses mass 1 and length 1).
  static PendulumChainParams uniform(int links, double mass = 1.0, double length = 1.0);
  /// Throws std::invalid_argument naming the first bad field and its value.
  void validate() const;
};

/// N point masses in 3D, q = (x₀, y₀, z₀, x₁, …) of size 3N, with N distance constraints
///
///     φ_k = ½ (|d_k|² − L_k²),   d_k = p_k − p_{k−1}   (p_{−1} = pivot),
///
/// so J_k = d_kᵀ on particle k and −d_kᵀ on particle k−1, and γ_k = |ḋ_k|². Gravity −g ŷ gives
/// h = (0, m_k g, 0) per particle. λ_k has units of N/m: the force on particle k from link k is
/// λ_k d_k, so λ_k < 0 means the link pulls particle k toward its predecessor (tension = −λ_k |d_k|).
///
/// Parameters (ParametricSystem, docs/sensitivities.md): p = (m_0, …, m_{N−1}, g, L_0, …, L_{N−1}),
/// named "masses[0]", …, "masses[N-1]", "gravity", "lengths[0]", …, "lengths[N-1]". The lengths
/// enter φ alone (∂φ_k/∂L_k = −L_k; J, γ and ∂φ/∂t do not depend on them).
class PendulumChain final : public ParametricSystem {
 public:
  /// Throws std::invalid_argument for empty or mismatched masses/lengths, or non-positive values.
  explicit PendulumChain(PendulumChainParams params);

  std::string name() const override;
  int nq() const override { return 3 * links(); }
  int nc() const override { return links(); }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  void massDiagonal(ConstVectorRef q, VectorRef d) const override;
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override;
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override;
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override;
  /// h is gravity (and constant forces): no dependence on the state.
  bool biasDependsOnState() const override { return false; }
  /// 3 non-zeros in row 0 (the first link's dᵀ), 6 in each other row (±dᵀ on its two masses).
  int jacobianNonZeros() const override { return 6 * links() - 3; }
  void constraintJacobianPattern(IndexVectorRef rows, IndexVectorRef cols) const override;
  void constraintJacobianValues(ConstVectorRef q, double t, VectorRef values) const override;
  void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const override;
  /// h, φ, γ, ∂φ/∂t in one pass over the links (d_k and ḋ_k once for φ and γ), then J; the
  /// same bits as the per-term methods.
  void evaluateTerms(ConstVectorRef q, ConstVectorRef v, double t, ModelTermsOutput& out) const override;
  double kineticEnergy(ConstVectorRef q, ConstVectorRef v) const override;
  double potentialEnergy(ConstVectorRef q, double t) const override;

  int links() const { return static_cast<int>(params_.masses.size()); }  ///< number of links
  const PendulumChainParams& params() const { return params_; }  ///< the parameters it was built with

  /// Seed 000's launch state: links stretched along +x, the whole chain rotated by `tilt` radians
  /// below the horizontal (direction (cos(−tilt), sin(−tilt), 0)), at rest, t = 0.
  State initialState(double tilt) const;
  /// Seed 000's violation metric: max_k | |d_k| − L_k | [m].
  double linkLengthViolation(ConstVectorRef q) const;
  /// Gravity alone does work: the energy is a first integral (the divergence rule watches it).
  bool isConservative() const override { return true; }
  /// Seed 000's energy scale Σm · g · ΣL [J], the normaliser of energy_rel_max.
  double energyScale() const override;
  /// Position of the last particle (the tip).
  Eigen::Vector3d tip(ConstVectorRef q) const;

  /// 2N + 1: the masses, gravity, then the lengths.
  int np() const override { return 2 * links() + 1; }
  /// "masses[k]" for k < N, "gravity" for k = N, "lengths[k]" for k = N + 1 + k; throws
  /// std::invalid_argument otherwise.
  std::string parameterName(int i) const override;
  /// (m_0, …, m_{N−1}, g, L_0, …, L_{N−1}).
  Vector parameterValues() const override;
  /// The chain with these masses, gravity and lengths (validate() names a bad one); throws
  /// std::invalid_argument for a size other than 2N + 1.
  std::unique_ptr<ParametricSystem> withParameterValues(ConstVectorRef p) const override;
  /// ∂(M a + h)/∂m_k = a_k + (0, g, 0) on particle k; ∂h/∂g = (0, m_k, 0) on every particle.
  void dynamicsParameterJacobian(ConstVectorRef q, ConstVectorRef v, ConstVectorRef a, double t,
                                 MatrixRef D) const override;
  /// φ depends on the lengths.
  bool constraintsDependOnParameters() const override { return true; }
  /// P(k, N + 1 + k) = −L_k, zero elsewhere. Sizes: q nq; P N×(2N + 1).
  void constraintParameterJacobian(ConstVectorRef q, double t, MatrixRef P) const override;
  /// Zeros: J_k = ±d_kᵀ, γ_k = |ḋ_k|² and ∂φ/∂t = 0 do not depend on p. Throws
  /// std::invalid_argument for `parameter` outside [0, np).
  void constraintParameterTangent(ConstVectorRef q, ConstVectorRef v, double t, int parameter,
                                  ConstraintParameterTangent& out) const override;
  /// δM = δh = 0, δJ_k = ±δd_kᵀ (J with δq for q and no pivot), δγ_k = 2 ḋ_k·δḋ_k, δ(∂φ/∂t) = 0.
  void termsTangent(ConstVectorRef q, ConstVectorRef v, double t, ConstVectorRef dq, ConstVectorRef dv,
                    ModelTermsTangent& out) const override;

 private:
  PendulumChainParams params_;
};

}  // namespace kktdae
