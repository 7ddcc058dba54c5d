#pragma once
// Where a point or direction fixed in a body is, how fast it moves and how it depends on the
// body's coordinates (internal header).

#include <Eigen/Core>

#include "kktdae/core/types.hpp"
#include "mechanism_data.hpp"

namespace kktdae::multibody::detail {

/// A column vector over the scalar S (double, or Dual<double> for tangents along (δq, δq̇)).
template <typename S>
using VectorOfS = Eigen::Matrix<S, Eigen::Dynamic, 1>;
/// Read-only view of one.
template <typename S>
using ConstVectorRefOfS = const Eigen::Ref<const VectorOfS<S>>&;
/// A 3-vector over S.
template <typename S>
using Vector3Of = Eigen::Matrix<S, 3, 1>;

/// x = x(q_b) of an attachment with its rate ẋ = G q̇_b, its Jacobian G (3 × the body's
/// coordinates, at most 12: no allocation) and its bias Ġ q̇_b, so that ẍ = G q̈_b + bias.
/// Directors make every attachment of a spatial body linear in q_b (bias 0); a planar body's
/// turns with θ (bias −θ̇² R X). Over S = Dual<double> seeded with (δq, δq̇) the derivative
/// parts are the tangents δx, δẋ, δG, δ(bias) (ParametricMechanism's termsTangent()).
template <typename S>
struct AttachmentStateOf {
  Vector3Of<S> value = Vector3Of<S>::Zero();
  Vector3Of<S> rate = Vector3Of<S>::Zero();
  Vector3Of<S> bias = Vector3Of<S>::Zero();
  Eigen::Matrix<S, 3, Eigen::Dynamic, 0, 3, 12> jacobian;
};
/// The attachment state in double.
using AttachmentState = AttachmentStateOf<double>;

/// Evaluates an attachment at (q, v) (v may be empty: rate and bias are then left 0). Defined
/// for S = double and S = Dual<double>.
template <typename S>
AttachmentStateOf<S> evaluateAttachmentOf(const MechanismData& data, const Attachment& attachment,
                                          ConstVectorRefOfS<S> q, ConstVectorRefOfS<S> v);

/// evaluateAttachmentOf<double>.
inline AttachmentState evaluateAttachment(const MechanismData& data, const Attachment& attachment, ConstVectorRef q,
                                          ConstVectorRef v) {
  return evaluateAttachmentOf<double>(data, attachment, q, v);
}

/// The rotation from a body's coordinate frame to space: (d₁ d₂ d₃) for directors, R(θ) for a
/// planar body, I for the ground.
Eigen::Matrix3d coordinateRotation(const MechanismData& data, int body, ConstVectorRef q);

/// The angular velocity of a body in space: ½ Σ dₖ × ḋₖ (exact on the manifold), (0, 0, θ̇).
Eigen::Vector3d bodyAngularVelocity(const MechanismData& data, int body, ConstVectorRef q, ConstVectorRef v);

/// The generalized force on a body's coordinates of a force F at a point and a moment N in
/// space, added into `out` (nq). Directors take N as fₖ = ½ N × dₖ (Σ dₖ × fₖ = N on the manifold).
void addWrench(const MechanismData& data, int body, const Eigen::Vector3d& point_local, const Eigen::Vector3d& force,
               const Eigen::Vector3d& moment, ConstVectorRef q, VectorRef out);

}  // namespace kktdae::multibody::detail
