#include "kktdae/models/heavy_top.hpp"

#include <Eigen/Geometry>
#include <cmath>
#include <string>

#include "kktdae/core/checks.hpp"

namespace kktdae {

const Eigen::Vector3d HeavyTop::kReferenceDisplacement{-0.150416823, -1.724165592, -0.673022270};
const Eigen::Vector3d HeavyTop::kInitialAngularVelocity{0.0, 150.0, -4.61538};

void HeavyTopParams::validate() const {
  requirePositive("mass", mass);
  for (int k = 0; k < 3; ++k) {
    requirePositive(("inertia_centre[" + std::to_string(k) + "]").c_str(), inertia_centre[k]);
  }
  requireFinite("centre_of_mass", centre_of_mass);
  requireFinite("gravity", gravity);
  const int off_axis = (centre_of_mass.array() != 0.0).count();
  if (off_axis > 1) {
    throwInvalid("centre_of_mass", "must lie on a principal axis (at most one non-zero component), got (" +
                                       formatDouble(centre_of_mass[0]) + ", " + formatDouble(centre_of_mass[1]) +
                                       ", " + formatDouble(centre_of_mass[2]) + ")");
  }
  // A rigid body's principal moments satisfy J_i + J_j ≥ J_k (equal for a flat body, as the
  // benchmark's disc: 0.234375 + 0.234375 = 0.46875).
  const Eigen::Vector3d& J = inertia_centre;
  for (int k = 0; k < 3; ++k) {
    const int i = (k + 1) % 3;
    const int j = (k + 2) % 3;
    if (!(J[i] + J[j] >= J[k] * (1.0 - 1e-12))) {
      throwInvalid("inertia_centre", "principal moments must satisfy J_i + J_j >= J_k (a rigid body's), got " +
                                         formatDouble(J[i]) + " + " + formatDouble(J[j]) + " < " +
                                         formatDouble(J[k]));
    }
  }
}

HeavyTop::HeavyTop(HeavyTopParams params) : params_(std::move(params)) {
  params_.validate();
  const Eigen::Vector3d& X = params_.centre_of_mass;
  const Eigen::Matrix3d J_O = Eigen::Matrix3d(params_.inertia_centre.asDiagonal()) +
                              params_.mass * (X.squaredNorm() * Eigen::Matrix3d::Identity() - X * X.transpose());
  director_inertia_ = (0.5 * J_O.trace() * Eigen::Matrix3d::Identity() - J_O).diagonal();
  // J̄ₖ = ½(J_O,ii + J_O,jj − J_O,kk) is the mass of director k: a flat body with its centre of
  // mass in its own plane has one J̄ₖ = 0 (its mass all in a plane) and a singular M.
  for (int k = 0; k < 3; ++k) {
    if (!(director_inertia_[k] > 0.0)) {
      throwInvalid("inertia_centre", "the director inertia J_bar[" + std::to_string(k) + "] = " +
                                         formatDouble(director_inertia_[k]) +
                                         " about the fixed point is not > 0 (all the mass in one plane through it): M "
                                         "would be singular");
    }
  }
}

void HeavyTop::massDiagonal(ConstVectorRef, VectorRef d) const {
  for (int k = 0; k < 3; ++k) d.segment<3>(3 * k).setConstant(director_inertia_[k]);
}

void HeavyTop::bias(ConstVectorRef, ConstVectorRef, double, VectorRef h) const {
  // h = ∂V/∂q with V = −m Σₖ Xₖ g·dₖ.
  for (int k = 0; k < 3; ++k) h.segment<3>(3 * k) = -params_.mass * params_.centre_of_mass[k] * params_.gravity;
}

void HeavyTop::constraint(ConstVectorRef q, double, VectorRef phi) const {
  const auto d1 = q.segment<3>(0);
  const auto d2 = q.segment<3>(3);
  const auto d3 = q.segment<3>(6);
  phi << 0.5 * (d1.dot(d1) - 1.0), 0.5 * (d2.dot(d2) - 1.0), 0.5 * (d3.dot(d3) - 1.0), d1.dot(d2), d1.dot(d3),
      d2.dot(d3);
}

void HeavyTop::constraintJacobian(ConstVectorRef q, double, MatrixRef J) const {
  J.setZero();
  for (int k = 0; k < 3; ++k) J.block<1, 3>(k, 3 * k) = q.segment<3>(3 * k).transpose();
  // Rows 3, 4, 5 are dᵢ·dⱼ for (i, j) = (1, 2), (1, 3), (2, 3): dⱼᵀ on dᵢ and dᵢᵀ on dⱼ.
  const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  for (int r = 0; r < 3; ++r) {
    const int i = pairs[r][0];
    const int j = pairs[r][1];
    J.block<1, 3>(3 + r, 3 * i) = q.segment<3>(3 * j).transpose();
    J.block<1, 3>(3 + r, 3 * j) = q.segment<3>(3 * i).transpose();
  }
}

void HeavyTop::constraintBias(ConstVectorRef, ConstVectorRef v, double, VectorRef gamma) const {
  const auto w1 = v.segment<3>(0);
  const auto w2 = v.segment<3>(3);
  const auto w3 = v.segment<3>(6);
  gamma << w1.dot(w1), w2.dot(w2), w3.dot(w3), 2.0 * w1.dot(w2), 2.0 * w1.dot(w3), 2.0 * w2.dot(w3);
}

double HeavyTop::kineticEnergy(ConstVectorRef, ConstVectorRef v) const {
  double twice = 0.0;
  for (int k = 0; k < 3; ++k) twice += director_inertia_[k] * v.segment<3>(3 * k).squaredNorm();
  return 0.5 * twice;
}

double HeavyTop::potentialEnergy(ConstVectorRef q, double) const {
  double V = 0.0;
  for (int k = 0; k < 3; ++k) V -= params_.mass * params_.centre_of_mass[k] * params_.gravity.dot(q.segment<3>(3 * k));
  return V;
}

double HeavyTop::energyScale() const {
  return params_.mass * params_.gravity.norm() * params_.centre_of_mass.norm();
}

State HeavyTop::initialState(const Eigen::Matrix3d& rotation, const Eigen::Vector3d& omega_body) const {
  const double off = (rotation.transpose() * rotation - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff();
  if (!(off <= 1e-12) || !(rotation.determinant() > 0.0)) {
    throwInvalid("rotation", "must be orthonormal with determinant +1 (|RᵀR − I| = " + formatDouble(off) +
                                 ", det = " + formatDouble(rotation.determinant()) + ")");
  }
  requireFinite("omega_body", omega_body);
  State state;
  state.q.resize(9);
  state.v.resize(9);
  for (int k = 0; k < 3; ++k) {
    state.q.segment<3>(3 * k) = rotation.col(k);
    state.v.segment<3>(3 * k) = rotation * omega_body.cross(Eigen::Vector3d::Unit(k));
  }
  return state;
}

Eigen::Matrix3d HeavyTop::rotation(ConstVectorRef q) {
  Eigen::Matrix3d R;
  for (int k = 0; k < 3; ++k) R.col(k) = q.segment<3>(3 * k);
  return R;
}

Eigen::Vector3d HeavyTop::displacement(ConstVectorRef q) const {
  return rotation(q) * params_.centre_of_mass - params_.centre_of_mass;
}

}  // namespace kktdae
