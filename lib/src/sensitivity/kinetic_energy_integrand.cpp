// kineticEnergyIntegrand(const ParametricSystem&) (declared in sensitivity.hpp): the kinetic
// energy with M at the integrand's p, beside the constant-M version of sensitivity.cpp.
#include <memory>
#include <mutex>

#include "kktdae/sensitivity/sensitivity.hpp"

namespace kktdae {

namespace {

/// The model at the last p the integrand saw: one copy per distinct p in a row (a central-
/// difference computation changes p once per run), shared by value and gradient.
class ModelAtParameters {
 public:
  explicit ModelAtParameters(const ParametricSystem& system)
      : model_(system.withParameterValues(system.parameterValues())), p_(system.parameterValues()) {}

  std::shared_ptr<const ParametricSystem> at(ConstVectorRef p) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (p.size() != p_.size() || p != p_) {
      model_ = model_->withParameterValues(p);
      p_ = p;
    }
    return model_;
  }

 private:
  std::mutex mutex_;
  std::shared_ptr<const ParametricSystem> model_;
  Vector p_;
};

/// M(q, p) q̇ into out (nq).
void massTimes(const ParametricSystem& model, ConstVectorRef q, ConstVectorRef v, VectorRef out) {
  const int nq = model.nq();
  if (model.massStructure() == MassStructure::ConstantDiagonal) {
    Vector d(nq);
    model.massDiagonal(q, d);
    out = d.cwiseProduct(v);
  } else {
    Matrix M(nq, nq);
    model.massMatrix(q, M);
    out.noalias() = M * v;
  }
}

}  // namespace

Integrand kineticEnergyIntegrand(const ParametricSystem& system) {
  auto cache = std::make_shared<ModelAtParameters>(system);
  Integrand g;
  g.value = [cache](double, ConstVectorRef q, ConstVectorRef v, ConstVectorRef, ConstVectorRef p) {
    const std::shared_ptr<const ParametricSystem> model = cache->at(p);
    Vector Mv(model->nq());
    massTimes(*model, q, v, Mv);
    return 0.5 * v.dot(Mv);
  };
  g.gradient = [cache](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef, ConstVectorRef p, VectorRef g_q,
                       VectorRef g_v, VectorRef g_lambda, VectorRef g_p) {
    const std::shared_ptr<const ParametricSystem> model = cache->at(p);
    const int nq = model->nq(), nc = model->nc(), np = model->np();
    massTimes(*model, q, v, g_v);
    g_lambda.setZero();
    // ∂M/∂p q̇ = D(q, q̇, q̇) − D(q, q̇, 0): h's part cancels.
    Matrix D_v(nq, np), D_0(nq, np);
    model->dynamicsParameterJacobian(q, v, v, t, D_v);
    model->dynamicsParameterJacobian(q, v, Vector::Zero(nq), t, D_0);
    g_p.noalias() = 0.5 * (D_v - D_0).transpose() * v;
    g_q.setZero();
    if (model->massStructure() == MassStructure::ConstantDiagonal) return;
    Matrix dM(nq, nq), dJ(nc, nq);
    Vector dh(nq), dgamma(nc), dphi_t(nc), e = Vector::Zero(nq);
    ModelTermsTangent tangent{dM, dh, dJ, dgamma, dphi_t};
    for (int k = 0; k < nq; ++k) {
      e[k] = 1.0;
      model->termsTangent(q, v, t, e, Vector::Zero(nq), tangent);
      g_q[k] = 0.5 * v.dot(dM * v);
      e[k] = 0.0;
    }
  };
  return g;
}

}  // namespace kktdae
