#pragma once
// PendulumChain's constraints written once over a template scalar, with J and γ derived by
// automatic differentiation: a copy of tests/unit/autodiff/ad_test_models.hpp's AdPendulumChain
// with a capacity large enough for the benchmarks' longest chain (3 · 200 coordinates).

#include <string>
#include <utility>

#include "kktdae/autodiff/autodiff_constraints.hpp"
#include "kktdae/models/pendulum_chain.hpp"

namespace kktdae::bench {

/// Largest chain the AD twin holds: nq = 3 · kAdChainMaxLinks must fit the dual buffers.
inline constexpr int kAdChainMaxLinks = 200;

/// φ_k = ½(|p_k − p_{k−1}|² − L_k²) (p_{−1} the pivot), written once; M, h and the energies are
/// the hand-written PendulumChain's.
class AdPendulumChain final : public AutoDiffConstraints<AdPendulumChain, 3 * kAdChainMaxLinks> {
 public:
  explicit AdPendulumChain(PendulumChainParams params)
      : AutoDiffConstraints(3 * static_cast<int>(params.masses.size()), static_cast<int>(params.masses.size())),
        chain_(std::move(params)) {}

  template <typename Scalar>
  void phi(ConstVectorRefOf<Scalar> q, const Scalar&, VectorRefOf<Scalar> out) const {
    const PendulumChainParams& p = chain_.params();
    for (int k = 0; k < chain_.links(); ++k) {
      Eigen::Matrix<Scalar, 3, 1> d = q.template segment<3>(3 * k);
      if (k == 0) {
        d -= p.pivot;
      } else {
        d -= q.template segment<3>(3 * k - 3);
      }
      out[k] = 0.5 * (d.dot(d) - p.lengths[k] * p.lengths[k]);
    }
  }

  std::string name() const override { return "ad_" + chain_.name(); }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  void massDiagonal(ConstVectorRef q, VectorRef d) const override { chain_.massDiagonal(q, d); }
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override { chain_.bias(q, v, t, h); }
  double kineticEnergy(ConstVectorRef q, ConstVectorRef v) const override { return chain_.kineticEnergy(q, v); }
  double potentialEnergy(ConstVectorRef q, double t) const override { return chain_.potentialEnergy(q, t); }

 private:
  PendulumChain chain_;
};

}  // namespace kktdae::bench
