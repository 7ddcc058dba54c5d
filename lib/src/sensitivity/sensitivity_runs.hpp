#pragma once
// What the sensitivity drivers share (internal header): one run's output, the multiplier a run
// reports at its outputs (with its sensitivity), N_Vector arrays, and the two SUNDIALS runs,
// IDAS on the DAE (idas_sensitivity.cpp) and CVODES on the stabilized ODE
// (cvodes_sensitivity.cpp).
#include <nvector/nvector_serial.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../sundials/sundials_support.hpp"
#include "kkt_tangent.hpp"
#include "kktdae/sensitivity/sensitivity.hpp"

namespace kktdae::detail::forward_sensitivity {

/// What one run gives: y (2nq + nc rows) and, when asked, s at each recorded output; G, dG/dp.
struct RunOutput {
  std::vector<double> times;
  std::vector<Vector> states;
  std::vector<Matrix> sensitivities;
  double cost = 0.0;
  Vector cost_gradient;
};

/// N_Vector arrays for the sensitivities, zeroed, freed with the run.
struct VectorArray {
  N_Vector* vectors = nullptr;
  int count = 0;
  VectorArray(int n, N_Vector like) : vectors(N_VCloneVectorArray(n, like)), count(n) {
    if (vectors == nullptr) throw sundials::SetupError("N_VCloneVectorArray(" + std::to_string(n) + ") failed");
    for (int i = 0; i < n; ++i) N_VConst(0.0, vectors[i]);
  }
  ~VectorArray() {
    if (vectors != nullptr) N_VDestroyVectorArray(vectors, count);
  }
  VectorArray(const VectorArray&) = delete;
  VectorArray& operator=(const VectorArray&) = delete;
};

/// The λ a sensitivity run reports in its λ rows, and hands to the integrand g: as simulate()
/// does (SimulationOptions::observed_multiplier), the physical multiplier at the state (a KKT
/// solve without feedback) unless the method's own is asked for. The method's own is the DAE's
/// algebraic variable on IDAS (nothing to solve) and the stabilized solve's λ on CVODES (whose
/// state has no λ). Its sensitivity is the KKT system's tangent (kkt_tangent.hpp) along the
/// state's (s_q, s_v) and the column's parameter.
class ReportedMultiplier {
 public:
  /// Solves of its own when the run's λ is not the one to report (see replaces()).
  ReportedMultiplier(const ParametricSystem& system, const SimulationOptions& options);
  /// True when the λ rows come from this object's KKT solve, not from the integrator's state.
  bool replaces() const { return kkt_.has_value(); }
  /// The solve at (t, q, v); a repeat of the last point is not solved again. Requires replaces().
  bool evaluate(double t, ConstVectorRef q, ConstVectorRef v, std::string& failure);
  /// λ at the last evaluate().
  const Vector& lambda() const { return kkt_->lambda(); }
  /// dλ along (s_q, s_v) and parameter `parameter` (−1: none) at the last evaluate().
  void tangent(ConstVectorRef s_q, ConstVectorRef s_v, int parameter, VectorRef dlambda) {
    kkt_->tangent(s_q, s_v, parameter, da_, dlambda);
  }
  /// Appends t, y (its λ rows replaced when replaces()) and, when `s` is given, s (its λ rows
  /// replaced too: column i < np along parameter i, the others along the state alone) to `out`.
  /// False, with `failure` set, when the solve failed.
  bool record(double t, Vector y, const Matrix* s, int np, RunOutput& out, std::string& failure);

 private:
  std::optional<KktTangent> kkt_;
  int nq_ = 0, nc_ = 0;
  bool cached_ = false;
  double t_ = 0.0;
  Vector q_, v_, da_;
};

/// The integrand g of G = ∫ g dt at a run's state, with the λ the run reports (ReportedMultiplier),
/// and the derivative of g along a sensitivity column: g_q s_q + g_v s_v + g_λ s_λ + g_pᵢ.
class CostIntegrand {
 public:
  /// Buffers for `system`'s sizes; `g` and `reported` must outlive this object.
  CostIntegrand(const Integrand& g, ReportedMultiplier& reported, const ParametricSystem& system);
  /// g at (t, q, v) and λ (`own_lambda`, the integrator's, when the reported λ is not a solve of
  /// its own). False, with `failure` set, when that solve fails.
  bool value(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef own_lambda, double& g,
             std::string& failure);
  /// Evaluates g's gradient at (t, q, v) and λ (as value() takes it) for column() to use.
  bool gradient(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef own_lambda, std::string& failure);
  /// dg along column `column` (a parameter for column < np): s_q, s_v from the integrator, s_λ
  /// its own (`own_s_lambda`) or the reported λ's tangent. After gradient() at this point.
  double column(ConstVectorRef s_q, ConstVectorRef s_v, ConstVectorRef own_s_lambda, int column);

 private:
  const Integrand& g_;
  ReportedMultiplier& reported_;
  int np_;
  Vector p_, g_q_, g_v_, g_lambda_, g_p_, s_lambda_;
};

/// One IDAS run of `system` from the consistent `start` (q̈ = qdd, λ), with a sensitivity system
/// per column of `initial_sensitivities` when `with_sensitivities`: (s_q; s_v) at the start,
/// 2nq × (np + initial directions), the np parameters' columns first. Counters go into `summary`;
/// returns false (status and message set) when the run failed.
bool runIdas(const ParametricSystem& system, const State& start, ConstVectorRef qdd, ConstVectorRef lambda,
             const SimulationOptions& options, const SensitivityOptions& sensitivity, bool with_sensitivities,
             const Matrix& initial_sensitivities, RunOutput& output, SensitivitySummary& summary);

/// One CVODES run (cvode_bdf or cvode_adams) of `system` from `start` on the stabilized ODE, the
/// same contract as runIdas().
bool runCvodes(const ParametricSystem& system, const State& start, const SimulationOptions& options,
               const SensitivityOptions& sensitivity, bool with_sensitivities, const Matrix& initial_sensitivities,
               RunOutput& output, SensitivitySummary& summary);

}  // namespace kktdae::detail::forward_sensitivity
