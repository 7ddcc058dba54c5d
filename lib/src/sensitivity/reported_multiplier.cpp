#include "sensitivity_runs.hpp"

namespace kktdae::detail::forward_sensitivity {

ReportedMultiplier::ReportedMultiplier(const ParametricSystem& system, const SimulationOptions& options)
    : nq_(system.nq()), nc_(system.nc()), q_(nq_), v_(nq_), da_(nq_) {
  const bool cvode = options.integrator == Integrator::CvodeBdf || options.integrator == Integrator::CvodeAdams;
  const bool physical = options.observed_multiplier == ObservedMultiplier::Physical;
  if (!cvode && !physical) return;  // IDAS's own λ
  const Stabilization& law = options.stabilization;
  const bool feedback = !physical && law.kind == Stabilization::Kind::Baumgarte;
  kkt_.emplace(system, feedback ? law.alpha : 0.0, feedback ? law.beta : 0.0);
}

bool ReportedMultiplier::evaluate(double t, ConstVectorRef q, ConstVectorRef v, std::string& failure) {
  if (cached_ && t == t_ && q == q_ && v == v_) return true;
  cached_ = false;
  if (!kkt_->evaluate(t, q, v, failure)) return false;
  t_ = t;
  q_ = q;
  v_ = v;
  cached_ = true;
  return true;
}

bool ReportedMultiplier::record(double t, Vector y, const Matrix* s, int np, RunOutput& out, std::string& failure) {
  Matrix s_out;
  if (s != nullptr) s_out = *s;
  if (replaces()) {
    if (!evaluate(t, y.head(nq_), y.segment(nq_, nq_), failure)) return false;
    y.segment(2 * nq_, nc_) = lambda();
    for (Eigen::Index i = 0; i < s_out.cols(); ++i) {
      auto column = s_out.col(i);
      tangent(column.head(nq_), column.segment(nq_, nq_), i < np ? static_cast<int>(i) : -1,
              column.segment(2 * nq_, nc_));
    }
  }
  out.times.push_back(t);
  out.states.push_back(std::move(y));
  if (s != nullptr) out.sensitivities.push_back(std::move(s_out));
  return true;
}

CostIntegrand::CostIntegrand(const Integrand& g, ReportedMultiplier& reported, const ParametricSystem& system)
    : g_(g), reported_(reported), np_(system.np()), p_(system.parameterValues()), g_q_(system.nq()),
      g_v_(system.nq()), g_lambda_(system.nc()), g_p_(system.np()), s_lambda_(system.nc()) {}

bool CostIntegrand::value(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef own_lambda, double& g,
                          std::string& failure) {
  if (!reported_.replaces()) {
    g = g_.value(t, q, v, own_lambda, p_);
    return true;
  }
  if (!reported_.evaluate(t, q, v, failure)) return false;
  g = g_.value(t, q, v, reported_.lambda(), p_);
  return true;
}

bool CostIntegrand::gradient(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef own_lambda,
                             std::string& failure) {
  if (!reported_.replaces()) {
    g_.gradient(t, q, v, own_lambda, p_, g_q_, g_v_, g_lambda_, g_p_);
    return true;
  }
  if (!reported_.evaluate(t, q, v, failure)) return false;
  g_.gradient(t, q, v, reported_.lambda(), p_, g_q_, g_v_, g_lambda_, g_p_);
  return true;
}

double CostIntegrand::column(ConstVectorRef s_q, ConstVectorRef s_v, ConstVectorRef own_s_lambda, int column) {
  double dg = g_q_.dot(s_q) + g_v_.dot(s_v) + (column < np_ ? g_p_[column] : 0.0);
  if (g_lambda_.isZero(0.0)) return dg;  // most integrands: no solve for s_λ
  if (reported_.replaces()) {
    reported_.tangent(s_q, s_v, column < np_ ? column : -1, s_lambda_);
    return dg + g_lambda_.dot(s_lambda_);
  }
  return dg + g_lambda_.dot(own_s_lambda);
}

}  // namespace kktdae::detail::forward_sensitivity
