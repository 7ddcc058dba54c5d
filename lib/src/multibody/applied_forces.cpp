#include "applied_forces.hpp"

#include "constraint_rows.hpp"
#include "kktdae/autodiff/dual.hpp"

namespace kktdae::multibody::detail {

namespace {

/// Adds Gᵀ f of an attachment into h at its body's coordinates.
template <typename S>
void addAttachmentForceOf(const MechanismData& data, const AttachmentStateOf<S>& s, int body,
                          const Vector3Of<S>& force, Eigen::Ref<VectorOfS<S>> out) {
  if (body < 0) return;
  const BodyData& b = data.bodies[static_cast<std::size_t>(body)];
  out.segment(b.offset, coordinateCount(b.kind)).noalias() += s.jacobian.transpose() * force;
}

/// Adds a row gradient times `scale` into out at the row's bodies' coordinates.
template <typename S>
void addRowGradientOf(const MechanismData& data, const RowData& row, const RowEvaluationOf<S>& e, const S& scale,
                      Eigen::Ref<VectorOfS<S>> out) {
  if (row.body_a >= 0) {
    const BodyData& b = data.bodies[static_cast<std::size_t>(row.body_a)];
    out.segment(b.offset, e.grad_a.size()) += scale * e.grad_a.transpose();
  }
  if (row.body_b >= 0) {
    const BodyData& b = data.bodies[static_cast<std::size_t>(row.body_b)];
    out.segment(b.offset, e.grad_b.size()) += scale * e.grad_b.transpose();
  }
}

/// The row's rate J_row q̇.
template <typename S>
S rowRateOf(const MechanismData& data, const RowData& row, const RowEvaluationOf<S>& e, ConstVectorRefOfS<S> v) {
  S rate(0.0);
  if (row.body_a >= 0) {
    rate += e.grad_a.dot(v.segment(data.bodies[static_cast<std::size_t>(row.body_a)].offset, e.grad_a.size()));
  }
  if (row.body_b >= 0) {
    rate += e.grad_b.dot(v.segment(data.bodies[static_cast<std::size_t>(row.body_b)].offset, e.grad_b.size()));
  }
  return rate;
}

}  // namespace

template <typename S>
void appliedForcesOf(const MechanismData& data, ConstVectorRefOfS<S> q, ConstVectorRefOfS<S> v,
                     Eigen::Ref<VectorOfS<S>> h) {
  const VectorOfS<S> none;
  h.setZero();
  // Gravity: −Gᵀ m g at each centre of mass (M q̈ + h = ...: applied forces enter with a minus).
  for (int b = 0; b < static_cast<int>(data.bodies.size()); ++b) {
    const BodyData& body = data.bodies[static_cast<std::size_t>(b)];
    const AttachmentStateOf<S> c = evaluateAttachmentOf<S>(data, Attachment{b, body.centre_of_mass, false}, q, none);
    const Vector3Of<S> weight = (-body.mass * data.gravity).cast<S>();
    addAttachmentForceOf<S>(data, c, b, weight, h);
  }
  for (const SpringData& s : data.springs) {
    const AttachmentStateOf<S> a = evaluateAttachmentOf<S>(data, s.a, q, v);
    const AttachmentStateOf<S> b = evaluateAttachmentOf<S>(data, s.b, q, v);
    const Vector3Of<S> d = b.value - a.value;
    const S length = d.norm();
    const Vector3Of<S> direction = d / length;
    const S rate = v.size() > 0 ? S(direction.dot(b.rate - a.rate)) : S(0.0);
    const S tension = s.stiffness * (length - s.rest_length) + s.damping * rate;
    // Stretched, it pulls B towards A (−T n on B) and A towards B (+T n on A).
    addAttachmentForceOf<S>(data, b, s.b.body, Vector3Of<S>(tension * direction), h);
    addAttachmentForceOf<S>(data, a, s.a.body, Vector3Of<S>(-tension * direction), h);
  }
  for (const RotationalSpringData& s : data.rotational_springs) {
    const JointData& joint = data.joints[static_cast<std::size_t>(s.joint)];
    const RowEvaluationOf<S> e = evaluateRowOf<S>(data, joint.readback, q, none, 0.0);
    const S rate = rowRateOf<S>(data, joint.readback, e, v);
    const S torque = -s.stiffness * (e.phi - s.rest_angle) - s.damping * rate + s.constant_torque;
    addRowGradientOf<S>(data, joint.readback, e, S(-torque), h);
  }
}

template void appliedForcesOf<double>(const MechanismData&, ConstVectorRefOfS<double>, ConstVectorRefOfS<double>,
                                      Eigen::Ref<VectorOfS<double>>);
template void appliedForcesOf<Dual<double>>(const MechanismData&, ConstVectorRefOfS<Dual<double>>,
                                            ConstVectorRefOfS<Dual<double>>, Eigen::Ref<VectorOfS<Dual<double>>>);

}  // namespace kktdae::multibody::detail
