#include "kktdae/models/point_on_plane.hpp"

#include "kktdae/core/checks.hpp"

namespace kktdae {

void PointOnPlaneParams::validate() const {
  if (dimension != 2 && dimension != 3) throwInvalid("dimension", "must be 2 or 3, got " + std::to_string(dimension));
  requirePositive("mass", mass);
  requireNonNegative("gravity", gravity);
  requireFinite("normal", normal);
  if (!(normal.head(dimension).norm() > 0.0)) throwInvalid("normal", "must be non-zero in the model's dimensions");
  requireFinite("offset", Eigen::Matrix<double, 1, 1>::Constant(offset));
}

PointOnPlane::PointOnPlane(PointOnPlaneParams params) : params_(params) {
  params_.validate();
  normal_ = params_.normal.head(params_.dimension).normalized();
}

void PointOnPlane::massDiagonal(ConstVectorRef, VectorRef d) const { d.setConstant(params_.mass); }

void PointOnPlane::bias(ConstVectorRef, ConstVectorRef, double, VectorRef h) const {
  h.setZero();
  h[1] = params_.mass * params_.gravity;
}

void PointOnPlane::constraint(ConstVectorRef q, double, VectorRef phi) const { phi[0] = normal_.dot(q) - params_.offset; }

void PointOnPlane::constraintJacobian(ConstVectorRef, double, MatrixRef J) const { J.row(0) = normal_.transpose(); }

void PointOnPlane::constraintBias(ConstVectorRef, ConstVectorRef, double, VectorRef gamma) const { gamma.setZero(); }

double PointOnPlane::kineticEnergy(ConstVectorRef, ConstVectorRef v) const { return 0.5 * params_.mass * v.squaredNorm(); }

double PointOnPlane::potentialEnergy(ConstVectorRef q, double) const { return params_.mass * params_.gravity * q[1]; }

State PointOnPlane::offManifoldState(double e0, double edot0, double sliding) const {
  // A unit tangent: n rotated by 90° in the x–y plane (it lies in the line/plane for both dims).
  Vector tangent = Vector::Zero(nq());
  tangent[0] = -normal_[1];
  tangent[1] = normal_[0];
  if (tangent.norm() == 0.0) tangent[0] = 1.0;  // n along z in 3D
  tangent.normalize();
  State state;
  state.q = normal_ * (params_.offset + e0);
  state.v = normal_ * edot0 + tangent * sliding;
  return state;
}

}  // namespace kktdae
