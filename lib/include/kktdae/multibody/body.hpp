#pragma once
/// @file
/// Rigid bodies of a Mechanism and their coordinates (docs/multibody.md).
///
/// - Planar body: q_b = (x, y, θ), the centre of mass and the angle; M = diag(m, m, I).
/// - Spatial body: q_b = (r, d₁, d₂, d₃) ∈ R¹², the centre of mass and the directors (columns of
///   the rotation R from the principal frame to space), with the six orthonormality rows
///   ½(dₖ·dₖ − 1), dᵢ·dⱼ. T = ½ m|ṙ|² + ½ Σₖ J̄ₖ|ḋₖ|², J̄ = ½ tr(J_c) I − J_c in principal axes:
///   M is constant and diagonal. J̄ₖ = ∫ xₖ² dm is 0 for a flat body (all mass in one plane
///   through its centre of mass): such an M is positive definite only on null(J), which the
///   block KKT form solves and the Schur form refuses (the body's M is then declared General).
/// - Pivoted body: a spatial body turning about a point fixed in space, q_b = (d₁, d₂, d₃) ∈ R⁹,
///   with M = diag(J̄) of the inertia about the pivot: the heavy top's coordinates. A flat body
///   whose plane misses the pivot gets a positive definite M this way.
///
/// Every point and vector fixed in a spatial body is linear in its directors (p = r + Σ Xₖ dₖ),
/// so joint rows are polynomials of degree ≤ 2 with exact J and γ.

#include <Eigen/Core>
#include <string>

namespace kktdae::multibody {

/// The kind of a body, and so its coordinates.
enum class BodyKind {
  Ground,   ///< the fixed frame, no coordinates
  Planar,   ///< (x, y, θ)
  Spatial,  ///< (r, d₁, d₂, d₃)
  Pivoted,  ///< (d₁, d₂, d₃) about a fixed point
};

/// Number of coordinates of a body of this kind: 0, 3, 12, 9.
int coordinateCount(BodyKind kind);

/// Mass properties of a planar body.
struct PlanarBodyParams {
  double mass = 1.0;     ///< m > 0 [kg]
  double inertia = 1.0;  ///< moment of inertia about the centre of mass [kg m²] > 0
  /// Throws std::invalid_argument naming the field and value.
  void validate() const;
};

/// Mass properties of a spatial body, in the body's own frame (any frame the user likes: points
/// and axes of joints are given in it too).
struct SpatialBodyParams {
  double mass = 1.0;                                         ///< m > 0 [kg]
  Eigen::Vector3d centre_of_mass = Eigen::Vector3d::Zero();  ///< in the body frame [m]
  /// Inertia tensor about the centre of mass, in the body frame [kg m²]: symmetric with
  /// eigenvalues that a rigid body can have (each ≥ 0, Jᵢ + Jⱼ ≥ Jₖ). A tensor that is not
  /// diagonal is rotated to principal axes by the builder (the directors are principal axes).
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Identity();
  /// Throws std::invalid_argument naming the field and value.
  void validate() const;
};

}  // namespace kktdae::multibody
