#include "constraint_rows.hpp"

#include "attachment_kinematics.hpp"

namespace kktdae::multibody::detail {

namespace {

/// grad += cᵀ G of an attachment, into the slot of its body (A or B); the ground has none.
void accumulate(const RowData& row, const Eigen::Vector3d& c, const AttachmentState& s, int body, RowEvaluation& e) {
  if (body < 0) return;
  RowGradient& grad = body == row.body_a ? e.grad_a : e.grad_b;
  grad.noalias() += c.transpose() * s.jacobian;
}

int coordinates(const MechanismData& data, int body) {
  return body < 0 ? 0 : coordinateCount(data.bodies[static_cast<std::size_t>(body)].kind);
}

}  // namespace

RowEvaluation evaluateRow(const MechanismData& data, const RowData& row, ConstVectorRef q, ConstVectorRef v, double t) {
  RowEvaluation e;
  e.grad_a.setZero(coordinates(data, row.body_a));
  e.grad_b.setZero(coordinates(data, row.body_b));
  const bool with_rate = v.size() > 0;
  double target = row.target;
  if (row.motion >= 0) {
    const JointMotion& m = data.motions[static_cast<std::size_t>(row.motion)];
    target += m.position(t, m.parameters);
    e.phi_t = -m.velocity(t, m.parameters);
    e.gamma = -m.acceleration(t, m.parameters);
  }
  switch (row.kind) {
    case RowKind::Component: {
      const AttachmentState p = evaluateAttachment(data, row.p, q, v);
      const AttachmentState pp = evaluateAttachment(data, row.p_prime, q, v);
      e.phi = row.axis.dot(pp.value - p.value) - target;
      accumulate(row, row.axis, pp, row.p_prime.body, e);
      accumulate(row, -row.axis, p, row.p.body, e);
      if (with_rate) e.gamma += row.axis.dot(pp.bias - p.bias);
      break;
    }
    case RowKind::Dot: {
      const AttachmentState u = evaluateAttachment(data, row.u, q, v);
      const AttachmentState w = evaluateAttachment(data, row.w, q, v);
      e.phi = u.value.dot(w.value) - target;
      accumulate(row, w.value, u, row.u.body, e);
      accumulate(row, u.value, w, row.w.body, e);
      if (with_rate) e.gamma += w.value.dot(u.bias) + u.value.dot(w.bias) + 2.0 * u.rate.dot(w.rate);
      break;
    }
    case RowKind::Offset: {
      const AttachmentState u = evaluateAttachment(data, row.u, q, v);
      const AttachmentState p = evaluateAttachment(data, row.p, q, v);
      const AttachmentState pp = evaluateAttachment(data, row.p_prime, q, v);
      const Eigen::Vector3d d = pp.value - p.value;
      e.phi = u.value.dot(d) - target;
      accumulate(row, d, u, row.u.body, e);
      accumulate(row, u.value, pp, row.p_prime.body, e);
      accumulate(row, -u.value, p, row.p.body, e);
      if (with_rate) e.gamma += d.dot(u.bias) + u.value.dot(pp.bias - p.bias) + 2.0 * u.rate.dot(pp.rate - p.rate);
      break;
    }
    case RowKind::Distance: {
      const AttachmentState p = evaluateAttachment(data, row.p, q, v);
      const AttachmentState pp = evaluateAttachment(data, row.p_prime, q, v);
      const Eigen::Vector3d d = pp.value - p.value;
      e.phi = 0.5 * (d.squaredNorm() - target * target);
      accumulate(row, d, pp, row.p_prime.body, e);
      accumulate(row, -d, p, row.p.body, e);
      if (with_rate) e.gamma += d.dot(pp.bias - p.bias) + (pp.rate - p.rate).squaredNorm();
      break;
    }
    case RowKind::Angle: {
      const double theta_a = row.body_a < 0 ? 0.0 : q[data.bodies[static_cast<std::size_t>(row.body_a)].offset + 2];
      const double theta_b = row.body_b < 0 ? 0.0 : q[data.bodies[static_cast<std::size_t>(row.body_b)].offset + 2];
      e.phi = theta_b - theta_a - target;
      if (row.body_a >= 0) e.grad_a[2] = -1.0;
      if (row.body_b >= 0) e.grad_b[2] = 1.0;
      break;
    }
  }
  return e;
}

void evaluateOrthonormality(const BodyData& body, ConstVectorRef q, ConstVectorRef v, Eigen::Ref<Eigen::Matrix<double, 6, 1>> phi,
                            Eigen::Ref<Eigen::Matrix<double, 6, 9>> grad, Eigen::Ref<Eigen::Matrix<double, 6, 1>> gamma) {
  const int d0 = body.kind == BodyKind::Spatial ? body.offset + 3 : body.offset;
  auto d = [&](int k) { return q.segment<3>(d0 + 3 * k); };
  grad.setZero();
  for (int k = 0; k < 3; ++k) {
    phi[k] = 0.5 * (d(k).dot(d(k)) - 1.0);
    grad.block<1, 3>(k, 3 * k) = d(k).transpose();
  }
  for (int r = 0; r < 3; ++r) {
    const int i = kDirectorPairs[r][0], j = kDirectorPairs[r][1];
    phi[3 + r] = d(i).dot(d(j));
    grad.block<1, 3>(3 + r, 3 * i) = d(j).transpose();
    grad.block<1, 3>(3 + r, 3 * j) = d(i).transpose();
  }
  if (v.size() == 0) return;
  auto w = [&](int k) { return v.segment<3>(d0 + 3 * k); };
  for (int k = 0; k < 3; ++k) gamma[k] = w(k).dot(w(k));
  for (int r = 0; r < 3; ++r) gamma[3 + r] = 2.0 * w(kDirectorPairs[r][0]).dot(w(kDirectorPairs[r][1]));
}

}  // namespace kktdae::multibody::detail
