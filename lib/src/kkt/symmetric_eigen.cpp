#include "symmetric_eigen.hpp"

#include <cmath>
#include <limits>

namespace kktdae::detail {

void symmetricEigenJacobi(Matrix& a, Matrix& V, Vector& w) {
  const Eigen::Index n = a.rows();
  V.setIdentity();
  const double scale = a.cwiseAbs().maxCoeff();
  const double negligible = std::numeric_limits<double>::epsilon() * scale;
  for (int sweep = 0; sweep < 64 && scale > 0.0; ++sweep) {
    double off_diagonal = 0.0;
    for (Eigen::Index q = 1; q < n; ++q) off_diagonal = std::max(off_diagonal, a.col(q).head(q).cwiseAbs().maxCoeff());
    if (off_diagonal <= negligible) break;
    for (Eigen::Index p = 0; p + 1 < n; ++p) {
      for (Eigen::Index q = p + 1; q < n; ++q) {
        const double apq = a(p, q);
        if (std::abs(apq) <= negligible) continue;
        // The rotation (c, s) that zeroes a(p, q): t = tan of the angle, the smaller root.
        const double theta = (a(q, q) - a(p, p)) / (2.0 * apq);
        const double t = (theta >= 0.0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0);
        const double s = t * c;
        for (Eigen::Index k = 0; k < n; ++k) {  // A ← A G
          const double akp = a(k, p), akq = a(k, q);
          a(k, p) = c * akp - s * akq;
          a(k, q) = s * akp + c * akq;
        }
        for (Eigen::Index k = 0; k < n; ++k) {  // A ← Gᵀ A
          const double apk = a(p, k), aqk = a(q, k);
          a(p, k) = c * apk - s * aqk;
          a(q, k) = s * apk + c * aqk;
        }
        a(p, q) = a(q, p) = 0.0;
        for (Eigen::Index k = 0; k < n; ++k) {  // V ← V G
          const double vkp = V(k, p), vkq = V(k, q);
          V(k, p) = c * vkp - s * vkq;
          V(k, q) = s * vkp + c * vkq;
        }
      }
    }
  }
  w = a.diagonal();
}

}  // namespace kktdae::detail
