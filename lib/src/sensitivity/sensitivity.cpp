// computeSensitivities(): what is supported, the consistent start, the initial-state directions,
// and the dispatch to the forward runs (IDAS: idas_sensitivity.cpp, CVODES: cvodes_sensitivity.cpp)
// or to central differences of plain runs.
#include "kktdae/sensitivity/sensitivity.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "../simulate/run_recorder.hpp"
#include "kktdae/core/checks.hpp"
#include "kktdae/sensitivity/parameter_selection.hpp"
#include "sensitivity_runs.hpp"

namespace kktdae {

std::string_view toString(SensitivityMethod method) {
  switch (method) {
    case SensitivityMethod::Forward: return "forward";
    case SensitivityMethod::CentralDifferences: return "fd";
  }
  return "unknown";
}

SensitivityMethod parseSensitivityMethod(const std::string& text) {
  if (text == "forward") return SensitivityMethod::Forward;
  if (text == "fd") return SensitivityMethod::CentralDifferences;
  throw std::invalid_argument("unknown sensitivity method '" + text + "' (choose forward or fd)");
}

void SensitivityOptions::validate() const {
  if (!(std::isfinite(difference_step) && difference_step >= 0.0 && difference_step <= 0.1)) {
    throw std::invalid_argument("SensitivityOptions::difference_step must be in [0, 0.1], got " +
                                formatDouble(difference_step));
  }
  if (!(std::isfinite(multiplier_atol) && multiplier_atol >= 0.0)) {
    throw std::invalid_argument("SensitivityOptions::multiplier_atol must be finite and >= 0, got " +
                                formatDouble(multiplier_atol));
  }
  if (!initial_state_parameter_jacobian.allFinite()) {
    throw std::invalid_argument("SensitivityOptions::initial_state_parameter_jacobian has a non-finite entry");
  }
}

std::string SensitivitySummary::briefReport() const {
  return std::string(toString(method)) + " " + std::string(toString(integrator)) + ": " +
         std::string(toString(status)) + ", " + std::to_string(runs) + (runs == 1 ? " run, " : " runs, ") +
         std::to_string(steps) + " steps, " + std::to_string(residual_evaluations) + " residuals, " +
         std::to_string(sensitivity_residual_evaluations) + " sensitivity residuals, " +
         std::to_string(jacobian_evaluations) + " Newton matrices, " + formatDouble(wall_seconds) + " s" +
         (message.empty() ? "" : ": " + message);
}

double SensitivityResult::costDerivative(const std::string& parameter) const {
  std::string known;
  for (std::size_t i = 0; i < column_names.size(); ++i) {
    if (column_names[i] == parameter) return cost_gradient[static_cast<Eigen::Index>(i)];
    known += (i == 0 ? "" : ", ") + column_names[i];
  }
  throw std::invalid_argument("no parameter '" + parameter + "' (the parameters: " + known + ")");
}

Integrand kineticEnergyIntegrand(const ConstrainedSystem& system) {
  if (system.massStructure() != MassStructure::ConstantDiagonal) {
    throw std::invalid_argument("kineticEnergyIntegrand needs a constant diagonal M; " + system.name() +
                                " declares another mass structure");
  }
  const int nq = system.nq();
  auto mass = std::make_shared<Vector>(nq);
  system.massDiagonal(Vector::Zero(nq), *mass);
  Integrand g;
  g.value = [mass](double, ConstVectorRef, ConstVectorRef v, ConstVectorRef, ConstVectorRef) {
    return 0.5 * v.dot(mass->cwiseProduct(v));
  };
  g.gradient = [mass](double, ConstVectorRef, ConstVectorRef v, ConstVectorRef, ConstVectorRef, VectorRef g_q,
                      VectorRef g_v, VectorRef g_lambda, VectorRef g_p) {
    g_q.setZero();
    g_v = mass->cwiseProduct(v);
    g_lambda.setZero();
    g_p.setZero();
  };
  return g;
}

namespace detail::forward_sensitivity {
namespace {

/// Throws std::invalid_argument for what the sensitivity drivers do not support (naming it).
void requireSupported(const ParametricSystem& system, const SimulationOptions& options,
                      const SensitivityOptions& sensitivity) {
  options.validate();
  sensitivity.validate();
  options.adaptive.validate(system.nq());
  checkDimensions(system);
  if (system.np() < 1) throw std::invalid_argument(system.name() + " declares no parameters (np() = 0)");
  if (options.integrator != Integrator::IdaIndex1 && options.integrator != Integrator::IdaGgl &&
      options.integrator != Integrator::CvodeBdf && options.integrator != Integrator::CvodeAdams) {
    throw std::invalid_argument("sensitivities are computed by ida_ggl, ida_index1, cvode_bdf or cvode_adams; "
                                "integrator " + std::string(toString(options.integrator)) + " is not supported");
  }
  const bool cvode = options.integrator == Integrator::CvodeBdf || options.integrator == Integrator::CvodeAdams;
  if (cvode && options.adaptive.linear_solver != NewtonLinearSolver::Auto &&
      options.adaptive.linear_solver != NewtonLinearSolver::Dense) {
    throw std::invalid_argument("cvode_bdf sensitivities use the dense Newton solver; adaptive.linear_solver " +
                                std::string(toString(options.adaptive.linear_solver)) + " is not supported");
  }
  for (const Event& event : options.events) {
    if (event.action == EventAction::Stop) {
      throw std::invalid_argument(
          "sensitivities refuse a run with the stop event '" + event.name +
          "': s jumps at an event time that depends on p, and those jump conditions are not implemented");
    }
  }
  if (!options.events.empty()) {
    throw std::invalid_argument("sensitivity runs do not locate events; run without the event '" +
                                options.events.front().name + "' (or simulate() it apart)");
  }
  if (options.controller) {
    throw std::invalid_argument("sensitivities with a controller u(t, q, v) are not supported (∂u/∂y is not known)");
  }
  if (system.nu() > 0) {
    throw std::invalid_argument(system.name() + " has inputs (nu = " + std::to_string(system.nu()) +
                                "): sensitivities through inputs are not supported");
  }
  if (options.stabilization.kind == Stabilization::Kind::Soft) {
    throw std::invalid_argument("sensitivities do not support soft constraints (" +
                                options.stabilization.describe() + ")");
  }
  if (options.stabilization.project_after_step) {
    throw std::invalid_argument(
        "sensitivities do not support projection after steps: IDA has no projection hook, and CVODES does not "
        "project the sensitivities (keep the constraint with Baumgarte gains instead)");
  }
  if (static_cast<bool>(sensitivity.integrand.value) != static_cast<bool>(sensitivity.integrand.gradient)) {
    throw std::invalid_argument("SensitivityOptions::integrand needs both value and gradient, or neither");
  }
}

/// Projects the start if asked and solves the KKT system there for q̈ and λ (the consistent start
/// IDAS needs). Returns false with the summary's status and message set when it fails.
bool consistentStart(const ParametricSystem& system, const SimulationOptions& options, State& start, Vector& qdd,
                     Vector& lambda, SensitivitySummary& summary, bool force_projection = false) {
  Summary notes;
  std::string failure;
  const bool ggl = options.integrator == Integrator::IdaGgl;
  if (!projectInitialState(system, start, options, notes, failure, ggl || force_projection)) {
    summary.status = RunStatus::InitFailure;
    summary.message = "the initial state: " + failure;
    return false;
  }
  AccelerationFunction f(system, ggl ? Stabilization::none() : options.stabilization, options.kkt);
  qdd.resize(system.nq());
  const KktResult kkt = f.evaluate(start.t, start.q, start.v, qdd);
  if (!kkt.ok()) {
    summary.status = RunStatus::KktFailure;
    summary.message = "KKT solve failed at the initial state, t = " + formatDouble(start.t) + " s: " + kkt.message;
    return false;
  }
  lambda = f.lambda();
  return true;
}

/// The first-order projection of a start direction onto the manifolds at the consistent `start`,
/// in the mass metric as projectToManifold() projects: a direction (d_q, d_v) whose own model
/// may shift φ by `phi_shift` and J q̇ + ∂φ/∂t by `rate_shift` (a parameter's ∂φ/∂pᵢ and
/// ∂J/∂pᵢ q̇ + ∂(∂φ/∂t)/∂pᵢ; zero for a direction of the state alone) becomes
///     s_q = d_q − M⁻¹Jᵀ(J M⁻¹Jᵀ)⁻¹ (J d_q + phi_shift),
///     s_v = d_v − M⁻¹Jᵀ(J M⁻¹Jᵀ)⁻¹ (J d_v + δJ q̇ + δ(∂φ/∂t) + rate_shift),
/// the tangent δ· along (s_q, 0): the perturbed start stays consistent to first order. M,
/// M⁻¹Jᵀ and the factorization of J M⁻¹ Jᵀ are made once for every direction.
class StartProjection {
 public:
  /// Throws std::invalid_argument (saying `what` cannot be computed) for non-finite terms or a
  /// singular M or J M⁻¹ Jᵀ at the start.
  StartProjection(const ParametricSystem& system, const State& start, const std::string& what)
      : system_(system), start_(start), nq_(system.nq()), J_(system.nc(), nq_), dM_(nq_, nq_),
        dJ_(system.nc(), nq_), dh_(nq_), dgamma_(system.nc()), dphi_t_(system.nc()) {
    if (system.nc() == 0) return;  // no manifold: project() returns the direction itself
    Matrix M(nq_, nq_);
    system.massMatrix(start.q, M);
    system.constraintJacobian(start.q, start.t, J_);
    if (!(M.allFinite() && J_.allFinite())) {
      throw std::invalid_argument(what + " cannot be computed: " + system.name() +
                                  "'s M or J is not finite at the start, t = " + formatDouble(start.t) + " s");
    }
    const Eigen::FullPivLU<Matrix> mass(M);
    M_inverse_Jt_ = mass.solve(J_.transpose());
    schur_.compute(J_ * M_inverse_Jt_);
    if (!mass.isInvertible() || !schur_.isInvertible()) {
      throw std::invalid_argument(what + " cannot be computed: " +
                                  std::string(mass.isInvertible() ? "J M^-1 J^T" : "M") + " is singular at the start");
    }
  }

  /// (s_q; s_v) of the class comment. Sizes: d_q, d_v nq; phi_shift, rate_shift nc.
  Vector project(const Vector& d_q, const Vector& d_v, const Vector& phi_shift, const Vector& rate_shift) {
    Vector s(2 * nq_);
    if (J_.rows() == 0) {
      s << d_q, d_v;
      return s;
    }
    s.head(nq_) = d_q - M_inverse_Jt_ * schur_.solve(J_ * d_q + phi_shift);
    ModelTermsTangent tangent{dM_, dh_, dJ_, dgamma_, dphi_t_};
    system_.termsTangent(start_.q, start_.v, start_.t, s.head(nq_), Vector::Zero(nq_), tangent);
    s.tail(nq_) = d_v - M_inverse_Jt_ * schur_.solve(J_ * d_v + dJ_ * start_.v + dphi_t_ + rate_shift);
    return s;
  }

 private:
  const ParametricSystem& system_;
  const State& start_;
  int nq_;
  Matrix J_, M_inverse_Jt_, dM_, dJ_;
  Vector dh_, dgamma_, dphi_t_;
  Eigen::FullPivLU<Matrix> schur_;
};

/// The initial-state directions checked and projected onto the tangent spaces at the
/// consistent `start` (InitialStateDirection says how): (δq₀; δq̇₀) per column.
Matrix projectInitialDirections(const ParametricSystem& system, const State& start,
                                const std::vector<InitialStateDirection>& directions,
                                const std::vector<std::string>& parameter_names) {
  const int nq = system.nq(), nc = system.nc();
  Matrix projected(2 * nq, static_cast<Eigen::Index>(directions.size()));
  if (directions.empty()) return projected;
  StartProjection projection(system, start, "the initial-state directions' projection");
  const Vector no_shift = Vector::Zero(nc);
  std::vector<std::string> names = parameter_names;
  for (std::size_t k = 0; k < directions.size(); ++k) {
    const InitialStateDirection& d = directions[k];
    const std::string field = "initial_state[" + std::to_string(k) + "]";
    if (d.name.empty()) throw std::invalid_argument(field + ".name is empty");
    for (const std::string& name : names) {
      if (name == d.name) throw std::invalid_argument(field + ".name '" + d.name + "' repeats another column's");
    }
    names.push_back(d.name);
    requireSize((field + ".dq").c_str(), d.dq.size(), nq);
    requireSize((field + ".dv").c_str(), d.dv.size(), nq);
    if (!d.dq.allFinite() || !d.dv.allFinite()) throw std::invalid_argument(field + " ('" + d.name + "') is not finite");
    projected.col(static_cast<Eigen::Index>(k)) = projection.project(d.dq, d.dv, no_shift, no_shift);
  }
  if (!projected.allFinite()) {
    throw std::invalid_argument(system.name() + "'s terms' tangent is not finite at the start, t = " +
                                formatDouble(start.t) + " s");
  }
  return projected;
}

/// (s_q; s_v) at the consistent `start` for each parameter, 2nq × np: the given dependence
/// `dependence` = ∂(q₀; q̇₀)/∂p (empty: none) projected as StartProjection says onto the
/// manifolds of the model at p + δ eᵢ (phi_shift ∂φ/∂pᵢ, rate_shift ∂J/∂pᵢ q̇ + ∂(∂φ/∂t)/∂pᵢ).
/// That is the derivative of the start central differences use: start + δ d projected onto the
/// shifted model's manifolds (the projection of a point O(δ) off them moves it by that
/// M-orthogonal correction, to O(δ²)). Zero without φ(p) and without a dependence. Also checks,
/// before any run, that a model with φ(p) offers its derivatives (the defaults throw).
Matrix parameterStartSensitivities(const ParametricSystem& system, const State& start, const Matrix& dependence) {
  const int nq = system.nq(), nc = system.nc(), np = system.np();
  Matrix columns = dependence.size() == 0 ? Matrix::Zero(2 * nq, np) : dependence;
  const bool constraint_parameters = system.constraintsDependOnParameters();
  if (nc == 0 || (!constraint_parameters && dependence.size() == 0)) return columns;
  StartProjection projection(system, start, "the start's parameter sensitivities");
  Matrix P = Matrix::Zero(nc, np), dJ_dp = Matrix::Zero(nc, nq);
  Vector dgamma_dp = Vector::Zero(nc), dphi_t_dp = Vector::Zero(nc);
  if (constraint_parameters) system.constraintParameterJacobian(start.q, start.t, P);
  if (!P.allFinite()) {
    throw std::invalid_argument(system.name() + "'s dphi/dp is not finite at the start, t = " + formatDouble(start.t) +
                                " s");
  }
  for (int i = 0; i < np; ++i) {
    if (constraint_parameters) {
      ConstraintParameterTangent parameter{dJ_dp, dgamma_dp, dphi_t_dp};
      system.constraintParameterTangent(start.q, start.v, start.t, i, parameter);
    }
    columns.col(i) = projection.project(columns.col(i).head(nq), columns.col(i).tail(nq), P.col(i),
                                        dJ_dp * start.v + dphi_t_dp);
  }
  if (!columns.allFinite()) {
    throw std::invalid_argument(system.name() + "'s terms' tangent is not finite at the start, t = " +
                                formatDouble(start.t) + " s");
  }
  return columns;
}

/// `g`, written for the whole p of selection.model(), called with the selection's p: the model's
/// p with the chosen entries replaced, and g_p read at the chosen entries (two np-vectors per
/// call). Empty functions stay empty.
Integrand integrandOnSelection(const Integrand& g, const ParameterSelection& selection) {
  Integrand out;
  const std::vector<int> indices = selection.modelIndices();
  const Vector model_p = selection.model().parameterValues();
  auto widen = [indices, model_p](ConstVectorRef p) {
    Vector all = model_p;
    for (std::size_t i = 0; i < indices.size(); ++i) all[indices[i]] = p[static_cast<Eigen::Index>(i)];
    return all;
  };
  if (g.value) {
    out.value = [value = g.value, widen](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda,
                                         ConstVectorRef p) { return value(t, q, v, lambda, widen(p)); };
  }
  if (g.gradient) {
    out.gradient = [gradient = g.gradient, widen, indices](double t, ConstVectorRef q, ConstVectorRef v,
                                                           ConstVectorRef lambda, ConstVectorRef p, VectorRef g_q,
                                                           VectorRef g_v, VectorRef g_lambda, VectorRef g_p) {
      const Vector all = widen(p);
      Vector g_all = Vector::Zero(all.size());
      gradient(t, q, v, lambda, all, g_q, g_v, g_lambda, g_all);
      for (std::size_t i = 0; i < indices.size(); ++i) g_p[static_cast<Eigen::Index>(i)] = g_all[indices[i]];
    };
  }
  return out;
}

/// The largest ‖φ‖∞ and ‖J q̇ + ∂φ/∂t‖∞ over the recorded states into the summary.
void measureDrift(const ParametricSystem& system, const SensitivityResult& result, SensitivitySummary& summary) {
  const int nq = system.nq(), nc = system.nc();
  Vector phi(nc), phi_t(nc);
  Matrix J(nc, nq);
  for (std::size_t k = 0; k < result.states.size(); ++k) {
    const auto q = result.states[k].head(nq);
    const auto v = result.states[k].segment(nq, nq);
    system.constraint(q, result.times[k], phi);
    system.constraintJacobian(q, result.times[k], J);
    system.constraintTimeDerivative(q, result.times[k], phi_t);
    if (nc == 0) continue;
    summary.max_constraint_residual = std::max(summary.max_constraint_residual, phi.cwiseAbs().maxCoeff());
    summary.max_velocity_constraint_residual =
        std::max(summary.max_velocity_constraint_residual, (J * v + phi_t).cwiseAbs().maxCoeff());
  }
}

}  // namespace
}  // namespace detail::forward_sensitivity

SensitivityResult computeSensitivities(const ParametricSystem& system, const State& initial,
                                       const SimulationOptions& options, const SensitivityOptions& sensitivity) {
  namespace fs = detail::forward_sensitivity;
  if (!sensitivity.parameters.empty()) {
    // The chosen parameters: the same computation on a selection of the model's, with the
    // integrand still seeing the model's whole p.
    const ParameterSelection selection(system, sensitivity.parameters);
    SensitivityOptions chosen = sensitivity;
    chosen.parameters.clear();
    chosen.integrand = fs::integrandOnSelection(sensitivity.integrand, selection);
    return computeSensitivities(selection, initial, options, chosen);
  }
  fs::requireSupported(system, options, sensitivity);
  checkStateSizes(system, initial.q, initial.v);
  const Matrix& start_dependence = sensitivity.initial_state_parameter_jacobian;
  if (start_dependence.size() != 0 && (start_dependence.rows() != 2 * system.nq() || start_dependence.cols() != system.np())) {
    throw std::invalid_argument("SensitivityOptions::initial_state_parameter_jacobian must be 2nq x np = " +
                                std::to_string(2 * system.nq()) + " x " + std::to_string(system.np()) + " for " +
                                system.name() + ", got " + std::to_string(start_dependence.rows()) + " x " +
                                std::to_string(start_dependence.cols()));
  }
  const auto wall_start = std::chrono::steady_clock::now();
  SensitivityResult result;
  SensitivitySummary& summary = result.summary;
  summary.method = sensitivity.method;
  summary.integrator = options.integrator;
  result.parameter_names = system.parameterNames();
  result.column_names = result.parameter_names;
  for (const InitialStateDirection& d : sensitivity.initial_state) result.column_names.push_back(d.name);
  result.parameters = system.parameterValues();
  result.nq = system.nq();
  result.nc = system.nc();
  result.observed_multiplier = options.observed_multiplier;
  const int np = system.np();
  auto finish = [&]() -> SensitivityResult {
    fs::measureDrift(system, result, summary);
    summary.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return result;
  };

  const bool cvode = options.integrator == Integrator::CvodeBdf || options.integrator == Integrator::CvodeAdams;
  // One forward or plain run, by IDAS on the DAE or by CVODES on the stabilized ODE (which needs
  // no consistent q̈ and λ at the start).
  auto run = [&](const ParametricSystem& model, const State& from, const Vector& qdd0, const Vector& lambda0,
                 bool with_sensitivities, const Matrix& directions, fs::RunOutput& output) {
    return cvode ? fs::runCvodes(model, from, options, sensitivity, with_sensitivities, directions, output, summary)
                 : fs::runIdas(model, from, qdd0, lambda0, options, sensitivity, with_sensitivities, directions,
                               output, summary);
  };
  // When φ depends on p, a start consistent at p is not at p ± δ; when the start depends on p it
  // moves: every run starts from its start projected onto its own model's manifolds, and s(0) is
  // the derivative of that (parameterStartSensitivities()).
  const bool start_depends_on_parameters =
      system.constraintsDependOnParameters() || start_dependence.size() != 0;
  State start = initial;
  Vector qdd, lambda;
  if (!fs::consistentStart(system, options, start, qdd, lambda, summary, start_depends_on_parameters)) {
    return finish();
  }
  result.initial_directions =
      fs::projectInitialDirections(system, start, sensitivity.initial_state, result.parameter_names);
  const int ns = static_cast<int>(result.column_names.size());

  if (sensitivity.method == SensitivityMethod::Forward) {
    Matrix initial_sensitivities(2 * result.nq, ns);
    initial_sensitivities.leftCols(np) = fs::parameterStartSensitivities(system, start, start_dependence);
    initial_sensitivities.rightCols(ns - np) = result.initial_directions;
    fs::RunOutput output;
    if (!run(system, start, qdd, lambda, true, initial_sensitivities, output)) {
      return finish();
    }
    result.times = std::move(output.times);
    result.states = std::move(output.states);
    result.sensitivities = std::move(output.sensitivities);
    result.cost = output.cost;
    result.cost_gradient = output.cost_gradient;
    summary.status = RunStatus::Success;
    return finish();
  }

  // Central differences: the run at p, then at p ± δᵢ eᵢ for each parameter and from the start
  // moved by ±δ along each projected initial direction (and projected back onto the manifolds).
  const Matrix no_directions;
  fs::RunOutput base;
  if (!run(system, start, qdd, lambda, false, no_directions, base)) {
    return finish();
  }
  result.times = base.times;
  result.states = base.states;
  result.cost = base.cost;
  result.cost_gradient = Vector::Zero(ns);
  result.sensitivities.assign(base.states.size(), Matrix::Zero(2 * result.nq + result.nc, ns));
  const double relative_step =
      sensitivity.difference_step > 0.0 ? sensitivity.difference_step : std::cbrt(options.adaptive.rtol);
  for (int i = 0; i < ns; ++i) {
    const bool parameter = i < np;
    const double delta = relative_step * (parameter ? std::max(1.0, std::abs(result.parameters[i])) : 1.0);
    fs::RunOutput sides[2];
    for (int side = 0; side < 2; ++side) {
      const double signed_delta = side == 0 ? delta : -delta;
      std::unique_ptr<ParametricSystem> shifted;
      State shifted_start = start;
      if (parameter) {
        Vector p = result.parameters;
        p[i] += signed_delta;
        shifted = system.withParameterValues(p);
        if (start_dependence.size() != 0) {
          shifted_start.q += signed_delta * start_dependence.col(i).head(result.nq);
          shifted_start.v += signed_delta * start_dependence.col(i).tail(result.nq);
        }
      } else {
        shifted_start.q += signed_delta * result.initial_directions.col(i - np).head(result.nq);
        shifted_start.v += signed_delta * result.initial_directions.col(i - np).tail(result.nq);
      }
      const ParametricSystem& model = parameter ? *shifted : system;
      Vector shifted_qdd, shifted_lambda;
      if (!fs::consistentStart(model, options, shifted_start, shifted_qdd, shifted_lambda, summary,
                               !parameter || start_depends_on_parameters) ||
          !run(model, shifted_start, shifted_qdd, shifted_lambda, false, no_directions, sides[side])) {
        summary.message = result.column_names[i] + (side == 0 ? " + " : " - ") + formatDouble(delta) + ": " +
                          summary.message;
        return finish();
      }
    }
    for (std::size_t k = 0; k < result.states.size(); ++k) {
      result.sensitivities[k].col(i) = (sides[0].states[k] - sides[1].states[k]) / (2.0 * delta);
    }
    result.cost_gradient[i] = (sides[0].cost - sides[1].cost) / (2.0 * delta);
  }
  summary.status = RunStatus::Success;
  return finish();
}

}  // namespace kktdae
