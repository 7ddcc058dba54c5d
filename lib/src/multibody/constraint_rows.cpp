#include "constraint_rows.hpp"

#include "attachment_kinematics.hpp"
#include "kktdae/autodiff/dual.hpp"

namespace kktdae::multibody::detail {

namespace {

/// grad += cᵀ G of an attachment, into the slot of its body (A or B); the ground has none.
template <typename S>
void accumulate(const RowData& row, const Vector3Of<S>& c, const AttachmentStateOf<S>& s, int body,
                RowEvaluationOf<S>& e) {
  if (body < 0) return;
  RowGradientOf<S>& grad = body == row.body_a ? e.grad_a : e.grad_b;
  grad.noalias() += c.transpose() * s.jacobian;
}

int coordinates(const MechanismData& data, int body) {
  return body < 0 ? 0 : coordinateCount(data.bodies[static_cast<std::size_t>(body)].kind);
}

}  // namespace

template <typename S>
RowEvaluationOf<S> evaluateRowOf(const MechanismData& data, const RowData& row, ConstVectorRefOfS<S> q,
                                 ConstVectorRefOfS<S> v, double t) {
  using Attach = AttachmentStateOf<S>;
  RowEvaluationOf<S> e;
  e.grad_a.setZero(coordinates(data, row.body_a));
  e.grad_b.setZero(coordinates(data, row.body_b));
  const bool with_rate = v.size() > 0;
  double target = row.target;
  const Vector3Of<S> axis = row.axis.cast<S>();
  if (row.motion >= 0) {
    const JointMotion& m = data.motions[static_cast<std::size_t>(row.motion)];
    target += m.position(t, m.parameters);
    e.phi_t = -m.velocity(t, m.parameters);
    e.gamma = -m.acceleration(t, m.parameters);
  }
  switch (row.kind) {
    case RowKind::Component: {
      const Attach p = evaluateAttachmentOf<S>(data, row.p, q, v);
      const Attach pp = evaluateAttachmentOf<S>(data, row.p_prime, q, v);
      e.phi = axis.dot(pp.value - p.value) - target;
      accumulate<S>(row, axis, pp, row.p_prime.body, e);
      accumulate<S>(row, -axis, p, row.p.body, e);
      if (with_rate) e.gamma += axis.dot(pp.bias - p.bias);
      break;
    }
    case RowKind::Dot: {
      const Attach u = evaluateAttachmentOf<S>(data, row.u, q, v);
      const Attach w = evaluateAttachmentOf<S>(data, row.w, q, v);
      e.phi = u.value.dot(w.value) - target;
      accumulate<S>(row, w.value, u, row.u.body, e);
      accumulate<S>(row, u.value, w, row.w.body, e);
      if (with_rate) e.gamma += w.value.dot(u.bias) + u.value.dot(w.bias) + 2.0 * u.rate.dot(w.rate);
      break;
    }
    case RowKind::Offset: {
      const Attach u = evaluateAttachmentOf<S>(data, row.u, q, v);
      const Attach p = evaluateAttachmentOf<S>(data, row.p, q, v);
      const Attach pp = evaluateAttachmentOf<S>(data, row.p_prime, q, v);
      const Vector3Of<S> d = pp.value - p.value;
      e.phi = u.value.dot(d) - target;
      accumulate<S>(row, d, u, row.u.body, e);
      accumulate<S>(row, u.value, pp, row.p_prime.body, e);
      accumulate<S>(row, -u.value, p, row.p.body, e);
      if (with_rate) e.gamma += d.dot(u.bias) + u.value.dot(pp.bias - p.bias) + 2.0 * u.rate.dot(pp.rate - p.rate);
      break;
    }
    case RowKind::Distance: {
      const Attach p = evaluateAttachmentOf<S>(data, row.p, q, v);
      const Attach pp = evaluateAttachmentOf<S>(data, row.p_prime, q, v);
      const Vector3Of<S> d = pp.value - p.value;
      e.phi = 0.5 * (d.squaredNorm() - target * target);
      accumulate<S>(row, d, pp, row.p_prime.body, e);
      accumulate<S>(row, -d, p, row.p.body, e);
      if (with_rate) e.gamma += d.dot(pp.bias - p.bias) + (pp.rate - p.rate).squaredNorm();
      break;
    }
    case RowKind::Angle: {
      const S theta_a = row.body_a < 0 ? S(0.0) : S(q[data.bodies[static_cast<std::size_t>(row.body_a)].offset + 2]);
      const S theta_b = row.body_b < 0 ? S(0.0) : S(q[data.bodies[static_cast<std::size_t>(row.body_b)].offset + 2]);
      e.phi = theta_b - theta_a - target;
      if (row.body_a >= 0) e.grad_a[2] = S(-1.0);
      if (row.body_b >= 0) e.grad_b[2] = S(1.0);
      break;
    }
  }
  return e;
}

template <typename S>
void evaluateOrthonormalityOf(const BodyData& body, ConstVectorRefOfS<S> q, ConstVectorRefOfS<S> v,
                              Eigen::Ref<Eigen::Matrix<S, 6, 1>> phi, Eigen::Ref<Eigen::Matrix<S, 6, 9>> grad,
                              Eigen::Ref<Eigen::Matrix<S, 6, 1>> gamma) {
  const int d0 = body.kind == BodyKind::Spatial ? body.offset + 3 : body.offset;
  auto d = [&](int k) { return q.template segment<3>(d0 + 3 * k); };
  grad.setZero();
  for (int k = 0; k < 3; ++k) {
    phi[k] = 0.5 * (d(k).dot(d(k)) - 1.0);
    grad.template block<1, 3>(k, 3 * k) = d(k).transpose();
  }
  for (int r = 0; r < 3; ++r) {
    const int i = kDirectorPairs[r][0], j = kDirectorPairs[r][1];
    phi[3 + r] = d(i).dot(d(j));
    grad.template block<1, 3>(3 + r, 3 * i) = d(j).transpose();
    grad.template block<1, 3>(3 + r, 3 * j) = d(i).transpose();
  }
  if (v.size() == 0) return;
  auto w = [&](int k) { return v.template segment<3>(d0 + 3 * k); };
  for (int k = 0; k < 3; ++k) gamma[k] = w(k).dot(w(k));
  for (int r = 0; r < 3; ++r) gamma[3 + r] = 2.0 * w(kDirectorPairs[r][0]).dot(w(kDirectorPairs[r][1]));
}

template RowEvaluationOf<double> evaluateRowOf<double>(const MechanismData&, const RowData&, ConstVectorRefOfS<double>,
                                                      ConstVectorRefOfS<double>, double);
template RowEvaluationOf<Dual<double>> evaluateRowOf<Dual<double>>(const MechanismData&, const RowData&,
                                                                  ConstVectorRefOfS<Dual<double>>,
                                                                  ConstVectorRefOfS<Dual<double>>, double);
template void evaluateOrthonormalityOf<double>(const BodyData&, ConstVectorRefOfS<double>, ConstVectorRefOfS<double>,
                                               Eigen::Ref<Eigen::Matrix<double, 6, 1>>,
                                               Eigen::Ref<Eigen::Matrix<double, 6, 9>>,
                                               Eigen::Ref<Eigen::Matrix<double, 6, 1>>);
template void evaluateOrthonormalityOf<Dual<double>>(const BodyData&, ConstVectorRefOfS<Dual<double>>,
                                                     ConstVectorRefOfS<Dual<double>>,
                                                     Eigen::Ref<Eigen::Matrix<Dual<double>, 6, 1>>,
                                                     Eigen::Ref<Eigen::Matrix<Dual<double>, 6, 9>>,
                                                     Eigen::Ref<Eigen::Matrix<Dual<double>, 6, 1>>);

}  // namespace kktdae::multibody::detail
