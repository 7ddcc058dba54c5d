#include "kktdae/multibody/body.hpp"

#include <Eigen/Eigenvalues>

#include "kktdae/core/checks.hpp"

namespace kktdae::multibody {

int coordinateCount(BodyKind kind) {
  switch (kind) {
    case BodyKind::Ground: return 0;
    case BodyKind::Planar: return 3;
    case BodyKind::Spatial: return 12;
    case BodyKind::Pivoted: return 9;
  }
  return 0;
}

void PlanarBodyParams::validate() const {
  requirePositive("mass", mass);
  requirePositive("inertia", inertia);
}

void SpatialBodyParams::validate() const {
  requirePositive("mass", mass);
  requireFinite("centre_of_mass", centre_of_mass);
  const Eigen::Map<const Eigen::VectorXd> entries(inertia.data(), 9);
  requireFinite("inertia", entries);
  const double asymmetry = (inertia - inertia.transpose()).cwiseAbs().maxCoeff();
  if (asymmetry > 1e-12 * inertia.cwiseAbs().maxCoeff()) {
    throwInvalid("inertia", "must be symmetric (|J − Jᵀ| = " + formatDouble(asymmetry) + ")");
  }
  const Eigen::Vector3d moments = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(inertia).eigenvalues();
  const double tolerance = 1e-12 * moments.cwiseAbs().maxCoeff();
  if (!(moments[0] > 0.0)) {
    throwInvalid("inertia", "principal moments must be > 0, got " + formatDouble(moments[0]));
  }
  // A rigid body's principal moments satisfy Jᵢ + Jⱼ ≥ Jₖ (equal for a flat body).
  if (!(moments[0] + moments[1] >= moments[2] - tolerance)) {
    throwInvalid("inertia", "principal moments must satisfy J_i + J_j >= J_k (a rigid body's), got " +
                                formatDouble(moments[0]) + " + " + formatDouble(moments[1]) + " < " +
                                formatDouble(moments[2]));
  }
}

}  // namespace kktdae::multibody
