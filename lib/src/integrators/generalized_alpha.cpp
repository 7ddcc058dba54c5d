// Generalized-α / HHT-α on the index-3 DAE (Arnold & Brüls 2007): Newton in (q̈ₙ₊₁, λₙ₊₁) with the
// constraint rows scaled by 1/β′, on one dense LU of the block iteration matrix, or on long chains
// KLU of it in a fixed sparse pattern, where the residual too takes J at its pattern: that path
// holds nothing nq×nq, so a step's memory and time are linear in nq. q and q̇ are affine in q̈ₙ₊₁
// within a step (q = q_pred + β′ q̈, q̇ = v_pred + γ′ q̈), so an iterate is just q̈, λ.
#include "kktdae/integrators/generalized_alpha.hpp"
#include "../core/inf_norm.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>

#include "../kkt/kkt_steps.hpp"
#include "generalized_alpha_sparse_matrix.hpp"
#include "kktdae/system/dynamics_jacobian.hpp"
#include "kktdae/core/checks.hpp"

namespace kktdae {
namespace {

using detail::infNorm;

/// What the method carries from step to step besides (q, q̇): q̈ₙ, aₙ and λₙ.
struct CarriedState {
  Vector qdd, a, lambda;
};

class GeneralizedAlphaStepper final : public FixedStepper {
 public:
  GeneralizedAlphaStepper(const ConstrainedSystem& system, const FixedStepperSetup& setup)
      : system_(system),
        name_(toString(setup.integrator)),
        options_(setup.generalized_alpha),
        kkt_options_(setup.kkt),
        controller_(setup.controller),
        parameters_(setup.integrator == Integrator::Hht ? hhtParameters(setup.generalized_alpha.hht_alpha)
                                                        : chungHulbertParameters(setup.generalized_alpha.rho_inf)),
        f_(system, Stabilization::none(), setup.kkt, setup.controller),
        nq_(system.nq()),
        nc_(system.nc()) {
    const int nu = system.nu();
    carried_ = {Vector::Zero(nq_), Vector::Zero(nq_), Vector::Zero(nc_)};
    jerk_ = Vector::Zero(nq_);
    qdd_probe_ = Vector::Zero(nq_);
    q_pred_ = Vector::Zero(nq_);
    v_pred_ = Vector::Zero(nq_);
    q_iterate_ = Vector::Zero(nq_);
    v_iterate_ = Vector::Zero(nq_);
    qdd_ = Vector::Zero(nq_);
    lambda_ = Vector::Zero(nc_);
    u_ = Vector::Zero(nu);
    if (system.massStructure() == MassStructure::General) M_ = Matrix::Zero(nq_, nq_);
    mass_diagonal_ = Vector::Zero(nq_);
    residual_mass_ = Vector::Zero(nq_);
    S_ = Matrix::Zero(nu, nq_);
    h_ = Vector::Zero(nq_);
    r_ = Vector::Zero(nq_);
    phi_ = Vector::Zero(nc_);
    rhs_ = Vector::Zero(nq_ + nc_);
    correction_ = Vector::Zero(nq_ + nc_);
    if (useSparse(system, setup)) {
      sparse_ = std::make_unique<detail::GeneralizedAlphaSparseMatrix>(system);
      jacobian_values_ = Vector::Zero(system.jacobianNonZeros());
    } else {
      derivatives_ = std::make_unique<DynamicsJacobian>(system);
      J_ = Matrix::Zero(nc_, nq_);
      block_ = Matrix::Zero(nq_ + nc_, nq_ + nc_);
      lu_ = Eigen::PartialPivLU<Matrix>(nq_ + nc_);
    }
    if (setup.stabilization.kind != Stabilization::Kind::None) {
      notes_ += name_ + " ignores " + setup.stabilization.describe() + ": it holds phi = 0 itself. ";
    }
    if (setup.stabilization.project_after_step) {
      notes_ += name_ + " steps from the projected state; its algorithmic acceleration is not projected. ";
    }
    if (sparse_) {
      notes_ += name_ + " factorizes its Newton matrix sparsely (KLU, " + std::to_string(sparse_->nonZeros()) +
                " nonzeros, " + std::to_string(sparse_->colors()) + " colors" +
                (sparse_->biasColors() > 0 ? ", " + std::to_string(sparse_->biasColors()) + " band colors of dh/d(q, v)"
                                           : std::string()) +
                "). ";
    } else if (setup.kkt.form == KktForm::Block || setup.kkt.path == KktPath::Sparse) {
      notes_ += name_ + " factorizes its Newton matrix densely (block LU); the KKT options served only the "
                        "initial solve and the observed phi_dot. ";
    }
  }

  StepReport reset(const State& state) override {
    StepReport report;
    report.kkt = f_.evaluate(state.t, state.q, state.v, carried_.qdd);
    ++solves_;
    ++evaluations_;
    if (!report.kkt.ok()) return report;
    carried_.lambda = f_.lambda();
    lambda_ = carried_.lambda;
    // q⃛(t₀) by a central difference of the KKT q̈ along the motion: the starting value
    // a₀ = q̈(t₀ + (α_m − α_f) h) of Arnold & Brüls (h is known at the first step).
    const double delta = 1e-5 * std::max(1.0, std::abs(state.t));
    jerk_.setZero();
    for (int side : {1, -1}) {
      const double d = side * delta;
      q_pred_ = state.q + d * state.v + (0.5 * d * d) * carried_.qdd;
      v_pred_ = state.v + d * carried_.qdd;
      report.kkt = f_.evaluate(state.t + d, q_pred_, v_pred_, qdd_probe_);
      ++solves_;
      ++evaluations_;
      if (!report.kkt.ok()) {
        report.kkt.message = "estimating the initial jerk: " + report.kkt.message;
        return report;
      }
      jerk_ += (side / (2.0 * delta)) * qdd_probe_;
    }
    carried_.a = carried_.qdd;
    first_step_ = true;
    // The observer's terms (phi, phi_dot) at the initial state.
    report.kkt = f_.evaluateTerms(state.t, state.q, state.v);
    return report;
  }

  StepReport step(State& state, double dt) override {
    if (first_step_) {
      carried_.a += (parameters_.alpha_m - parameters_.alpha_f) * dt * jerk_;
      first_step_ = false;
    }
    StepReport report = attempt(state, dt);
    newton_total_ += report.newton_iterations;
    if (report.ok() || options_.max_step_halvings == 0) return report;
    // Chrono-style retry: the step as two halves (recursively), counted in runNotes().
    return halve(state, dt, 1, report);
  }

  StepReport settle(const State& state) override {
    StepReport report;
    report.kkt = f_.evaluateTerms(state.t, state.q, state.v);
    ++evaluations_;
    return report;
  }

  const Vector& lambda() const override { return lambda_; }
  const KktWorkspace& terms() const override { return f_.workspace(); }
  const AccelerationFunction& accelerationFunction() const override { return f_; }
  long solves() const override { return solves_; }
  long modelEvaluations() const override {
    return evaluations_ + (derivatives_ ? derivatives_->modelEvaluations() : 0) +
           (sparse_ ? sparse_->modelEvaluations() : 0);
  }
  long newtonIterations() const override { return newton_total_; }
  long jacobianEvaluations() const override { return jacobian_evaluations_; }
  long factorizations() const override { return factorizations_; }
  std::string notes() const override { return notes_; }
  std::string runNotes() const override {
    if (halvings_ == 0) return {};
    return name_ + " halved " + std::to_string(halvings_) + " step(s) after a failed Newton (first at t = " +
           formatDouble(first_halving_time_) + " s, deepest " + std::to_string(deepest_halving_) +
           " level(s)). ";
  }

 private:
  const ConstrainedSystem& system_;
  std::string name_;
  GeneralizedAlphaOptions options_;
  KktOptions kkt_options_;
  Controller controller_;
  GeneralizedAlphaParameters parameters_;
  AccelerationFunction f_;  // the initial KKT solve and the observed terms at each settled state
  int nq_, nc_;
  CarriedState carried_;
  Vector jerk_, qdd_probe_, q_pred_, v_pred_, q_iterate_, v_iterate_, qdd_, lambda_, u_;
  Matrix M_, S_;  // M_ only for a general M (a diagonal one is mass_diagonal_)
  Vector h_, r_, phi_, mass_diagonal_;  // mass_diagonal_: diag M at the iterate
  Vector residual_mass_;  // the residual's row scale: mass_diagonal_ without its zeros
  Vector rhs_, correction_;
  // Dense path: J, the derivative blocks and the block LU, each nq×nq or larger.
  Matrix J_, block_;
  std::unique_ptr<DynamicsJacobian> derivatives_;
  Eigen::PartialPivLU<Matrix> lu_;
  // Sparse path (KLU): the Newton matrix and J's values at its pattern.
  std::unique_ptr<detail::GeneralizedAlphaSparseMatrix> sparse_;
  Vector jacobian_values_;
  bool factorization_valid_ = false;
  double factorization_dt_ = 0.0;
  bool first_step_ = true;
  long solves_ = 0, evaluations_ = 0, newton_total_ = 0, jacobian_evaluations_ = 0, factorizations_ = 0;
  long halvings_ = 0;
  int deepest_halving_ = 0;
  double first_halving_time_ = 0.0;
  std::string notes_;

  /// IterationMatrix::Auto's rule: sparse when the model allows it and nq reaches the KKT
  /// path's threshold for sparse storage.
  static bool useSparse(const ConstrainedSystem& system, const FixedStepperSetup& setup) {
    switch (setup.generalized_alpha.iteration_matrix) {
      case IterationMatrix::Dense: return false;
      case IterationMatrix::Sparse: return true;  // the constructor names what is missing
      case IterationMatrix::Auto: break;
    }
    return SparseDynamicsJacobian::unsupportedReason(system).empty() &&
           system.nq() >= setup.kkt.sparse_min_coordinates;
  }

  /// Two half steps in place of a failed one; `depth` halvings deep. On failure, the first
  /// failure's report (the state is then unspecified, as the contract allows).
  StepReport halve(State& state, double dt, int depth, const StepReport& failed) {
    if (halvings_ == 0) first_halving_time_ = state.t;
    ++halvings_;
    deepest_halving_ = std::max(deepest_halving_, depth);
    // The failed attempt left the state and the carried values at their start (attempt() only
    // commits on success), so the halves start where the step did.
    const double t_end = state.t + dt;
    for (int half = 0; half < 2; ++half) {
      const double h = half == 0 ? 0.5 * dt : t_end - state.t;
      StepReport report = attempt(state, h);
      newton_total_ += report.newton_iterations;
      if (!report.ok()) {
        if (depth >= options_.max_step_halvings) return failed;
        report = halve(state, h, depth + 1, failed);
        if (!report.ok()) return report;
      }
    }
    StepReport done;
    done.newton_iterations = 0;
    return done;
  }

  /// Evaluates the controller, M, h, S, J, φ and the residual r at the iterate (t, q, v, q̈, λ).
  void evaluateResidual(double t, ConstVectorRef q, ConstVectorRef v) {
    if (controller_ && u_.size() > 0) controller_(t, q, v, u_);
    // A diagonal M through massDiagonal(): massMatrix() would build it through a temporary.
    const bool diagonal = system_.massStructure() != MassStructure::General;
    if (diagonal) {
      system_.massDiagonal(q, mass_diagonal_);
    } else {
      system_.massMatrix(q, M_);
      mass_diagonal_ = M_.diagonal();
    }
    system_.bias(q, v, t, h_);
    system_.constraint(q, t, phi_);
    if (sparse_) {
      system_.constraintJacobianValues(q, t, jacobian_values_);
    } else {
      system_.constraintJacobian(q, t, J_);
    }
    ++evaluations_;
    updateResidualScale();
    if (diagonal) {
      r_ = mass_diagonal_.cwiseProduct(qdd_);
    } else {
      r_.noalias() = M_ * qdd_;
    }
    r_ += h_;
    if (sparse_) {
      const IndexVector& rows = sparse_->jacobianRows();
      const IndexVector& cols = sparse_->jacobianCols();
      for (Eigen::Index p = 0; p < jacobian_values_.size(); ++p) r_[cols[p]] -= jacobian_values_[p] * lambda_[rows[p]];
    } else if (nc_ > 0) {
      r_.noalias() -= J_.transpose() * lambda_;
    }
    if (u_.size() > 0) {
      system_.inputMap(q, t, S_);
      r_.noalias() -= S_.transpose() * u_;
    }
  }

  /// residual_mass_ = diag M, with the entries that are zero to rounding (a massless coordinate,
  /// or a flat body's zero director inertia: M singular, positive definite only on null(J))
  /// replaced by the largest: such a row balances forces, measured in the largest mass's
  /// accelerations rather than divided by zero.
  void updateResidualScale() {
    const double largest = mass_diagonal_.maxCoeff();
    const double floor = std::numeric_limits<double>::epsilon() * largest;
    for (int i = 0; i < nq_; ++i) residual_mass_[i] = mass_diagonal_[i] > floor ? mass_diagonal_[i] : largest;
  }

  /// The scaled residual max(‖φ‖∞, min(β′‖D⁻¹r‖∞, last_correction)) (position units), D = diag M
  /// with zero entries replaced as updateResidualScale() says. On a stiff
  /// step β′D⁻¹r overstates the position error by β′|K|/|M| (and amplifies q's round-off by as
  /// much); the last Newton correction of q, β′‖Δq̈‖∞, then measures it (about r/K).
  double scaledResidual(double beta_prime, double last_correction) const {
    double dynamics = 0.0;
    for (int i = 0; i < nq_; ++i) dynamics = std::max(dynamics, std::abs(r_[i]) / residual_mass_[i]);
    return std::max(infNorm(phi_), std::min(beta_prime * dynamics, last_correction));
  }

  /// Builds and factorizes [M + β′K + γ′C, −Jᵀ; J, 0] at the iterate; false (with report.kkt set)
  /// when it is singular or ill-conditioned.
  bool factorize(double t, ConstVectorRef q, ConstVectorRef v, double beta_prime, double gamma_prime, double dt,
                 StepReport& report) {
    if (sparse_) return factorizeSparse(t, q, v, beta_prime, gamma_prime, dt, report);
    derivatives_->evaluate(t, q, v, qdd_, lambda_, u_);
    ++jacobian_evaluations_;
    block_.topLeftCorner(nq_, nq_) = derivatives_->mass();
    block_.topLeftCorner(nq_, nq_) += beta_prime * derivatives_->stiffness();
    block_.topLeftCorner(nq_, nq_) += gamma_prime * derivatives_->damping();
    if (nc_ > 0) {
      block_.topRightCorner(nq_, nc_) = -derivatives_->jacobian().transpose();
      block_.bottomLeftCorner(nc_, nq_) = derivatives_->jacobian();
      block_.bottomRightCorner(nc_, nc_).setZero();
    }
    if (!block_.allFinite()) {
      factorization_valid_ = false;
      report.kkt = detail::failedSolve(KktStatus::NonFinite, std::numeric_limits<double>::quiet_NaN(),
                                       "non-finite derivative terms in the " + name_ + " Newton matrix (t = " +
                                           formatDouble(t) + " s)");
      return false;
    }
    lu_.compute(block_);
    ++factorizations_;
    // The pivot ratio min |u_kk| / max |u_kk| (as KLU's on the sparse path): Eigen's 1-norm
    // estimate rcond() allocates five work vectors per call, which the per-step path must not.
    const auto pivots = lu_.matrixLU().diagonal().cwiseAbs();
    const double rcond = pivots.maxCoeff() > 0.0 ? pivots.minCoeff() / pivots.maxCoeff() : 0.0;
    factorization_valid_ = std::isfinite(rcond) && rcond >= kkt_options_.min_rcond;
    factorization_dt_ = dt;
    if (factorization_valid_) return true;
    report.kkt = detail::failedSolve(rcond > 0.0 ? KktStatus::IllConditioned : KktStatus::Singular, rcond,
                                     "Newton matrix [M + b'K + g'C, -J^T; J, 0] at t = " + formatDouble(t) +
                                         " s has LU pivot ratio " + formatDouble(rcond) + " < min_rcond " +
                                         formatDouble(kkt_options_.min_rcond));
    return false;
  }

  /// The sparse path of factorize(): KLU of the same matrix in its fixed pattern.
  bool factorizeSparse(double t, ConstVectorRef q, ConstVectorRef v, double beta_prime, double gamma_prime,
                       double dt, StepReport& report) {
    ++jacobian_evaluations_;
    ++factorizations_;
    factorization_dt_ = dt;
    factorization_valid_ = sparse_->factorize(t, q, v, lambda_, beta_prime, gamma_prime) &&
                           sparse_->pivotRatio() >= kkt_options_.min_rcond;
    if (factorization_valid_) return true;
    const double ratio = sparse_->pivotRatio();
    report.kkt = detail::failedSolve(ratio > 0.0 ? KktStatus::IllConditioned : KktStatus::Singular, ratio,
                                     "sparse Newton matrix [M + b'K, -J^T; J, 0] at t = " + formatDouble(t) +
                                         " s is singular, not finite, or has KLU pivot ratio " +
                                         formatDouble(ratio) + " < min_rcond " +
                                         formatDouble(kkt_options_.min_rcond));
    return false;
  }

  /// One step of size dt by Newton. Commits (state, carried values, λ) only on success.
  StepReport attempt(State& state, double dt) {
    StepReport report;
    const GeneralizedAlphaParameters& p = parameters_;
    const double t_next = state.t + dt;
    const double ratio = (1.0 - p.alpha_f) / (1.0 - p.alpha_m);
    const double beta_prime = p.beta * dt * dt * ratio;
    const double gamma_prime = p.gamma * dt * ratio;
    // aₙ₊₁ = ratio·q̈ₙ₊₁ + a_rest, so q = q_pred + β′ q̈ and q̇ = v_pred + γ′ q̈.
    const double rest_qdd = p.alpha_f / (1.0 - p.alpha_m), rest_a = -p.alpha_m / (1.0 - p.alpha_m);
    q_pred_ = state.q + dt * state.v + (dt * dt * (0.5 - p.beta)) * carried_.a;
    q_pred_ += (dt * dt * p.beta) * (rest_qdd * carried_.qdd + rest_a * carried_.a);
    v_pred_ = state.v + (dt * (1.0 - p.gamma)) * carried_.a;
    v_pred_ += (dt * p.gamma) * (rest_qdd * carried_.qdd + rest_a * carried_.a);
    // Predictor: q̈ₙ₊₁ = q̈ₙ, λₙ₊₁ = λₙ.
    qdd_ = carried_.qdd;
    lambda_ = carried_.lambda;
    Vector& q = q_iterate_;
    Vector& v = v_iterate_;
    double previous = std::numeric_limits<double>::infinity();
    double last_correction = std::numeric_limits<double>::infinity();
    for (int iteration = 0;; ++iteration) {
      q = q_pred_ + beta_prime * qdd_;
      v = v_pred_ + gamma_prime * qdd_;
      evaluateResidual(t_next, q, v);
      const double residual = scaledResidual(beta_prime, last_correction);
      report.newton_residual = residual;
      report.newton_iterations = iteration;
      if (!std::isfinite(residual)) {
        report.kkt = detail::failedSolve(KktStatus::NonFinite, std::numeric_limits<double>::quiet_NaN(),
                                         "non-finite residual in the " + name_ + " Newton (iteration " +
                                             std::to_string(iteration) + ", t = " + formatDouble(t_next) + " s)");
        break;
      }
      // Relative to the step's position scale: q = q_pred + β′q̈ is computed to eps·max(|q|, β′|q̈|)
      // and β′D⁻¹r to eps·β′|D⁻¹h|, which on a stiff step (β′|q̈| ≫ |q|) set the residual's
      // round-off floor.
      double force_scale = 0.0;
      for (int i = 0; i < nq_; ++i) force_scale = std::max(force_scale, std::abs(h_[i]) / residual_mass_[i]);
      const double scale = std::max({1.0, infNorm(q), beta_prime * infNorm(qdd_), beta_prime * force_scale});
      if (residual <= options_.newton_tolerance * scale) break;
      if (iteration == options_.newton_max_iterations) {
        report.newton_failed = true;
        report.message = name_ + " Newton reached its cap of " + std::to_string(iteration) +
                         " iterations with scaled residual " + formatDouble(residual) + " > newton_tolerance " +
                         formatDouble(options_.newton_tolerance) + " x position scale " + formatDouble(scale);
        break;
      }
      bool rebuild = !factorization_valid_ || factorization_dt_ != dt;
      switch (options_.jacobian_reuse) {
        case JacobianReuse::EveryIteration: rebuild = true; break;
        case JacobianReuse::EveryStep:
          // At the predictor, and again when the frozen matrix stops contracting: a predictor far
          // from the solution (a whipping tail) leaves the modified Newton linear with ratio ~0.5.
          rebuild = rebuild || iteration == 0 || residual > options_.slow_convergence_ratio * previous;
          break;
        case JacobianReuse::UntilSlow:
          rebuild = rebuild || residual > options_.slow_convergence_ratio * previous;
          break;
      }
      previous = residual;
      if (rebuild && !factorize(t_next, q, v, beta_prime, gamma_prime, dt, report)) break;
      rhs_.head(nq_) = -r_;
      if (nc_ > 0) rhs_.tail(nc_) = (-1.0 / beta_prime) * phi_;
      if (sparse_) {
        correction_ = rhs_;
        sparse_->solveInPlace(correction_);
      } else {
        correction_ = lu_.solve(rhs_);
      }
      ++solves_;
      qdd_ += correction_.head(nq_);
      last_correction = beta_prime * correction_.head(nq_).lpNorm<Eigen::Infinity>();  // no temporary
      if (nc_ > 0) lambda_ += correction_.tail(nc_);
    }
    if (!report.ok()) {
      factorization_valid_ = false;  // a later attempt (a halving) starts with a fresh matrix
      return report;
    }
    // Commit: aₙ₊₁, q̈ₙ₊₁, λₙ₊₁ and the state.
    carried_.a = ratio * qdd_ + rest_qdd * carried_.qdd + rest_a * carried_.a;
    carried_.qdd = qdd_;
    carried_.lambda = lambda_;
    state.q = q;
    state.v = v;
    state.t = t_next;
    return report;
  }
};

}  // namespace

std::unique_ptr<FixedStepper> makeGeneralizedAlphaStepper(const ConstrainedSystem& system,
                                                          const FixedStepperSetup& setup) {
  if (setup.integrator != Integrator::GeneralizedAlpha && setup.integrator != Integrator::Hht) {
    throwInvalid("integrator", std::string(toString(setup.integrator)) + " is not generalized_alpha or hht");
  }
  setup.generalized_alpha.validate();
  return std::make_unique<GeneralizedAlphaStepper>(system, setup);
}

}  // namespace kktdae
