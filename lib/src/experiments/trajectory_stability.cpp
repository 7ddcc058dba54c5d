#include "kktdae/experiments/trajectory_stability.hpp"

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include <tuple>

#include "bracket_bisection.hpp"
#include "constraint_variant_system.hpp"
#include "kktdae/core/checks.hpp"
#include "kktdae/integrators/fixed_steppers.hpp"
#include "kktdae/stabilization/error_dynamics.hpp"

namespace kktdae {

std::string_view toString(NormalBlockVariant variant) {
  switch (variant) {
    case NormalBlockVariant::Full: return "full";
    case NormalBlockVariant::FrozenJacobian: return "frozen_jacobian";
    case NormalBlockVariant::NoGamma: return "no_gamma";
    case NormalBlockVariant::Linear: return "linear";
    case NormalBlockVariant::Decoupled: return "decoupled";
  }
  return "unknown";
}

void NormalGrowthOptions::validate() const {
  if (isAdaptive(integrator)) throwInvalid("integrator", std::string(toString(integrator)) + " is not fixed-step");
  requirePositive("dt", dt);
  stabilization.validate();
  if (stabilization.kind == Stabilization::Kind::Soft || stabilization.project_after_step) {
    throwInvalid("stabilization", stabilization.describe() + ": only Baumgarte (or none) is a step of this form");
  }
  if (steps < 1) throwInvalid("steps", "must be >= 1, got " + std::to_string(steps));
  requirePositive("fd_step", fd_step);
}

void TrajectoryLimitOptions::validate() const {
  if (isAdaptive(integrator)) throwInvalid("integrator", std::string(toString(integrator)) + " is not fixed-step");
  requirePositive("dt", dt);
  requireNonNegative("zeta", zeta);
  requirePositive("horizon", horizon);
  if (min_steps < 1) throwInvalid("min_steps", "must be >= 1, got " + std::to_string(min_steps));
  requireNonNegative("lower", lower);
  requireNonNegative("upper", upper);
  if (lower > 0.0 && upper > 0.0 && !(upper > lower)) {
    throwInvalid("upper", "must exceed lower (" + formatDouble(lower) + "), got " + formatDouble(upper));
  }
  requirePositive("tolerance", tolerance);
  requirePositive("fd_step", fd_step);
}

namespace {

/// Everything one linearization needs, sized once: the variant model and its KKT solve, the
/// step buffers, the lift and the block.
struct NormalBlockWorkspace {
  NormalBlockWorkspace(const ConstrainedSystem& system, const NormalGrowthOptions& options)
      : variant_system(system, options.variant == NormalBlockVariant::FrozenJacobian ||
                                   options.variant == NormalBlockVariant::Linear,
                       options.variant == NormalBlockVariant::NoGamma || options.variant == NormalBlockVariant::Linear),
        uses_variant(options.variant != NormalBlockVariant::Full && options.variant != NormalBlockVariant::Decoupled),
        f(uses_variant ? static_cast<const ConstrainedSystem&>(variant_system) : system, options.stabilization,
          options.kkt),
        step_ws(system.nq()),
        dimension(options.normal_only ? 2 * system.nc() : 2 * system.nq()),
        normal_only(options.normal_only),
        M(system.nq(), system.nq()),
        J(system.nc(), system.nq()),
        lift(2 * system.nq(), dimension),
        block(dimension, dimension),
        qdd(system.nq()),
        phi(system.nc()),
        phi_t(system.nc()),
        y_plus(dimension),
        y_minus(dimension) {}

  detail::ConstraintVariantSystem variant_system;
  bool uses_variant;
  AccelerationFunction f;  ///< over the variant model when one is in use
  StepWorkspace step_ws;
  int dimension;     ///< 2nc (normal part) or 2nq (every perturbation)
  bool normal_only;
  Matrix M, J, lift, block;  // after `dimension`: lift and block are sized by it
  Vector qdd, phi, phi_t, y_plus, y_minus;
  State perturbed;

  const ConstrainedSystem& model() const { return f.system(); }

  /// What the block maps: (φ, φ̇) of the linearized model, or the state itself.
  void outputCoordinates(ConstVectorRef q, ConstVectorRef v, double t, VectorRef y) {
    if (normal_only) return errorCoordinates(q, v, t, y);
    y.head(q.size()) = q;
    y.tail(v.size()) = v;
  }

  /// (φ, φ̇) of the linearized model at (q, v, t) into y (size 2nc).
  void errorCoordinates(ConstVectorRef q, ConstVectorRef v, double t, VectorRef y) {
    const int nc = static_cast<int>(phi.size());
    model().constraint(q, t, phi);
    model().constraintJacobian(q, t, J);
    model().constraintTimeDerivative(q, t, phi_t);
    y.head(nc) = phi;
    y.tail(nc).noalias() = J * v + phi_t;
  }
};

/// N = C(Φ(x)) · ∂Φ/∂x · L(x) by central differences along the lift's columns. Returns false
/// (with `message`) when a perturbed step fails.
bool buildNormalBlock(const State& x, FixedStepFunction step, double dt, double fd_step, NormalBlockWorkspace& ws,
                      std::string& message) {
  const ConstrainedSystem& model = ws.model();
  const int nq = model.nq(), nc = model.nc();
  ws.variant_system.setAnchor(x.q, x.t);

  // The lift: δq = J⁺ δe and δq̇ = J⁺ (δė − D δq) with J⁺ = M⁻¹Jᵀ(JM⁻¹Jᵀ)⁻¹, the perturbation of
  // least kinetic-metric size with the given (δe, δė); D δq = ∂φ̇/∂q · δq by central differences.
  model.massMatrix(x.q, ws.M);
  model.constraintJacobian(x.q, x.t, ws.J);
  const Eigen::LLT<Matrix> mass(ws.M);
  const Matrix MinvJt = mass.solve(ws.J.transpose());
  const Matrix J_plus = MinvJt * (ws.J * MinvJt).ldlt().solve(Matrix::Identity(nc, nc));
  const double scale = std::max(1.0, std::max(x.q.lpNorm<Eigen::Infinity>(), x.v.lpNorm<Eigen::Infinity>()));
  ws.lift.setZero();
  if (!ws.normal_only) ws.lift.setIdentity();
  for (int i = 0; ws.normal_only && i < nc; ++i) {
    const Vector dq = J_plus.col(i);
    const double h = fd_step * scale / std::max(dq.lpNorm<Eigen::Infinity>(), 1e-300);
    ws.errorCoordinates(x.q + h * dq, x.v, x.t, ws.y_plus);
    ws.errorCoordinates(x.q - h * dq, x.v, x.t, ws.y_minus);
    const Vector D_dq = (ws.y_plus.tail(nc) - ws.y_minus.tail(nc)) / (2.0 * h);
    ws.lift.col(i).head(nq) = dq;
    ws.lift.col(i).tail(nq) = -J_plus * D_dq;
    ws.lift.col(nc + i).tail(nq) = J_plus.col(i);
  }

  // Column j of N: how (φ, φ̇) after one step moves when the step starts h·l_j away.
  for (int j = 0; j < ws.dimension; ++j) {
    const auto l = ws.lift.col(j);
    const double h = fd_step * scale / std::max(l.lpNorm<Eigen::Infinity>(), 1e-300);
    for (int sign : {+1, -1}) {
      ws.perturbed = x;
      ws.perturbed.q += (sign * h) * l.head(nq);
      ws.perturbed.v += (sign * h) * l.tail(nq);
      KktResult r = ws.f.evaluate(ws.perturbed.t, ws.perturbed.q, ws.perturbed.v, ws.qdd);
      if (r.ok()) r = step(ws.f, ws.perturbed, dt, ws.qdd, ws.step_ws);
      if (!r.ok()) {
        message = "linearized step failed at t = " + formatDouble(x.t) + " s: " + r.message;
        return false;
      }
      ws.outputCoordinates(ws.perturbed.q, ws.perturbed.v, ws.perturbed.t, sign > 0 ? ws.y_plus : ws.y_minus);
    }
    ws.block.col(j) = (ws.y_plus - ws.y_minus) / (2.0 * h);
  }
  if (!ws.block.allFinite()) {
    message = "normal block not finite at t = " + formatDouble(x.t) + " s";
    return false;
  }
  return true;
}

/// ‖blocks coupling different constraints‖_F / ‖N − I‖_F.
double couplingOf(const Matrix& block, int nc) {
  double off = 0.0;
  for (int i = 0; i < nc; ++i) {
    for (int j = 0; j < nc; ++j) {
      if (i == j) continue;
      for (int a : {0, nc}) {
        for (int b : {0, nc}) off += block(a + i, b + j) * block(a + i, b + j);
      }
    }
  }
  const double total = (block - Matrix::Identity(block.rows(), block.cols())).squaredNorm();
  return total > 0.0 ? std::sqrt(off / total) : 0.0;
}

void decouple(Matrix& block, int nc) {
  for (int i = 0; i < nc; ++i) {
    for (int j = 0; j < nc; ++j) {
      if (i == j) continue;
      for (int a : {0, nc}) {
        for (int b : {0, nc}) block(a + i, b + j) = 0.0;
      }
    }
  }
}

}  // namespace

NormalGrowth normalErrorGrowth(const ConstrainedSystem& system, const State& start, const NormalGrowthOptions& options) {
  options.validate();
  checkStateSizes(system, start.q, start.v);
  const int nc = system.nc();
  const FixedStepFunction step = fixedStepFunction(options.integrator);
  NormalGrowth growth;
  if (nc == 0) throwInvalid("system", system.name() + " has no constraints: there is no normal error to follow");

  AccelerationFunction f(system, options.reference_stabilization.value_or(options.stabilization), options.kkt);
  StepWorkspace step_ws(system.nq());
  NormalBlockWorkspace ws(system, options);
  const int m = ws.dimension;
  Vector qdd(system.nq());
  State x = start;
  // Benettin: propagate an orthonormal frame, re-orthonormalize each step, sum log |R_ii|.
  Matrix frame = Matrix::Identity(m, m);
  Vector log_growth = Vector::Zero(m);
  Eigen::HouseholderQR<Matrix> qr(m, m);
  Matrix scaled(m, m);
  double coupling_sum = 0.0;

  for (long k = 0; k < options.steps; ++k) {
    std::string message;
    if (!buildNormalBlock(x, step, options.dt, options.fd_step, ws, message)) {
      growth.message = "step " + std::to_string(k) + ": " + message;
      break;
    }
    const double coupling = options.normal_only ? couplingOf(ws.block, nc) : 0.0;
    coupling_sum += coupling;
    growth.max_coupling = std::max(growth.max_coupling, coupling);
    if (options.normal_only && options.variant == NormalBlockVariant::Decoupled) decouple(ws.block, nc);
    // In (e, dt·ė) (or (q, dt·q̇)) the block is O(1) in every entry; in (e, ė) it is as non-normal
    // as ω, and that constant similarity would bias a finite run's exponent by ln(cond)/K.
    scaled = ws.block;
    scaled.topRightCorner(m / 2, m / 2) /= options.dt;
    scaled.bottomLeftCorner(m / 2, m / 2) *= options.dt;
    qr.compute(scaled * frame);
    frame = qr.householderQ();
    // Q's columns may flip sign relative to R's diagonal; |R_ii| is what grows.
    log_growth += qr.matrixQR().diagonal().cwiseAbs().array().log().matrix();
    growth.last_block = ws.block;

    KktResult r = f.evaluate(x.t, x.q, x.v, qdd);
    if (r.ok()) r = step(f, x, options.dt, qdd, step_ws);
    if (!r.ok() || !x.q.allFinite() || !x.v.allFinite()) {
      growth.steps = k + 1;
      growth.message = "reference run failed at step " + std::to_string(k) + " (t = " + formatDouble(x.t) +
                       " s): " + (r.ok() ? std::string("non-finite state") : r.message);
      break;
    }
    growth.steps = k + 1;
  }
  growth.ok = growth.message.empty();
  if (growth.steps > 0) {
    const double time = static_cast<double>(growth.steps) * options.dt;
    growth.exponents.resize(static_cast<std::size_t>(m));
    for (int i = 0; i < m; ++i) growth.exponents[static_cast<std::size_t>(i)] = log_growth[i] / time;
    std::sort(growth.exponents.rbegin(), growth.exponents.rend());
    growth.rate = growth.exponents.front();
    growth.mean_coupling = coupling_sum / static_cast<double>(growth.steps);
  } else {
    growth.rate = std::numeric_limits<double>::infinity();
  }
  return growth;
}

TrajectoryLimit predictStabilityLimit(const ConstrainedSystem& system, const State& start,
                                      const TrajectoryLimitOptions& options) {
  options.validate();
  TrajectoryLimit result;
  result.closed_form = baumgarteStabilityLimit(options.integrator, options.zeta);
  double lower = 0.0, upper = 0.0;
  std::tie(lower, upper) = detail::limitBracket(options.integrator, options.zeta, options.lower, options.upper);

  NormalGrowthOptions run;
  run.integrator = options.integrator;
  run.dt = options.dt;
  run.steps = std::max(options.min_steps, std::lround(options.horizon / options.dt));
  run.fd_step = options.fd_step;
  run.variant = options.variant;
  run.normal_only = options.normal_only;
  if (options.reference_dt_omega > 0.0) {
    run.reference_stabilization = Stabilization::fromDampingRatio(options.zeta, options.reference_dt_omega / options.dt);
  }
  run.kkt = options.kkt;
  // A reference run that fails (blows up) counts as growing: its rate is taken over the steps
  // it completed, and a failure is itself the instability the limit bounds.
  std::string failure;  // the first failed run's message, for a result that finds no limit
  auto evaluate = [&](double x, double& coupling) {
    run.stabilization = Stabilization::fromDampingRatio(options.zeta, x / options.dt);
    const NormalGrowth growth = normalErrorGrowth(system, start, run);
    ++result.evaluations;
    if (!growth.ok && failure.empty()) failure = growth.message;
    coupling = growth.mean_coupling;
    const double rate = growth.ok ? growth.rate : std::max(growth.rate, std::numeric_limits<double>::max());
    return rate - options.rate_threshold;
  };
  double coupling_lower = 0.0, coupling_upper = 0.0;
  result.rate_at_lower = evaluate(lower, coupling_lower) + options.rate_threshold;
  result.rate_at_upper = evaluate(upper, coupling_upper) + options.rate_threshold;
  result.lower = lower;
  result.upper = upper;
  result.limit = std::numeric_limits<double>::quiet_NaN();
  if (!(result.rate_at_lower < options.rate_threshold)) {
    result.message = "normal error grows at every gain down to dt*omega = " + formatDouble(lower) + " (rate " +
                     formatDouble(result.rate_at_lower) + " /s)" + (failure.empty() ? "" : "; " + failure);
    return result;
  }
  if (!(result.rate_at_upper > options.rate_threshold)) {
    result.message = "normal error still decays at dt*omega = " + formatDouble(upper) + " (rate " +
                     formatDouble(result.rate_at_upper) + " /s)";
    return result;
  }
  result.coupling_at_limit = coupling_lower;
  std::tie(result.lower, result.upper) = detail::bisectBracket(lower, upper, options.tolerance, [&](double mid) {
    double coupling = 0.0;
    const bool decays = evaluate(mid, coupling) < 0.0;
    if (decays) result.coupling_at_limit = coupling;
    return decays;
  });
  result.limit = 0.5 * (result.lower + result.upper);
  result.found = true;
  return result;
}

}  // namespace kktdae
