#include "attachment_kinematics.hpp"

#include <cmath>

#include "kktdae/autodiff/dual.hpp"

namespace kktdae::multibody::detail {

template <typename S>
AttachmentStateOf<S> evaluateAttachmentOf(const MechanismData& data, const Attachment& attachment,
                                          ConstVectorRefOfS<S> q, ConstVectorRefOfS<S> v) {
  using std::cos;
  using std::sin;
  AttachmentStateOf<S> s;
  const Eigen::Vector3d& X = attachment.local;
  if (attachment.body < 0) {
    s.value = X.cast<S>();
    s.jacobian.resize(3, 0);
    return s;
  }
  const BodyData& body = data.bodies[static_cast<std::size_t>(attachment.body)];
  const int o = body.offset;
  const bool with_rate = v.size() > 0;
  switch (body.kind) {
    case BodyKind::Planar: {
      const S c = cos(q[o + 2]), sn = sin(q[o + 2]);
      const Vector3Of<S> turned(c * X[0] - sn * X[1], sn * X[0] + c * X[1], S(0.0));
      s.jacobian.setZero(3, 3);
      if (!attachment.direction) {
        s.jacobian(0, 0) = S(1.0);
        s.jacobian(1, 1) = S(1.0);
        s.value = Vector3Of<S>(q[o], q[o + 1], S(0.0)) + turned;
      } else {
        s.value = turned;
      }
      s.jacobian(0, 2) = -turned[1];
      s.jacobian(1, 2) = turned[0];
      if (with_rate) {
        const S w = v[o + 2];
        s.rate = s.jacobian * v.template segment<3>(o);
        s.bias = -w * w * turned;
      }
      return s;
    }
    case BodyKind::Spatial:
    case BodyKind::Pivoted: {
      const bool free = body.kind == BodyKind::Spatial;
      const int d0 = free ? o + 3 : o;  // first director's coordinate
      const int n = free ? 12 : 9;
      s.jacobian.setZero(3, n);
      if (free && !attachment.direction) {
        s.jacobian.template leftCols<3>().setIdentity();
        s.value = q.template segment<3>(o);
      } else if (!free && !attachment.direction) {
        s.value = body.pivot.cast<S>();
      } else {
        s.value.setZero();
      }
      const int first = free ? 3 : 0;
      for (int k = 0; k < 3; ++k) {
        s.value += S(X[k]) * q.template segment<3>(d0 + 3 * k);
        s.jacobian.template block<3, 3>(0, first + 3 * k).diagonal().setConstant(S(X[k]));
      }
      if (with_rate) s.rate = s.jacobian * v.segment(o, n);
      return s;  // linear in q: bias 0
    }
    case BodyKind::Ground:
      break;
  }
  return s;
}

template AttachmentStateOf<double> evaluateAttachmentOf<double>(const MechanismData&, const Attachment&,
                                                                ConstVectorRefOfS<double>, ConstVectorRefOfS<double>);
template AttachmentStateOf<Dual<double>> evaluateAttachmentOf<Dual<double>>(const MechanismData&, const Attachment&,
                                                                            ConstVectorRefOfS<Dual<double>>,
                                                                            ConstVectorRefOfS<Dual<double>>);

Eigen::Matrix3d coordinateRotation(const MechanismData& data, int body, ConstVectorRef q) {
  if (body < 0) return Eigen::Matrix3d::Identity();
  const BodyData& b = data.bodies[static_cast<std::size_t>(body)];
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  if (b.kind == BodyKind::Planar) {
    const double c = std::cos(q[b.offset + 2]), s = std::sin(q[b.offset + 2]);
    R(0, 0) = c;
    R(0, 1) = -s;
    R(1, 0) = s;
    R(1, 1) = c;
    return R;
  }
  const int d0 = b.kind == BodyKind::Spatial ? b.offset + 3 : b.offset;
  for (int k = 0; k < 3; ++k) R.col(k) = q.segment<3>(d0 + 3 * k);
  return R;
}

Eigen::Vector3d bodyAngularVelocity(const MechanismData& data, int body, ConstVectorRef q, ConstVectorRef v) {
  if (body < 0) return Eigen::Vector3d::Zero();
  const BodyData& b = data.bodies[static_cast<std::size_t>(body)];
  if (b.kind == BodyKind::Planar) return Eigen::Vector3d(0.0, 0.0, v[b.offset + 2]);
  const int d0 = b.kind == BodyKind::Spatial ? b.offset + 3 : b.offset;
  Eigen::Vector3d omega = Eigen::Vector3d::Zero();
  for (int k = 0; k < 3; ++k) {
    const Eigen::Vector3d d = q.segment<3>(d0 + 3 * k);
    const Eigen::Vector3d d_dot = v.segment<3>(d0 + 3 * k);
    omega += d.cross(d_dot);
  }
  return 0.5 * omega;
}

void addWrench(const MechanismData& data, int body, const Eigen::Vector3d& point_local, const Eigen::Vector3d& force,
               const Eigen::Vector3d& moment, ConstVectorRef q, VectorRef out) {
  if (body < 0) return;
  const BodyData& b = data.bodies[static_cast<std::size_t>(body)];
  const AttachmentState point = evaluateAttachment(data, Attachment{body, point_local, false}, q, Vector());
  const int n = coordinateCount(b.kind);
  out.segment(b.offset, n) += point.jacobian.transpose() * force;
  if (b.kind == BodyKind::Planar) {
    out[b.offset + 2] += moment[2];
    return;
  }
  const int d0 = b.kind == BodyKind::Spatial ? b.offset + 3 : b.offset;
  for (int k = 0; k < 3; ++k) out.segment<3>(d0 + 3 * k) += 0.5 * moment.cross(q.segment<3>(d0 + 3 * k));
}

}  // namespace kktdae::multibody::detail
