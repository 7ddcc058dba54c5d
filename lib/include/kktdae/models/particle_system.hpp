#pragma once
/// @file
/// A general system of point masses built from data: particles in 2D or 3D, fixed anchors,
/// distance constraints and point-on-line (slider) constraints, gravity and constant forces.

#include <Eigen/Core>
#include <string>
#include <vector>

#include "kktdae/core/state.hpp"
#include "kktdae/models/pendulum_chain.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

/// One end of a distance constraint: a particle (by index) or a fixed anchor (by index).
struct PointRef {
  /// What a PointRef names.
  enum class Kind {
    Particle,  ///< a moving particle
    Anchor     ///< a fixed anchor point
  };
  Kind kind = Kind::Particle;  ///< what `index` refers to
  int index = 0;               ///< into ParticleSystemParams::particles or ParticleSystemParams::anchors

  /// The particle with this index.
  static PointRef particle(int index) { return {Kind::Particle, index}; }
  /// The anchor with this index.
  static PointRef anchor(int index) { return {Kind::Anchor, index}; }
};

/// A massless rigid link between two points, at least one of them a particle:
/// φ = ½ (|d|² − L²), d = p_a − p_b (the PendulumChain convention, λ in N/m; λ < 0 pulls the
/// ends together, tension −λ |d|).
struct DistanceConstraintSpec {
  PointRef a;           ///< first end (gets +dᵀ in J)
  PointRef b;           ///< second end (gets −dᵀ in J)
  double length = 1.0;  ///< L > 0 [m]
};

/// A frictionless slider: the particle stays on the fixed line {point + s · direction}.
/// In 2D one constraint nᵀ(p − point) = 0 with n the unit normal (−u_y, u_x), u = direction/|direction|;
/// in 3D two, n₁ᵀ(p − point) = n₂ᵀ(p − point) = 0 with (u, n₁, n₂) orthonormal. φ in m, λ in N
/// (the normal force is Σ λᵢ nᵢ).
struct LineConstraintSpec {
  int particle = 0;                                     ///< the sliding particle
  Eigen::Vector3d point = Eigen::Vector3d::Zero();      ///< a point of the line [m]
  Eigen::Vector3d direction = Eigen::Vector3d::UnitX(); ///< non-zero; its length does not matter
};

/// A point mass and the constant external force on it.
struct ParticleSpec {
  double mass = 1.0;                               ///< m > 0 [kg]
  Eigen::Vector3d force = Eigen::Vector3d::Zero(); ///< constant external force F [N]
};

/// Everything a ParticleSystem is made of. In 2D every vector's z component must be 0.
struct ParticleSystemParams {
  int dimension = 3;                              ///< 2 (the x–y plane) or 3
  double gravity = 9.81;                          ///< g ≥ 0 [m/s²], along −y
  std::vector<ParticleSpec> particles;            ///< at least one
  std::vector<Eigen::Vector3d> anchors;           ///< fixed points [m]
  std::vector<DistanceConstraintSpec> distances;  ///< rows 0 … nd−1 of φ, in this order
  std::vector<LineConstraintSpec> lines;          ///< then (dimension − 1) rows per line, in order

  /// The particle system that is exactly `chain`: 3D, one anchor (the pivot), link k from
  /// particle k to particle k−1 (to the anchor for k = 0). Throws std::invalid_argument if
  /// `chain` is invalid.
  static ParticleSystemParams fromPendulumChain(const PendulumChainParams& chain);

  /// Throws std::invalid_argument naming the first bad item and its value: a dimension other
  /// than 2 or 3; no particles; a mass, length or gravity that is not finite and positive
  /// (gravity: ≥ 0); an unknown particle or anchor index; a distance constraint whose ends are
  /// the same point or both anchors; a zero or non-finite line direction; a non-zero z in 2D.
  void validate() const;
};

/// q = (p₀, p₁, …), dimension coordinates per particle (nq = dimension · particles);
/// M = diag(m_k I); h = −(m_k g_vec + F_k) with g_vec = (0, −g[, 0]), so h_y = m g − F_y as in
/// PendulumChain; nc = distances + (dimension − 1) · lines.
///
///     distance:  φ = ½(|d|² − L²),  J = ±dᵀ on the particles' columns,  γ = |ḋ|²  (anchors: ṗ = 0)
///     line:      φ = nᵀ(p − a),     J = nᵀ on the particle's columns,   γ = 0
///
/// J and γ are written by hand (each constraint touches at most two particles, so a dense AD
/// sweep over all nq coordinates would waste nq/6 of its work); tests check them against finite
/// differences and, for chains, against PendulumChain. V = Σ m g y − Σ Fᵀp.
class ParticleSystem final : public ConstrainedSystem {
 public:
  /// Validates `params` (see ParticleSystemParams::validate()) and precomputes the line normals.
  explicit ParticleSystem(ParticleSystemParams params);

  std::string name() const override;
  int nq() const override { return dimension_ * particles(); }
  int nc() const override { return nc_; }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  void massDiagonal(ConstVectorRef q, VectorRef d) const override;
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override;
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override;
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override;
  /// h is gravity (and constant forces): no dependence on the state.
  bool biasDependsOnState() const override { return false; }
  /// dimension entries per particle end of a distance, dimension per line row.
  int jacobianNonZeros() const override { return jacobian_non_zeros_; }
  void constraintJacobianPattern(IndexVectorRef rows, IndexVectorRef cols) const override;
  void constraintJacobianValues(ConstVectorRef q, double t, VectorRef values) const override;
  void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const override;
  double kineticEnergy(ConstVectorRef q, ConstVectorRef v) const override;
  double potentialEnergy(ConstVectorRef q, double t) const override;
  /// Gravity and constant forces have a potential (−F·x): the energy is a first integral.
  bool isConservative() const override { return true; }

  const ParticleSystemParams& params() const { return params_; }  ///< the data it was built from
  int dimension() const { return dimension_; }  ///< 2 or 3: coordinates per particle
  int particles() const { return static_cast<int>(params_.particles.size()); }  ///< number of particles

  /// Position of particle `index` (z = 0 in 2D). Sizes: q nq. Throws std::invalid_argument for
  /// an unknown index.
  Eigen::Vector3d position(ConstVectorRef q, int index) const;
  /// The state with these positions and velocities (velocities empty: at rest), at time t.
  /// Throws std::invalid_argument for wrong counts, a non-zero z in 2D, non-finite entries, or
  /// a distance constraint whose ends coincide there (its row of J would vanish).
  State makeState(const std::vector<Eigen::Vector3d>& positions,
                  const std::vector<Eigen::Vector3d>& velocities = {}, double t = 0.0) const;

 private:
  /// The dimension-sized block of particle `index` in x (q or v) as a 3-vector, z = 0 in 2D.
  Eigen::Vector3d particleVector(ConstVectorRef x, int index) const;
  /// d = p_a − p_b of a distance constraint (anchors fixed).
  Eigen::Vector3d separation(ConstVectorRef q, const DistanceConstraintSpec& spec) const;
  /// ḋ = ṗ_a − ṗ_b (anchors do not move).
  Eigen::Vector3d separationRate(ConstVectorRef v, const DistanceConstraintSpec& spec) const;
  /// Writes row r of J on particle `index`'s columns.
  void writeJacobian(MatrixRef J, int row, int index, const Eigen::Vector3d& row_vector) const;

  ParticleSystemParams params_;
  int dimension_ = 3;
  int nc_ = 0;
  int jacobian_non_zeros_ = 0;
  std::vector<Eigen::Vector3d> line_normals_;  ///< (dimension − 1) unit normals per line, in row order
};

}  // namespace kktdae
