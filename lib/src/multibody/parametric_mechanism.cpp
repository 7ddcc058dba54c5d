#include "kktdae/multibody/parametric_mechanism.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>

#include "applied_forces.hpp"
#include "attachment_kinematics.hpp"
#include "constraint_rows.hpp"
#include "kktdae/autodiff/dual.hpp"
#include "kktdae/core/checks.hpp"
#include "mechanism_data.hpp"

namespace kktdae::multibody {

using detail::Attachment;
using detail::AttachmentState;
using detail::BodyData;
using detail::MechanismData;
using detail::RowEvaluation;

namespace {

/// First director coordinate of a spatial or pivoted body.
int firstDirector(const BodyData& body) { return body.kind == BodyKind::Spatial ? body.offset + 3 : body.offset; }

/// Principal moments Jₖ = ΣJ̄ − J̄ₖ from the directors' inertias J̄ (J̄ᵢ = ½ ΣJ − Jᵢ).
Eigen::Vector3d principalMoments(const Eigen::Vector3d& director_inertia) {
  return Eigen::Vector3d::Constant(director_inertia.sum()) - director_inertia;
}

/// out += Gᵀ f at the coordinates of the attachment's body.
void addForceAt(const MechanismData& data, const AttachmentState& s, int body, const Eigen::Vector3d& force,
                Eigen::Ref<Vector> out) {
  if (body < 0) return;
  const BodyData& b = data.bodies[static_cast<std::size_t>(body)];
  out.segment(b.offset, coordinateCount(b.kind)).noalias() += s.jacobian.transpose() * force;
}

/// out += scale · ∇(row) at the row's bodies' coordinates, and the row's rate ∇(row)·v.
double addRowGradientAt(const MechanismData& data, const detail::RowData& row, const RowEvaluation& e, double scale,
                        ConstVectorRef v, Eigen::Ref<Vector> out) {
  double rate = 0.0;
  if (row.body_a >= 0) {
    const BodyData& b = data.bodies[static_cast<std::size_t>(row.body_a)];
    out.segment(b.offset, e.grad_a.size()) += scale * e.grad_a.transpose();
    rate += e.grad_a.dot(v.segment(b.offset, e.grad_a.size()));
  }
  if (row.body_b >= 0) {
    const BodyData& b = data.bodies[static_cast<std::size_t>(row.body_b)];
    out.segment(b.offset, e.grad_b.size()) += scale * e.grad_b.transpose();
    rate += e.grad_b.dot(v.segment(b.offset, e.grad_b.size()));
  }
  return rate;
}

}  // namespace

std::vector<MechanismParameter> declaredParameters(const Mechanism& mechanism) {
  const MechanismData& data = mechanism.data();
  std::vector<MechanismParameter> out;
  using Kind = MechanismParameterKind;
  bool spatial = false;
  for (std::size_t b = 0; b < data.bodies.size(); ++b) {
    const BodyData& body = data.bodies[b];
    const int index = static_cast<int>(b);
    out.push_back({body.name + ".mass", Kind::BodyMass, index, 0, body.mass});
    if (body.kind == BodyKind::Planar) {
      out.push_back({body.name + ".inertia", Kind::BodyInertia, index, 0, body.inertia[0]});
    } else {
      spatial = true;
      const Eigen::Vector3d moments = principalMoments(body.inertia);
      for (int k = 0; k < 3; ++k) {
        out.push_back({body.name + ".inertia[" + std::to_string(k) + "]", Kind::BodyInertia, index, k, moments[k]});
      }
    }
  }
  const char* axes[3] = {"gravity.x", "gravity.y", "gravity.z"};
  for (int k = 0; k < (spatial ? 3 : 2); ++k) out.push_back({axes[k], Kind::Gravity, -1, k, data.gravity[k]});
  for (std::size_t s = 0; s < data.springs.size(); ++s) {
    const detail::SpringData& spring = data.springs[s];
    const int index = static_cast<int>(s);
    out.push_back({spring.name + ".stiffness", Kind::SpringStiffness, index, 0, spring.stiffness});
    out.push_back({spring.name + ".damping", Kind::SpringDamping, index, 0, spring.damping});
    out.push_back({spring.name + ".rest_length", Kind::SpringRestLength, index, 0, spring.rest_length});
  }
  for (std::size_t s = 0; s < data.rotational_springs.size(); ++s) {
    const detail::RotationalSpringData& spring = data.rotational_springs[s];
    const int index = static_cast<int>(s);
    out.push_back({spring.name + ".stiffness", Kind::RotationalStiffness, index, 0, spring.stiffness});
    out.push_back({spring.name + ".damping", Kind::RotationalDamping, index, 0, spring.damping});
    out.push_back({spring.name + ".rest_angle", Kind::RotationalRestAngle, index, 0, spring.rest_angle});
    out.push_back({spring.name + ".torque", Kind::RotationalTorque, index, 0, spring.constant_torque});
  }
  return out;
}

ParametricMechanism::ParametricMechanism(std::vector<MechanismParameter> parameters, Mechanism mechanism)
    : mechanism_(std::move(mechanism)), parameters_(std::move(parameters)) {}

ParametricMechanism::ParametricMechanism(const Mechanism& mechanism, const std::vector<std::string>& names)
    : mechanism_(mechanism) {
  std::vector<MechanismParameter> all = declaredParameters(mechanism);
  for (std::size_t i = 0; i < all.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (all[i].name == all[j].name) {
        throwInvalid("parameter names", mechanism.name() + " declares '" + all[i].name +
                                            "' twice (rename a body or spring)");
      }
    }
  }
  if (names.empty()) {
    parameters_ = std::move(all);
    return;
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (names[i] == names[j]) throwInvalid("names", "'" + names[i] + "' appears twice");
    }
    bool found = false;
    for (const MechanismParameter& p : all) {
      if (p.name == names[i]) {
        parameters_.push_back(p);
        found = true;
        break;
      }
    }
    if (!found) {
      std::string known;
      for (const MechanismParameter& p : all) known += (known.empty() ? "" : ", ") + p.name;
      throwInvalid("names", mechanism.name() + " declares no parameter '" + names[i] + "' (it declares: " + known + ")");
    }
  }
}

std::string ParametricMechanism::parameterName(int i) const {
  if (i < 0 || i >= np()) {
    throwInvalid("parameter index", std::to_string(i) + " is not in [0, " + std::to_string(np()) + ") for " + name());
  }
  return parameters_[static_cast<std::size_t>(i)].name;
}

Vector ParametricMechanism::parameterValues() const {
  Vector p(np());
  for (int i = 0; i < np(); ++i) p[i] = parameters_[static_cast<std::size_t>(i)].value;
  return p;
}

std::unique_ptr<ParametricSystem> ParametricMechanism::withParameterValues(ConstVectorRef p) const {
  requireSize("p", p.size(), np());
  auto data = std::make_shared<MechanismData>(mechanism_.data());
  std::vector<MechanismParameter> changed = parameters_;
  // Principal moments per body, changed in place, then turned back into J̄ once per body.
  std::vector<Eigen::Vector3d> moments(data->bodies.size());
  std::vector<bool> moments_changed(data->bodies.size(), false);
  for (std::size_t b = 0; b < data->bodies.size(); ++b) moments[b] = principalMoments(data->bodies[b].inertia);
  using Kind = MechanismParameterKind;
  for (int i = 0; i < np(); ++i) {
    MechanismParameter& parameter = changed[static_cast<std::size_t>(i)];
    const double value = p[i];
    const char* name = parameter.name.c_str();
    if (!std::isfinite(value)) throwInvalid(name, "must be finite, got " + formatDouble(value));
    parameter.value = value;
    switch (parameter.kind) {
      case Kind::BodyMass: {
        requirePositive(name, value);
        BodyData& body = data->bodies[static_cast<std::size_t>(parameter.element)];
        body.mass = value;
        const int translations = body.kind == BodyKind::Planar ? 2 : body.kind == BodyKind::Spatial ? 3 : 0;
        data->mass_diagonal.segment(body.offset, translations).setConstant(value);
        break;
      }
      case Kind::BodyInertia: {
        BodyData& body = data->bodies[static_cast<std::size_t>(parameter.element)];
        if (body.kind == BodyKind::Planar) {
          requirePositive(name, value);
          body.inertia[0] = value;
          data->mass_diagonal[body.offset + 2] = value;
        } else {
          moments[static_cast<std::size_t>(parameter.element)][parameter.component] = value;
          moments_changed[static_cast<std::size_t>(parameter.element)] = true;
        }
        break;
      }
      case Kind::Gravity: data->gravity[parameter.component] = value; break;
      case Kind::SpringStiffness:
        requireNonNegative(name, value);
        data->springs[static_cast<std::size_t>(parameter.element)].stiffness = value;
        break;
      case Kind::SpringDamping:
        requireNonNegative(name, value);
        data->springs[static_cast<std::size_t>(parameter.element)].damping = value;
        break;
      case Kind::SpringRestLength:
        requireNonNegative(name, value);
        data->springs[static_cast<std::size_t>(parameter.element)].rest_length = value;
        break;
      case Kind::RotationalStiffness:
        requireNonNegative(name, value);
        data->rotational_springs[static_cast<std::size_t>(parameter.element)].stiffness = value;
        break;
      case Kind::RotationalDamping:
        requireNonNegative(name, value);
        data->rotational_springs[static_cast<std::size_t>(parameter.element)].damping = value;
        break;
      case Kind::RotationalRestAngle:
        data->rotational_springs[static_cast<std::size_t>(parameter.element)].rest_angle = value;
        break;
      case Kind::RotationalTorque:
        data->rotational_springs[static_cast<std::size_t>(parameter.element)].constant_torque = value;
        break;
    }
  }
  for (std::size_t b = 0; b < data->bodies.size(); ++b) {
    if (!moments_changed[b]) continue;
    BodyData& body = data->bodies[b];
    const Eigen::Vector3d director = Eigen::Vector3d::Constant(0.5 * moments[b].sum()) - moments[b];
    const bool was_flat = (body.inertia.array() == 0.0).any();
    for (int k = 0; k < 3; ++k) {
      if (!(director[k] > 0.0 || (was_flat && director[k] == 0.0))) {
        throwInvalid(body.name + ".inertia", "principal moments (" + formatDouble(moments[b][0]) + ", " +
                                                 formatDouble(moments[b][1]) + ", " + formatDouble(moments[b][2]) +
                                                 ") are not those of a rigid body (J_bar[" + std::to_string(k) +
                                                 "] = " + formatDouble(director[k]) + ")");
      }
    }
    body.inertia = director;
    const int d0 = firstDirector(body);
    for (int k = 0; k < 3; ++k) data->mass_diagonal.segment<3>(d0 + 3 * k).setConstant(director[k]);
  }
  return std::unique_ptr<ParametricSystem>(new ParametricMechanism(std::move(changed), Mechanism(data)));
}

void ParametricMechanism::dynamicsParameterJacobian(ConstVectorRef q, ConstVectorRef v, ConstVectorRef a, double,
                                                    MatrixRef D) const {
  const MechanismData& data = mechanism_.data();
  const Vector none;
  D.setZero();
  using Kind = MechanismParameterKind;
  for (int i = 0; i < np(); ++i) {
    const MechanismParameter& parameter = parameters_[static_cast<std::size_t>(i)];
    Eigen::Ref<Vector> column = D.col(i);
    switch (parameter.kind) {
      case Kind::BodyMass: {
        const int b = parameter.element;
        const BodyData& body = data.bodies[static_cast<std::size_t>(b)];
        const int translations = body.kind == BodyKind::Planar ? 2 : body.kind == BodyKind::Spatial ? 3 : 0;
        column.segment(body.offset, translations) = a.segment(body.offset, translations);
        const AttachmentState c = detail::evaluateAttachment(data, Attachment{b, body.centre_of_mass, false}, q, none);
        addForceAt(data, c, b, -data.gravity, column);
        break;
      }
      case Kind::BodyInertia: {
        const BodyData& body = data.bodies[static_cast<std::size_t>(parameter.element)];
        if (body.kind == BodyKind::Planar) {
          column[body.offset + 2] = a[body.offset + 2];
        } else {
          // ∂J̄ᵢ/∂Jₖ = ½ − δᵢₖ on director i's three coordinates.
          const int d0 = firstDirector(body);
          for (int k = 0; k < 3; ++k) {
            const double weight = k == parameter.component ? -0.5 : 0.5;
            column.segment<3>(d0 + 3 * k) = weight * a.segment<3>(d0 + 3 * k);
          }
        }
        break;
      }
      case Kind::Gravity: {
        Eigen::Vector3d axis = Eigen::Vector3d::Zero();
        axis[parameter.component] = 1.0;
        for (int b = 0; b < static_cast<int>(data.bodies.size()); ++b) {
          const BodyData& body = data.bodies[static_cast<std::size_t>(b)];
          const AttachmentState c = detail::evaluateAttachment(data, Attachment{b, body.centre_of_mass, false}, q, none);
          addForceAt(data, c, b, -body.mass * axis, column);
        }
        break;
      }
      case Kind::SpringStiffness:
      case Kind::SpringDamping:
      case Kind::SpringRestLength: {
        const detail::SpringData& s = data.springs[static_cast<std::size_t>(parameter.element)];
        const AttachmentState at_a = detail::evaluateAttachment(data, s.a, q, v);
        const AttachmentState at_b = detail::evaluateAttachment(data, s.b, q, v);
        const Eigen::Vector3d d = at_b.value - at_a.value;
        const double length = d.norm();
        const Eigen::Vector3d n = d / length;
        // h holds T (Gᵀ_B n − Gᵀ_A n), T = k (ℓ − ℓ₀) + c ℓ̇: ∂T/∂k = ℓ − ℓ₀, ∂T/∂c = ℓ̇, ∂T/∂ℓ₀ = −k.
        const double dT = parameter.kind == Kind::SpringStiffness ? length - s.rest_length
                          : parameter.kind == Kind::SpringDamping ? n.dot(at_b.rate - at_a.rate)
                                                                  : -s.stiffness;
        addForceAt(data, at_b, s.b.body, dT * n, column);
        addForceAt(data, at_a, s.a.body, -dT * n, column);
        break;
      }
      case Kind::RotationalStiffness:
      case Kind::RotationalDamping:
      case Kind::RotationalRestAngle:
      case Kind::RotationalTorque: {
        const detail::RotationalSpringData& s = data.rotational_springs[static_cast<std::size_t>(parameter.element)];
        const detail::RowData& row = data.joints[static_cast<std::size_t>(s.joint)].readback;
        const RowEvaluation e = detail::evaluateRow(data, row, q, none, 0.0);
        Vector gradient = Vector::Zero(nq());
        const double rate = addRowGradientAt(data, row, e, 1.0, v, gradient);
        // h holds −τ ∇θ, τ = −k (θ − θ₀) − c θ̇ + τ₀.
        const double dh = parameter.kind == Kind::RotationalStiffness ? e.phi - s.rest_angle
                          : parameter.kind == Kind::RotationalDamping ? rate
                          : parameter.kind == Kind::RotationalRestAngle ? -s.stiffness
                                                                         : -1.0;
        column = dh * gradient;
        break;
      }
    }
  }
}

void ParametricMechanism::termsTangent(ConstVectorRef q, ConstVectorRef v, double t, ConstVectorRef dq,
                                       ConstVectorRef dv, ModelTermsTangent& out) const {
  using D = Dual<double>;
  using DualVector = Eigen::Matrix<D, Eigen::Dynamic, 1>;
  const MechanismData& data = mechanism_.data();
  const int n = nq();
  DualVector q_dual(n), v_dual(n), h_dual(n);
  for (int i = 0; i < n; ++i) {
    q_dual[i] = D(q[i], dq[i]);
    v_dual[i] = D(v[i], dv[i]);
  }
  out.M.setZero();
  detail::appliedForcesOf<D>(data, q_dual, v_dual, h_dual);
  for (int i = 0; i < n; ++i) out.h[i] = h_dual[i].derivative;
  out.J.setZero();
  out.phi_t.setZero();
  int row = 0;
  Eigen::Matrix<D, 6, 1> phi6, gamma6;
  Eigen::Matrix<D, 6, 9> grad6;
  for (const BodyData& body : data.bodies) {
    if (body.kind != BodyKind::Spatial && body.kind != BodyKind::Pivoted) continue;
    detail::evaluateOrthonormalityOf<D>(body, q_dual, v_dual, phi6, grad6, gamma6);
    const int d0 = firstDirector(body);
    for (int r = 0; r < 6; ++r) {
      for (int c = 0; c < 9; ++c) out.J(row + r, d0 + c) = grad6(r, c).derivative;
      out.gamma[row + r] = gamma6[r].derivative;
    }
    row += 6;
  }
  for (const detail::RowData& r : data.rows) {
    const detail::RowEvaluationOf<D> e = detail::evaluateRowOf<D>(data, r, q_dual, v_dual, t);
    for (int side = 0; side < 2; ++side) {
      const int body = side == 0 ? r.body_a : r.body_b;
      if (body < 0) continue;
      const BodyData& b = data.bodies[static_cast<std::size_t>(body)];
      const detail::RowGradientOf<D>& grad = side == 0 ? e.grad_a : e.grad_b;
      for (int c = 0; c < grad.size(); ++c) out.J(row, b.offset + c) += grad[c].derivative;
    }
    out.gamma[row] = e.gamma.derivative;
    out.phi_t[row] = e.phi_t.derivative;
    ++row;
  }
}

}  // namespace kktdae::multibody
