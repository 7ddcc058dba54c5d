#include "kktdae/multibody/mechanism.hpp"

#include <cmath>

#include "kktdae/core/checks.hpp"

#include "applied_forces.hpp"
#include "attachment_kinematics.hpp"
#include "constraint_rows.hpp"
#include "mechanism_data.hpp"

namespace kktdae::multibody {

using detail::Attachment;
using detail::AttachmentState;
using detail::evaluateAttachment;
using detail::evaluateRow;
using detail::RowEvaluation;

namespace {

/// Calls write(row, column, value) for every structural entry of J, in the pattern's order:
/// the orthonormality rows (dₖ for rows 0–2, dᵢ then dⱼ for rows 3–5), then each joint or
/// driver row over body A's coordinates, then body B's. With q given the values are J's.
template <class Write>
void forEachJacobianEntry(const detail::MechanismData& data, const double* q_data, ConstVectorRef q, double t,
                          Write&& write) {
  int row = 0;
  for (const detail::BodyData& body : data.bodies) {
    if (body.kind != BodyKind::Spatial && body.kind != BodyKind::Pivoted) continue;
    const int d0 = body.kind == BodyKind::Spatial ? body.offset + 3 : body.offset;
    for (int k = 0; k < 3; ++k) {
      for (int c = 0; c < 3; ++c) write(row + k, d0 + 3 * k + c, q_data ? q[d0 + 3 * k + c] : 0.0);
    }
    for (int r = 0; r < 3; ++r) {
      const int i = detail::kDirectorPairs[r][0], j = detail::kDirectorPairs[r][1];
      for (int c = 0; c < 3; ++c) write(row + 3 + r, d0 + 3 * i + c, q_data ? q[d0 + 3 * j + c] : 0.0);
      for (int c = 0; c < 3; ++c) write(row + 3 + r, d0 + 3 * j + c, q_data ? q[d0 + 3 * i + c] : 0.0);
    }
    row += 6;
  }
  for (const detail::RowData& r : data.rows) {
    RowEvaluation e;
    if (q_data) e = evaluateRow(data, r, q, Vector(), t);
    for (int side = 0; side < 2; ++side) {
      const int body = side == 0 ? r.body_a : r.body_b;
      if (body < 0) continue;
      const detail::BodyData& b = data.bodies[static_cast<std::size_t>(body)];
      const int n = coordinateCount(b.kind);
      for (int c = 0; c < n; ++c) {
        write(row, b.offset + c, q_data ? (side == 0 ? e.grad_a[c] : e.grad_b[c]) : 0.0);
      }
    }
    ++row;
  }
}

const detail::BodyData& bodyAt(const detail::MechanismData& data, int body) {
  if (body < 0 || body >= static_cast<int>(data.bodies.size())) {
    throwInvalid("body", "index " + std::to_string(body) + " is not a body of " + data.name + " (0 to " +
                             std::to_string(data.bodies.size()) + " − 1)");
  }
  return data.bodies[static_cast<std::size_t>(body)];
}

const detail::JointData& jointAt(const detail::MechanismData& data, int joint) {
  if (joint < 0 || joint >= static_cast<int>(data.joints.size())) {
    throwInvalid("joint", "index " + std::to_string(joint) + " is not a joint of " + data.name);
  }
  return data.joints[static_cast<std::size_t>(joint)];
}

/// A spring's length ℓ, its rate ℓ̇, the unit vector n from A to B and both attachments.
struct SpringState {
  AttachmentState a, b;
  double length = 0.0, rate = 0.0;
  Eigen::Vector3d direction = Eigen::Vector3d::Zero();
};

SpringState springState(const detail::MechanismData& data, const detail::SpringData& s, ConstVectorRef q,
                        ConstVectorRef v) {
  SpringState st;
  st.a = evaluateAttachment(data, s.a, q, v);
  st.b = evaluateAttachment(data, s.b, q, v);
  const Eigen::Vector3d d = st.b.value - st.a.value;
  st.length = d.norm();
  st.direction = d / st.length;
  if (v.size() > 0) st.rate = st.direction.dot(st.b.rate - st.a.rate);
  return st;
}

/// Adds a row gradient times `scale` into out at the row's bodies' coordinates.
void addRowGradient(const detail::MechanismData& data, const detail::RowData& row, const RowEvaluation& e,
                    double scale, VectorRef out) {
  if (row.body_a >= 0) {
    const detail::BodyData& b = data.bodies[static_cast<std::size_t>(row.body_a)];
    out.segment(b.offset, e.grad_a.size()) += scale * e.grad_a.transpose();
  }
  if (row.body_b >= 0) {
    const detail::BodyData& b = data.bodies[static_cast<std::size_t>(row.body_b)];
    out.segment(b.offset, e.grad_b.size()) += scale * e.grad_b.transpose();
  }
}

double gradientTimes(const detail::MechanismData& data, const detail::RowData& row, const RowEvaluation& e,
                     ConstVectorRef v) {
  double rate = 0.0;
  if (row.body_a >= 0) rate += e.grad_a.dot(v.segment(data.bodies[static_cast<std::size_t>(row.body_a)].offset, e.grad_a.size()));
  if (row.body_b >= 0) rate += e.grad_b.dot(v.segment(data.bodies[static_cast<std::size_t>(row.body_b)].offset, e.grad_b.size()));
  return rate;
}

}  // namespace

Mechanism::Mechanism(std::shared_ptr<const detail::MechanismData> data) : data_(std::move(data)) {
  if (!data_ || data_->bodies.empty()) throwInvalid("mechanism", "has no body");
}

std::string Mechanism::name() const { return data_->name; }
int Mechanism::nq() const { return data_->nq; }
int Mechanism::nc() const { return data_->nc(); }
int Mechanism::nu() const { return static_cast<int>(data_->actuators.size()); }

MassStructure Mechanism::massStructure() const {
  return data_->flat_body ? MassStructure::General : MassStructure::ConstantDiagonal;
}

void Mechanism::massDiagonal(ConstVectorRef, VectorRef d) const { d = data_->mass_diagonal; }

void Mechanism::massMatrix(ConstVectorRef, MatrixRef M) const {
  M.setZero();
  M.diagonal() = data_->mass_diagonal;
}

void Mechanism::bias(ConstVectorRef q, ConstVectorRef v, double, VectorRef h) const {
  detail::appliedForcesOf<double>(*data_, q, v, h);
}

bool Mechanism::biasDependsOnState() const {
  return !data_->springs.empty() || !data_->rotational_springs.empty();
}

void Mechanism::inputMap(ConstVectorRef q, double, MatrixRef S) const {
  const detail::MechanismData& data = *data_;
  S.setZero();
  Vector row(data.nq);
  for (std::size_t i = 0; i < data.actuators.size(); ++i) {
    const detail::JointData& joint = data.joints[static_cast<std::size_t>(data.actuators[i].joint)];
    const RowEvaluation e = evaluateRow(data, joint.readback, q, Vector(), 0.0);
    row.setZero();
    addRowGradient(data, joint.readback, e, 1.0, row);
    S.row(static_cast<Eigen::Index>(i)) = row.transpose();
  }
}

void Mechanism::constraint(ConstVectorRef q, double t, VectorRef phi) const {
  const detail::MechanismData& data = *data_;
  int row = 0;
  Eigen::Matrix<double, 6, 1> p, gamma;
  Eigen::Matrix<double, 6, 9> grad;
  for (const detail::BodyData& body : data.bodies) {
    if (body.kind != BodyKind::Spatial && body.kind != BodyKind::Pivoted) continue;
    detail::evaluateOrthonormality(body, q, Vector(), p, grad, gamma);
    phi.segment<6>(row) = p;
    row += 6;
  }
  for (const detail::RowData& r : data.rows) phi[row++] = evaluateRow(data, r, q, Vector(), t).phi;
}

void Mechanism::constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const {
  J.setZero();
  forEachJacobianEntry(*data_, q.data(), q, t, [&](int r, int c, double value) { J(r, c) = value; });
}

void Mechanism::constraintTimeDerivative(ConstVectorRef q, double t, VectorRef phi_t) const {
  const detail::MechanismData& data = *data_;
  phi_t.setZero();
  int row = data.orthonormality_rows;
  for (const detail::RowData& r : data.rows) {
    if (r.motion >= 0) phi_t[row] = evaluateRow(data, r, q, Vector(), t).phi_t;
    ++row;
  }
}

void Mechanism::constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const {
  const detail::MechanismData& data = *data_;
  int row = 0;
  Eigen::Matrix<double, 6, 1> p, g;
  Eigen::Matrix<double, 6, 9> grad;
  for (const detail::BodyData& body : data.bodies) {
    if (body.kind != BodyKind::Spatial && body.kind != BodyKind::Pivoted) continue;
    detail::evaluateOrthonormality(body, q, v, p, grad, g);
    gamma.segment<6>(row) = g;
    row += 6;
  }
  for (const detail::RowData& r : data.rows) gamma[row++] = evaluateRow(data, r, q, v, t).gamma;
}

int Mechanism::jacobianNonZeros() const { return static_cast<int>(data_->pattern_rows.size()); }

void Mechanism::constraintJacobianPattern(IndexVectorRef rows, IndexVectorRef cols) const {
  rows = data_->pattern_rows;
  cols = data_->pattern_cols;
}

void Mechanism::constraintJacobianValues(ConstVectorRef q, double t, VectorRef values) const {
  int k = 0;
  forEachJacobianEntry(*data_, q.data(), q, t, [&](int, int, double value) { values[k++] = value; });
}

bool Mechanism::isTimeDependent() const { return !data_->motions.empty(); }

bool Mechanism::isConservative() const {
  const detail::MechanismData& data = *data_;
  if (!data.motions.empty()) return false;
  for (const auto& s : data.springs) {
    if (s.damping != 0.0) return false;
  }
  for (const auto& s : data.rotational_springs) {
    if (s.damping != 0.0 || s.constant_torque != 0.0) return false;
  }
  return true;
}

double Mechanism::energyScale() const {
  const detail::MechanismData& data = *data_;
  double scale = 0.0;
  for (const auto& b : data.bodies) scale += b.mass * data.gravity.norm() * b.reach;
  for (const auto& s : data.springs) scale += 0.5 * s.stiffness * s.rest_length * s.rest_length;
  return scale;
}

double Mechanism::kineticEnergy(ConstVectorRef, ConstVectorRef v) const {
  return 0.5 * v.dot(data_->mass_diagonal.cwiseProduct(v));
}

double Mechanism::potentialEnergy(ConstVectorRef q, double) const {
  const detail::MechanismData& data = *data_;
  double V = 0.0;
  for (int b = 0; b < static_cast<int>(data.bodies.size()); ++b) {
    const detail::BodyData& body = data.bodies[static_cast<std::size_t>(b)];
    V -= body.mass * data.gravity.dot(evaluateAttachment(data, Attachment{b, body.centre_of_mass, false}, q, Vector()).value);
  }
  for (const detail::SpringData& s : data.springs) {
    const double stretch = springState(data, s, q, Vector()).length - s.rest_length;
    V += 0.5 * s.stiffness * stretch * stretch;
  }
  for (const detail::RotationalSpringData& s : data.rotational_springs) {
    const detail::JointData& joint = data.joints[static_cast<std::size_t>(s.joint)];
    const double angle = evaluateRow(data, joint.readback, q, Vector(), 0.0).phi;
    V += 0.5 * s.stiffness * (angle - s.rest_angle) * (angle - s.rest_angle) - s.constant_torque * angle;
  }
  return V;
}

int Mechanism::bodyCount() const { return static_cast<int>(data_->bodies.size()); }

int Mechanism::bodyIndex(const std::string& name) const {
  if (name == "ground") return -1;
  for (std::size_t b = 0; b < data_->bodies.size(); ++b) {
    if (data_->bodies[b].name == name) return static_cast<int>(b);
  }
  throwInvalid("body", "no body named '" + name + "' in " + data_->name);
}

const std::string& Mechanism::bodyName(int body) const { return bodyAt(*data_, body).name; }
BodyKind Mechanism::bodyKind(int body) const { return bodyAt(*data_, body).kind; }
int Mechanism::bodyOffset(int body) const { return bodyAt(*data_, body).offset; }
int Mechanism::jointCount() const { return static_cast<int>(data_->joints.size()); }

int Mechanism::jointIndex(const std::string& name) const {
  for (std::size_t j = 0; j < data_->joints.size(); ++j) {
    if (data_->joints[j].name == name) return static_cast<int>(j);
  }
  throwInvalid("joint", "no joint named '" + name + "' in " + data_->name);
}

const std::string& Mechanism::jointName(int joint) const { return jointAt(*data_, joint).name; }
JointKind Mechanism::jointKind(int joint) const { return jointAt(*data_, joint).kind; }
int Mechanism::jointFirstRow(int joint) const { return jointAt(*data_, joint).first_row; }
int Mechanism::jointRowCount(int joint) const { return jointAt(*data_, joint).row_count; }
int Mechanism::driverRow(int joint) const { return jointAt(*data_, joint).driver_row; }
const Vector& Mechanism::builtConfiguration() const { return data_->configuration; }

Eigen::Vector3d Mechanism::pointPosition(int body, const Eigen::Vector3d& point, ConstVectorRef q) const {
  if (body < 0) return point;
  const detail::BodyData& b = bodyAt(*data_, body);
  return evaluateAttachment(*data_, Attachment{body, b.pointToCoordinates(point), false}, q, Vector()).value;
}

Eigen::Matrix3d Mechanism::rotation(int body, ConstVectorRef q) const {
  if (body < 0) return Eigen::Matrix3d::Identity();
  return detail::coordinateRotation(*data_, body, q) * bodyAt(*data_, body).axes.transpose();
}

Eigen::Vector3d Mechanism::angularVelocity(int body, ConstVectorRef q, ConstVectorRef v) const {
  if (body >= 0) bodyAt(*data_, body);
  return detail::bodyAngularVelocity(*data_, body, q, v);
}

void Mechanism::setBodyVelocity(int body, const Eigen::Vector3d& point, const Eigen::Vector3d& velocity,
                                const Eigen::Vector3d& omega, ConstVectorRef q, VectorRef v) const {
  const detail::BodyData& b = bodyAt(*data_, body);
  checkStateSizes(*this, q, v);
  const int o = b.offset;
  const Eigen::Vector3d p = pointPosition(body, point, q);
  if (b.kind == BodyKind::Planar) {
    const Eigen::Vector3d w(0.0, 0.0, omega[2]);
    const Eigen::Vector3d c(q[o], q[o + 1], 0.0);
    const Eigen::Vector3d vc = velocity + w.cross(c - p);
    v[o] = vc[0];
    v[o + 1] = vc[1];
    v[o + 2] = omega[2];
    return;
  }
  const bool free = b.kind == BodyKind::Spatial;
  const int d0 = free ? o + 3 : o;
  if (free) v.segment<3>(o) = velocity + omega.cross(Eigen::Vector3d(q.segment<3>(o)) - p);
  for (int k = 0; k < 3; ++k) v.segment<3>(d0 + 3 * k) = omega.cross(Eigen::Vector3d(q.segment<3>(d0 + 3 * k)));
}

Vector Mechanism::jointCoordinates(int joint, ConstVectorRef q) const {
  const detail::JointData& j = jointAt(*data_, joint);
  if (j.has_readback) return Vector::Constant(1, evaluateRow(*data_, j.readback, q, Vector(), 0.0).phi);
  if (j.kind == JointKind::Revolute || j.kind == JointKind::Cylindrical) {
    // Spatial: the angle of x_B about z_A, atan2(y_A·x_B, x_A·x_B).
    const Eigen::Matrix3d A = detail::coordinateRotation(*data_, j.body_a, q) * j.frame_a.rotation;
    const Eigen::Matrix3d B = detail::coordinateRotation(*data_, j.body_b, q) * j.frame_b.rotation;
    const double angle = std::atan2(A.col(1).dot(B.col(0)), A.col(0).dot(B.col(0)));
    if (j.kind == JointKind::Revolute) return Vector::Constant(1, angle);
    const Eigen::Vector3d a = evaluateAttachment(*data_, Attachment{j.body_a, j.frame_a.origin, false}, q, Vector()).value;
    const Eigen::Vector3d b = evaluateAttachment(*data_, Attachment{j.body_b, j.frame_b.origin, false}, q, Vector()).value;
    Vector out(2);
    out << A.col(2).dot(b - a), angle;
    return out;
  }
  return Vector();
}

Vector Mechanism::jointRates(int joint, ConstVectorRef q, ConstVectorRef v) const {
  const detail::JointData& j = jointAt(*data_, joint);
  if (j.has_readback) {
    const RowEvaluation e = evaluateRow(*data_, j.readback, q, Vector(), 0.0);
    return Vector::Constant(1, gradientTimes(*data_, j.readback, e, v) + 0.0);
  }
  if (j.kind == JointKind::Revolute || j.kind == JointKind::Cylindrical) {
    const Eigen::Matrix3d A = detail::coordinateRotation(*data_, j.body_a, q) * j.frame_a.rotation;
    const double rate = (detail::bodyAngularVelocity(*data_, j.body_b, q, v) -
                         detail::bodyAngularVelocity(*data_, j.body_a, q, v))
                            .dot(A.col(2));
    if (j.kind == JointKind::Revolute) return Vector::Constant(1, rate);
    // d/dt z_A·(b − a) with z_A turning at ω_A.
    const AttachmentState a = evaluateAttachment(*data_, Attachment{j.body_a, j.frame_a.origin, false}, q, v);
    const AttachmentState b = evaluateAttachment(*data_, Attachment{j.body_b, j.frame_b.origin, false}, q, v);
    const AttachmentState z = evaluateAttachment(*data_, Attachment{j.body_a, j.frame_a.rotation.col(2), true}, q, v);
    Vector out(2);
    out << z.rate.dot(b.value - a.value) + z.value.dot(b.rate - a.rate), rate;
    return out;
  }
  return Vector();
}

JointReaction Mechanism::reaction(int joint, ConstVectorRef q, ConstVectorRef lambda) const {
  const detail::MechanismData& data = *data_;
  const detail::JointData& j = jointAt(data, joint);
  if (lambda.size() != nc()) {
    throwInvalid("lambda", "has " + std::to_string(lambda.size()) + " entries, expected nc = " + std::to_string(nc()));
  }
  Eigen::Vector3d force = Eigen::Vector3d::Zero(), moment = Eigen::Vector3d::Zero();
  for (int k = 0; k < j.row_count; ++k) {
    const int row = j.first_row + k;
    const detail::RowData& r = data.rows[static_cast<std::size_t>(row - data.orthonormality_rows)];
    const double l = lambda[row];
    switch (r.kind) {
      case detail::RowKind::Component:
        force += l * r.axis;
        break;
      case detail::RowKind::Dot: {
        // δ(u·w) = δθ_B·(w × u) when B turns: the moment λ w × u on B.
        const Eigen::Vector3d u = evaluateAttachment(data, r.u, q, Vector()).value;
        const Eigen::Vector3d w = evaluateAttachment(data, r.w, q, Vector()).value;
        moment += l * w.cross(u);
        break;
      }
      case detail::RowKind::Offset:
        force += l * evaluateAttachment(data, r.u, q, Vector()).value;
        break;
      case detail::RowKind::Distance:
        force += l * (evaluateAttachment(data, r.p_prime, q, Vector()).value -
                      evaluateAttachment(data, r.p, q, Vector()).value);
        break;
      case detail::RowKind::Angle:
        moment += l * Eigen::Vector3d::UnitZ();
        break;
    }
  }
  // Every row's force acts at B's joint origin: the moment about it is the rows' moments alone.
  const Eigen::Matrix3d frame = detail::coordinateRotation(data, j.body_b, q) * j.frame_b.rotation;
  return JointReaction{frame.transpose() * force, frame.transpose() * moment};
}

}  // namespace kktdae::multibody
