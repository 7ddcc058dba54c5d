#include "kktdae/multibody/mechanism_builder.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>

#include "kktdae/core/checks.hpp"

#include "constraint_rows.hpp"
#include "mechanism_data.hpp"

namespace kktdae::multibody {

using detail::Attachment;
using detail::BodyData;
using detail::JointData;
using detail::RowData;
using detail::RowKind;

namespace {

void requireRotation(const Eigen::Matrix3d& rotation) {
  const double off = (rotation.transpose() * rotation - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff();
  if (!(off <= 1e-12) || !(rotation.determinant() > 0.0)) {
    throwInvalid("rotation", "must be orthonormal with determinant +1 (|RᵀR − I| = " + formatDouble(off) +
                                 ", det = " + formatDouble(rotation.determinant()) + ")");
  }
}

/// Principal axes P (det +1) and J̄ = ½ tr(J) − J in them. A diagonal tensor keeps the body's
/// axes (P = I): the directors are then the body frame's own columns.
void principalAxes(const Eigen::Matrix3d& inertia, Eigen::Matrix3d& axes, Eigen::Vector3d& director_inertia) {
  Eigen::Vector3d moments;
  if (inertia.isDiagonal(0.0)) {
    axes.setIdentity();
    moments = inertia.diagonal();
  } else {
    const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eigen(inertia);
    axes = eigen.eigenvectors();
    if (axes.determinant() < 0.0) axes.col(2) = -axes.col(2);
    moments = eigen.eigenvalues();
  }
  director_inertia = Eigen::Vector3d::Constant(0.5 * moments.sum()) - moments;
  // A flat body's J̄ₖ is 0 up to round-off; it must not come out slightly negative.
  const double tiny = 1e-12 * moments.sum();
  for (int k = 0; k < 3; ++k) {
    if (std::abs(director_inertia[k]) <= tiny) director_inertia[k] = 0.0;
  }
}

bool isPlanar(const detail::MechanismData& data, int body) {
  return body < 0 || data.bodies[static_cast<std::size_t>(body)].kind == BodyKind::Planar;
}

}  // namespace

MechanismBuilder::MechanismBuilder(std::string name) : data_(std::make_shared<detail::MechanismData>()) {
  if (name.empty()) throwInvalid("name", "must not be empty");
  data_->name = std::move(name);
}

MechanismBuilder::~MechanismBuilder() = default;

namespace {

void requireNewName(const detail::MechanismData& data, const std::string& name) {
  if (name.empty() || name == "ground") throwInvalid("name", "'" + name + "' is not a body name (empty or 'ground')");
  for (const auto& b : data.bodies) {
    if (b.name == name) throwInvalid("name", "a body named '" + name + "' exists already");
  }
}

int appendBody(detail::MechanismData& data, BodyData body, const Eigen::VectorXd& q, const Eigen::VectorXd& mass) {
  body.offset = data.nq;
  const int n = coordinateCount(body.kind);
  data.nq += n;
  data.configuration.conservativeResize(data.nq);
  data.configuration.tail(n) = q;
  data.mass_diagonal.conservativeResize(data.nq);
  data.mass_diagonal.tail(n) = mass;
  if ((mass.array() == 0.0).any()) data.flat_body = true;
  if (body.kind != BodyKind::Planar) data.orthonormality_rows += 6;
  data.bodies.push_back(std::move(body));
  return static_cast<int>(data.bodies.size()) - 1;
}

}  // namespace

int MechanismBuilder::addPlanarBody(const std::string& name, const PlanarBodyParams& params, double x, double y,
                                    double angle) {
  requireNewName(*data_, name);
  params.validate();
  if (!std::isfinite(x) || !std::isfinite(y) || !std::isfinite(angle)) {
    throwInvalid("pose", "x, y and angle must be finite");
  }
  BodyData body;
  body.name = name;
  body.kind = BodyKind::Planar;
  body.mass = params.mass;
  body.inertia = Eigen::Vector3d(params.inertia, 0.0, 0.0);
  Eigen::VectorXd mass(3);
  mass << params.mass, params.mass, params.inertia;
  return appendBody(*data_, body, Eigen::Vector3d(x, y, angle), mass);
}

int MechanismBuilder::addSpatialBody(const std::string& name, const SpatialBodyParams& params,
                                     const Eigen::Vector3d& position, const Eigen::Matrix3d& rotation) {
  requireNewName(*data_, name);
  params.validate();
  requireFinite("position", position);
  requireRotation(rotation);
  BodyData body;
  body.name = name;
  body.kind = BodyKind::Spatial;
  body.mass = params.mass;
  principalAxes(params.inertia, body.axes, body.inertia);
  body.origin = params.centre_of_mass;
  Eigen::VectorXd q(12), mass(12);
  q.head<3>() = position + rotation * params.centre_of_mass;
  mass.head<3>().setConstant(params.mass);
  const Eigen::Matrix3d directors = rotation * body.axes;
  for (int k = 0; k < 3; ++k) {
    q.segment<3>(3 + 3 * k) = directors.col(k);
    mass.segment<3>(3 + 3 * k).setConstant(body.inertia[k]);
  }
  return appendBody(*data_, body, q, mass);
}

int MechanismBuilder::addPivotedBody(const std::string& name, const SpatialBodyParams& params,
                                     const Eigen::Vector3d& pivot, const Eigen::Vector3d& pivot_in_space,
                                     const Eigen::Matrix3d& rotation) {
  requireNewName(*data_, name);
  params.validate();
  requireFinite("pivot", pivot);
  requireFinite("pivot_in_space", pivot_in_space);
  requireRotation(rotation);
  BodyData body;
  body.name = name;
  body.kind = BodyKind::Pivoted;
  body.mass = params.mass;
  const Eigen::Vector3d s = params.centre_of_mass - pivot;
  const Eigen::Matrix3d inertia_pivot =
      params.inertia + params.mass * (s.squaredNorm() * Eigen::Matrix3d::Identity() - s * s.transpose());
  principalAxes(inertia_pivot, body.axes, body.inertia);
  if (!(body.inertia.minCoeff() > 0.0)) {
    throwInvalid("params", "body '" + name + "' has all its mass in a plane through the pivot (J_bar = " +
                               formatDouble(body.inertia.minCoeff()) + " about it): M would be singular");
  }
  body.origin = pivot;
  body.pivot = pivot_in_space;
  body.centre_of_mass = body.axes.transpose() * s;
  body.reach = s.norm();
  Eigen::VectorXd q(9), mass(9);
  const Eigen::Matrix3d directors = rotation * body.axes;
  for (int k = 0; k < 3; ++k) {
    q.segment<3>(3 * k) = directors.col(k);
    mass.segment<3>(3 * k).setConstant(body.inertia[k]);
  }
  return appendBody(*data_, body, q, mass);
}

namespace {

BodyData* bodyOrGround(detail::MechanismData& data, int body, const char* field) {
  if (body == MechanismBuilder::kGround) return nullptr;
  if (body < 0 || body >= static_cast<int>(data.bodies.size())) {
    throwInvalid(field, "index " + std::to_string(body) + " is neither kGround nor a body added so far (" +
                            std::to_string(data.bodies.size()) + ")");
  }
  return &data.bodies[static_cast<std::size_t>(body)];
}

/// A frame of the user's body frame in the body's coordinate frame.
Frame toCoordinates(const BodyData* body, const Frame& frame) {
  if (body == nullptr) return frame;
  return Frame{body->pointToCoordinates(frame.origin), body->axes.transpose() * frame.rotation};
}

void extendReach(BodyData* body, const Eigen::Vector3d& local) {
  if (body != nullptr) body->reach = std::max(body->reach, (local - body->centre_of_mass).norm());
}

}  // namespace

int MechanismBuilder::addJoint(const std::string& name, JointKind kind, int body_a, const Frame& frame_a, int body_b,
                               const Frame& frame_b, double length) {
  detail::MechanismData& data = *data_;
  for (const auto& j : data.joints) {
    if (j.name == name) throwInvalid("name", "a joint named '" + name + "' exists already");
  }
  BodyData* a = bodyOrGround(data, body_a, "body_a");
  BodyData* b = bodyOrGround(data, body_b, "body_b");
  if (body_a == body_b) throwInvalid("body_b", "joint '" + name + "' joins body " + std::to_string(body_a) + " to itself");
  requireFinite("frame_a.origin", frame_a.origin);
  requireFinite("frame_b.origin", frame_b.origin);
  requireRotation(frame_a.rotation);
  requireRotation(frame_b.rotation);
  const bool planar = isPlanar(data, body_a) && isPlanar(data, body_b);
  if (!planar && ((body_a >= 0 && isPlanar(data, body_a)) || (body_b >= 0 && isPlanar(data, body_b)))) {
    throwInvalid("body_b", "joint '" + name + "' joins a planar body to a spatial one");
  }
  if (planar && (kind == JointKind::Spherical || kind == JointKind::Universal || kind == JointKind::Cylindrical ||
                 kind == JointKind::Planar)) {
    throwInvalid("kind", std::string(toString(kind)) + " joint '" + name +
                             "' between planar bodies (planar bodies take revolute, prismatic, fixed, point_on_line, "
                             "distance)");
  }
  if (kind == JointKind::Distance && !(length > 0.0)) {
    throwInvalid("length", "distance joint '" + name + "' needs L > 0, got " + formatDouble(length));
  }
  JointData joint;
  joint.name = name;
  joint.kind = kind;
  joint.body_a = body_a;
  joint.body_b = body_b;
  joint.planar = planar;
  joint.frame_a = toCoordinates(a, frame_a);
  joint.frame_b = toCoordinates(b, frame_b);
  joint.length = length;
  extendReach(a, joint.frame_a.origin);
  extendReach(b, joint.frame_b.origin);

  const Attachment origin_a{body_a, joint.frame_a.origin, false};
  const Attachment origin_b{body_b, joint.frame_b.origin, false};
  auto axis_a = [&](int k) { return Attachment{body_a, joint.frame_a.rotation.col(k), true}; };
  auto axis_b = [&](int k) { return Attachment{body_b, joint.frame_b.rotation.col(k), true}; };
  std::vector<RowData> rows;
  auto base = [&](RowKind row_kind) {
    RowData r;
    r.kind = row_kind;
    r.joint = static_cast<int>(data.joints.size());
    r.body_a = body_a;
    r.body_b = body_b;
    r.p = origin_a;
    r.p_prime = origin_b;
    return r;
  };
  auto coincide = [&](int axes) {
    for (int k = 0; k < axes; ++k) {
      RowData r = base(RowKind::Component);
      r.axis = Eigen::Vector3d::Unit(k);
      rows.push_back(r);
    }
  };
  auto perpendicular = [&](int ka, int kb) {
    RowData r = base(RowKind::Dot);
    r.u = axis_a(ka);
    r.w = axis_b(kb);
    rows.push_back(r);
  };
  auto offset = [&](int ka) {
    RowData r = base(RowKind::Offset);
    r.u = axis_a(ka);
    return r;
  };
  // θ_B − θ_A − c with c = α_A − β_B: the angle from A's frame to B's (planar).
  auto angle = [&]() {
    RowData r = base(RowKind::Angle);
    const double alpha = std::atan2(joint.frame_a.rotation(1, 0), joint.frame_a.rotation(0, 0));
    const double beta = std::atan2(joint.frame_b.rotation(1, 0), joint.frame_b.rotation(0, 0));
    r.target = alpha - beta;
    return r;
  };
  if (kind == JointKind::Distance) {
    RowData r = base(RowKind::Distance);
    r.target = length;
    rows.push_back(r);
  } else if (planar) {
    switch (kind) {
      case JointKind::Revolute:
        coincide(2);
        joint.has_readback = true;
        joint.readback = angle();
        break;
      case JointKind::Prismatic:
        rows.push_back(offset(1));
        rows.push_back(angle());
        joint.has_readback = true;
        joint.readback = offset(0);
        break;
      case JointKind::Fixed:
        coincide(2);
        rows.push_back(angle());
        break;
      case JointKind::PointOnLine:
        rows.push_back(offset(1));
        joint.has_readback = true;
        joint.readback = offset(0);
        break;
      default:
        break;
    }
  } else {
    switch (kind) {
      case JointKind::Spherical:
        coincide(3);
        break;
      case JointKind::Revolute:
        coincide(3);
        perpendicular(2, 0);
        perpendicular(2, 1);
        break;
      case JointKind::Universal:
        coincide(3);
        perpendicular(2, 2);
        break;
      case JointKind::Cylindrical:
        rows.push_back(offset(0));
        rows.push_back(offset(1));
        perpendicular(2, 0);
        perpendicular(2, 1);
        joint.has_readback = true;
        joint.readback = offset(2);
        break;
      case JointKind::Prismatic:
        rows.push_back(offset(0));
        rows.push_back(offset(1));
        perpendicular(2, 0);
        perpendicular(2, 1);
        perpendicular(0, 1);
        joint.has_readback = true;
        joint.readback = offset(2);
        break;
      case JointKind::Planar: {
        rows.push_back(offset(2));
        perpendicular(2, 0);
        perpendicular(2, 1);
        break;
      }
      case JointKind::Fixed:
        coincide(3);
        perpendicular(2, 0);
        perpendicular(2, 1);
        perpendicular(0, 1);
        break;
      case JointKind::PointOnLine:
        rows.push_back(offset(0));
        rows.push_back(offset(1));
        joint.has_readback = true;
        joint.readback = offset(2);
        break;
      default:
        break;
    }
  }
  joint.first_row = static_cast<int>(data.rows.size());  // made absolute by build()
  joint.row_count = static_cast<int>(rows.size());
  for (const RowData& r : rows) data.rows.push_back(r);
  data.joints.push_back(joint);
  return static_cast<int>(data.joints.size()) - 1;
}

namespace {

JointData& jointWithReadback(detail::MechanismData& data, int joint, const std::string& what) {
  if (joint < 0 || joint >= static_cast<int>(data.joints.size())) {
    throwInvalid("joint", "index " + std::to_string(joint) + " is not a joint added so far");
  }
  JointData& j = data.joints[static_cast<std::size_t>(joint)];
  if (!j.has_readback) {
    throwInvalid("joint", std::string(toString(j.kind)) + " joint '" + j.name + "' has no single coordinate for " +
                              what + " (planar revolute, prismatic, point_on_line and cylindrical slides have one)");
  }
  return j;
}

}  // namespace

void MechanismBuilder::drive(int joint, const JointMotion& motion) {
  detail::MechanismData& data = *data_;
  JointData& j = jointWithReadback(data, joint, "a driver");
  if (j.driver_row >= 0) throwInvalid("joint", "joint '" + j.name + "' is driven already");
  if (motion.position == nullptr || motion.velocity == nullptr || motion.acceleration == nullptr) {
    throwInvalid("motion", "needs position, velocity and acceleration");
  }
  data.motions.push_back(motion);
  RowData row = j.readback;
  row.motion = static_cast<int>(data.motions.size()) - 1;
  j.driver_row = static_cast<int>(data.rows.size());  // made absolute by build()
  data.rows.push_back(row);
}

void MechanismBuilder::setGravity(const Eigen::Vector3d& gravity) {
  requireFinite("gravity", gravity);
  data_->gravity = gravity;
}

void MechanismBuilder::addSpring(const std::string& name, int body_a, const Eigen::Vector3d& point_a, int body_b,
                                 const Eigen::Vector3d& point_b, double stiffness, double damping,
                                 double rest_length) {
  detail::MechanismData& data = *data_;
  BodyData* a = bodyOrGround(data, body_a, "body_a");
  BodyData* b = bodyOrGround(data, body_b, "body_b");
  requireFinite("point_a", point_a);
  requireFinite("point_b", point_b);
  if (!(stiffness >= 0.0) || !(damping >= 0.0) || !(rest_length >= 0.0) || !std::isfinite(stiffness) ||
      !std::isfinite(damping) || !std::isfinite(rest_length)) {
    throwInvalid("spring", "'" + name + "': stiffness, damping and rest_length must be finite and >= 0");
  }
  detail::SpringData s;
  s.name = name;
  s.a = Attachment{body_a, a ? a->pointToCoordinates(point_a) : point_a, false};
  s.b = Attachment{body_b, b ? b->pointToCoordinates(point_b) : point_b, false};
  s.stiffness = stiffness;
  s.damping = damping;
  s.rest_length = rest_length;
  extendReach(a, s.a.local);
  extendReach(b, s.b.local);
  data.springs.push_back(s);
}

void MechanismBuilder::addRotationalSpring(const std::string& name, int joint, double stiffness, double damping,
                                           double rest_angle, double constant_torque) {
  detail::MechanismData& data = *data_;
  JointData& j = jointWithReadback(data, joint, "a rotational spring");
  if (j.readback.kind != RowKind::Angle) {
    throwInvalid("joint", "rotational spring '" + name + "' needs a revolute joint between planar bodies, got " +
                              std::string(toString(j.kind)) + " '" + j.name + "'");
  }
  for (double value : {stiffness, damping, rest_angle, constant_torque}) {
    if (!std::isfinite(value)) throwInvalid("rotational spring", "'" + name + "': parameters must be finite");
  }
  if (stiffness < 0.0 || damping < 0.0) throwInvalid("rotational spring", "'" + name + "': stiffness, damping must be >= 0");
  data.rotational_springs.push_back({name, joint, stiffness, damping, rest_angle, constant_torque});
}

int MechanismBuilder::addActuator(const std::string& name, int joint) {
  jointWithReadback(*data_, joint, "an actuator");
  data_->actuators.push_back({name, joint});
  return static_cast<int>(data_->actuators.size()) - 1;
}

Mechanism MechanismBuilder::build() const {
  if (data_->bodies.empty()) throwInvalid("bodies", "mechanism '" + data_->name + "' has no body");
  auto data = std::make_shared<detail::MechanismData>(*data_);
  // Joint and driver rows follow every body's orthonormality rows, whatever the order of adding.
  for (JointData& j : data->joints) {
    j.first_row += data->orthonormality_rows;
    if (j.driver_row >= 0) j.driver_row += data->orthonormality_rows;
  }
  // The pattern in the order Mechanism::constraintJacobianValues() writes it.
  std::vector<int> rows, cols;
  int row = 0;
  for (const BodyData& body : data->bodies) {
    if (body.kind == BodyKind::Planar) continue;
    const int d0 = body.kind == BodyKind::Spatial ? body.offset + 3 : body.offset;
    for (int k = 0; k < 3; ++k) {
      for (int c = 0; c < 3; ++c) rows.push_back(row + k), cols.push_back(d0 + 3 * k + c);
    }
    for (int r = 0; r < 3; ++r) {
      const int i = detail::kDirectorPairs[r][0], j = detail::kDirectorPairs[r][1];
      for (int c = 0; c < 3; ++c) rows.push_back(row + 3 + r), cols.push_back(d0 + 3 * i + c);
      for (int c = 0; c < 3; ++c) rows.push_back(row + 3 + r), cols.push_back(d0 + 3 * j + c);
    }
    row += 6;
  }
  for (const RowData& r : data->rows) {
    for (int body : {r.body_a, r.body_b}) {
      if (body < 0) continue;
      const BodyData& b = data->bodies[static_cast<std::size_t>(body)];
      for (int c = 0; c < coordinateCount(b.kind); ++c) rows.push_back(row), cols.push_back(b.offset + c);
    }
    ++row;
  }
  data->pattern_rows = Eigen::Map<IndexVector>(rows.data(), static_cast<Eigen::Index>(rows.size()));
  data->pattern_cols = Eigen::Map<IndexVector>(cols.data(), static_cast<Eigen::Index>(cols.size()));
  return Mechanism(data);
}

}  // namespace kktdae::multibody
