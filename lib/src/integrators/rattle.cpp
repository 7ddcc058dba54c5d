// RATTLE on the KKT layer's buffers: the constraint-space matrix J W Jᵀ (W = M⁻¹, constant and
// diagonal) is factorized once per step, at qₙ₊₁, and serves both the velocity projection of
// that step and the position Newton of the next (J depends on q only, so it is the same matrix).
#include "kktdae/integrators/rattle.hpp"
#include "../core/inf_norm.hpp"

#include <spdlog/spdlog.h>

#include <cmath>
#include <limits>

#include "../kkt/kkt_steps.hpp"
#include "kktdae/core/checks.hpp"

namespace kktdae {
namespace {

using detail::infNorm;

class RattleStepper final : public FixedStepper {
 public:
  RattleStepper(const ConstrainedSystem& system, const FixedStepperSetup& setup)
      : system_(system),
        options_(setup.rattle),
        kkt_options_(setup.kkt),
        controller_(setup.controller),
        f_(system, Stabilization::none(), setup.kkt, setup.controller),
        ws_(system, setup.kkt),
        u_(Vector::Zero(system.nu())),
        v_half_(Vector::Zero(system.nq())),
        correction_(Vector::Zero(system.nq())),
        total_correction_(Vector::Zero(system.nq())),
        multiplier_(Vector::Zero(system.nc())),
        total_multiplier_(Vector::Zero(system.nc())),
        lambda_(Vector::Zero(system.nc())),
        qdd_(Vector::Zero(system.nq())),
        velocity_dependent_force_(system.biasDependsOnState() || (system.nu() > 0 && setup.controller)) {
    if (setup.stabilization.kind != Stabilization::Kind::None) {
      notes_ += "rattle ignores " + setup.stabilization.describe() + ": it holds phi and J qdot itself. ";
    }
    if (setup.kkt.form == KktForm::Block) {
      notes_ += "rattle solves its constraint-space systems in Schur form (constant diagonal M); the block "
                "form served only the initial KKT solve. ";
    }
  }

  StepReport reset(const State& state) override {
    StepReport report;
    // The observer's λ at the initial state: the KKT solve's, the exact constraint force there.
    report.kkt = f_.evaluate(state.t, state.q, state.v, qdd_);
    ++solves_;
    ++evaluations_;
    if (!report.kkt.ok()) return report;
    lambda_ = f_.lambda();
    report.kkt = evaluateTerms(state.t, state.q, state.v);
    if (!report.kkt.ok()) return report;
    // The driver's message already says "at step 0, t = …, at the initial state".
    report.kkt = factorConstraintSpace("", state.t);
    return report;
  }

  StepReport step(State& state, double dt) override {
    StepReport report;
    const double t_next = state.t + dt;
    // First half-kick without the constraint force, then the drift: q* = qₙ + dt q̇ₙ + dt²/2 W fₙ.
    v_half_ = state.v;
    v_half_.noalias() += (0.5 * dt) * ws_.inverse_mass_diagonal.cwiseProduct(ws_.force);
    state.q.noalias() += dt * v_half_;

    // Simplified Newton for ν = dt²/2 λₙ: q = q* + W Jₙᵀ ν, (Jₙ W Jₙᵀ) Δν = −φ(q).
    total_correction_.setZero();
    total_multiplier_.setZero();
    double previous = std::numeric_limits<double>::infinity();
    for (int iteration = 0;; ++iteration) {
      system_.constraint(state.q, t_next, ws_.phi);
      ++evaluations_;
      const double residual = infNorm(ws_.phi);
      report.newton_residual = residual;
      report.newton_iterations = iteration;
      if (!std::isfinite(residual)) {
        report.kkt = detail::failedSolve(KktStatus::NonFinite, std::numeric_limits<double>::quiet_NaN(),
                                         "non-finite constraint phi in the position Newton (iteration " +
                                             std::to_string(iteration) + ", t = " + formatDouble(t_next) + " s)");
        break;
      }
      if (residual <= options_.newton_tolerance) break;
      if (iteration == options_.newton_max_iterations || !(residual < previous)) {
        report.newton_failed = true;
        report.message = "position Newton " +
                         std::string(iteration == options_.newton_max_iterations ? "reached its cap of "
                                                                                  : "stopped decreasing after ") +
                         std::to_string(iteration) + " iterations with |phi|_inf = " + formatDouble(residual) +
                         " > newton_tolerance " + formatDouble(options_.newton_tolerance);
        break;
      }
      previous = residual;
      multiplier_ = -ws_.phi;
      solveConstraintSpace(multiplier_);
      massWeightedJacobianTranspose(multiplier_, correction_);
      state.q += correction_;
      total_correction_ += correction_;
      total_multiplier_ += multiplier_;
      ++solves_;
    }
    newton_total_ += report.newton_iterations;
    if (!report.ok()) return report;
    v_half_.noalias() += (1.0 / dt) * total_correction_;  // the constrained q̇ₙ₊½ = (qₙ₊₁ − qₙ)/dt

    // Second half-kick at (qₙ₊₁, q̇ₙ₊½), then the velocity constraint by one M-orthogonal projection.
    report.kkt = evaluateTerms(t_next, state.q, v_half_);
    if (!report.kkt.ok()) return withWhere(report, "at the new position (t = " + formatDouble(t_next) + " s)");
    report.kkt = factorConstraintSpace("at the new position", t_next);
    if (!report.kkt.ok()) return report;
    state.v = v_half_;
    state.v.noalias() += (0.5 * dt) * ws_.inverse_mass_diagonal.cwiseProduct(ws_.force);
    constraintRate(state.v, multiplier_);
    solveConstraintSpace(multiplier_);
    massWeightedJacobianTranspose(multiplier_, correction_);
    state.v -= correction_;
    ++solves_;
    lambda_ = (-2.0 / dt) * multiplier_;  // μₙ as a force: q̇ₙ₊₁ = w + dt/2 W Jᵀ μₙ
    state.t = t_next;
    return report;
  }

  StepReport settle(const State& state) override {
    StepReport report;
    // The factorization of J(qₙ₊₁) W J(qₙ₊₁)ᵀ stays valid: J depends on q only. The force at
    // the step's start must be re-evaluated when it depends on q̇ (the last one was at q̇ₙ₊½).
    if (velocity_dependent_force_) {
      report.kkt = evaluateTerms(state.t, state.q, state.v);
      if (!report.kkt.ok()) return report;
    }
    constraintRate(state.v, ws_.phi_dot);
    return report;
  }

  const Vector& lambda() const override { return lambda_; }
  const KktWorkspace& terms() const override { return ws_; }
  const AccelerationFunction& accelerationFunction() const override { return f_; }
  long solves() const override { return solves_; }
  long modelEvaluations() const override { return evaluations_; }
  long newtonIterations() const override { return newton_total_; }
  std::string notes() const override { return notes_; }
  std::string runNotes() const override {
    if (rank_deficient_factorizations_ == 0) return {};
    return "rattle: " + std::to_string(rank_deficient_factorizations_) + " rank-deficient constraint-space factorizations (" +
           std::string(toString(kkt_options_.rank_deficiency)) + "). ";
  }

 private:
  const ConstrainedSystem& system_;
  RattleOptions options_;
  KktOptions kkt_options_;
  Controller controller_;
  AccelerationFunction f_;  // the initial KKT solve (the observer's λ at t0)
  KktWorkspace ws_;         // the model terms and the constraint-space factorization of the steps
  Vector u_, v_half_, correction_, total_correction_;
  Vector multiplier_, total_multiplier_, lambda_, qdd_;
  bool velocity_dependent_force_;
  bool pseudo_inverse_ = false;  // the last factorization is MinimumNorm's A⁺ (applyPolicy())
  bool regularized_ = false;     // the last factorization is Regularize's A + diag(ε) (applyPolicy())
  long solves_ = 0, evaluations_ = 0, newton_total_ = 0, rank_deficient_factorizations_ = 0;
  std::string notes_;

  static StepReport withWhere(StepReport report, const std::string& where) {
    report.kkt.message = where + ": " + report.kkt.message;
    return report;
  }

  /// M, h, f, φ, J, γ, φ̇ at (t, q, v), with the controller's u there.
  KktResult evaluateTerms(double t, ConstVectorRef q, ConstVectorRef v) {
    if (controller_ && u_.size() > 0) controller_(t, q, v, u_);
    ++evaluations_;
    return detail::evaluateModelTerms(system_, t, q, v, u_, Stabilization::none(), ws_);
  }

  /// Factorizes A = J W Jᵀ with the J in the workspace: dense Cholesky or the sparse LDLᵀ.
  /// `where` and t name the place in the failure's message (built only then: no allocation per step);
  /// an empty `where` leaves both to the caller's message.
  KktResult factorConstraintSpace(const char* where, double t) {
    if (ws_.nc == 0) return {};
    double ratio = 0.0;
    if (ws_.sparse) {
      SparseConstraintSpace& space = *ws_.constraint_space;
      space.assemble(ws_.inverse_mass_diagonal, ws_.constraint_diagonal);
      if (space.ldlt.factorize(true)) ratio = space.ldlt.pivotRatio();
    } else {
      ws_.inverse_mass_jt.noalias() = ws_.inverse_mass_diagonal.asDiagonal() * ws_.J.transpose();
      ws_.schur.noalias() = ws_.J * ws_.inverse_mass_jt;
      ws_.schur_llt.compute(ws_.schur);
      if (ws_.schur_llt.info() == Eigen::Success) {
        const auto pivots = ws_.schur_llt.matrixLLT().diagonal();
        const double root_ratio = pivots.minCoeff() / pivots.maxCoeff();
        ratio = root_ratio * root_ratio;  // Cholesky pivots are square roots of A's
      }
    }
    pseudo_inverse_ = false;
    regularized_ = false;
    if (ratio > 0.0 && ratio >= kkt_options_.min_rcond) return {};
    if (kkt_options_.rank_deficiency != RankDeficiencyPolicy::Fail && applyPolicy()) {
      ++rank_deficient_factorizations_;
      return {};
    }
    return detail::failedSolve(ratio > 0.0 ? KktStatus::IllConditioned : KktStatus::Singular, ratio,
                               (*where != '\0' ? std::string(where) + " (t = " + formatDouble(t) + " s): " : std::string()) +
                                   "J M^-1 J^T " +
                                   (ratio > 0.0 ? "ill-conditioned (pivot ratio " + formatDouble(ratio) +
                                                      " < min_rcond " + formatDouble(kkt_options_.min_rcond) + ")"
                                                : std::string("is singular: constraint rows are dependent")));
  }

  /// KktOptions::rank_deficiency on a singular or ill-conditioned A = J W Jᵀ (dense: ws_.schur
  /// holds A; sparse: the assembled values): Regularize factorizes A + diag(ε) (εᵢ relative to
  /// Aᵢᵢ, as the KKT solve does); MinimumNorm (dense only: makeRattleStepper refuses it on the
  /// sparse path) keeps A's pivoted Cholesky for x ← A⁺x (SemidefinitePseudoInverse), pivots at or below
  /// max(rank_tolerance, min_rcond) of the largest dropped. The position Newton then moves along
  /// the range of Jᵀ only, and the velocity projection removes the violating component there: the
  /// motion of the non-redundant model. False when even that fails.
  bool applyPolicy() {
    if (kkt_options_.rank_deficiency == RankDeficiencyPolicy::Regularize) {
      if (ws_.sparse) {
        SparseConstraintSpace& space = *ws_.constraint_space;
        detail::regularizationOfRows(kkt_options_, ws_.constraint_diagonal, ws_);
        space.addToDiagonal(ws_.rank_regularization);
        regularized_ = space.ldlt.factorize(true);
        return regularized_;
      }
      detail::regularizationOfMatrixRows(kkt_options_, ws_.schur, ws_);
      ws_.schur.diagonal() += ws_.rank_regularization;
      ws_.schur_llt.compute(ws_.schur);
      regularized_ = ws_.schur_llt.info() == Eigen::Success;
      return regularized_;
    }
    ws_.ensureRankDeficientStorage();
    const double tolerance = std::max(kkt_options_.rank_tolerance, kkt_options_.min_rcond);
    if (ws_.pseudo_inverse.factorize(ws_.schur, tolerance) == 0) return false;
    pseudo_inverse_ = true;
    return true;
  }

  /// x ← (J W Jᵀ)⁻¹ x with the last factorization (A⁺x under MinimumNorm's decomposition).
  void solveConstraintSpace(Vector& x) {
    if (ws_.nc == 0) return;
    if (pseudo_inverse_) {
      ws_.pseudo_inverse.applyInPlace(x);
      return;
    }
    const auto solve_into = [&](const auto& rhs, auto& step) {
      step = rhs;
      if (ws_.sparse) {
        ws_.constraint_space->ldlt.solveInPlace(step);
      } else {
        ws_.schur_llt.solveInPlace(step);
      }
    };
    solve_into(x, x);
    // The velocity projection must leave J v = 0 exactly, not to within Regularize's ε.
    if (regularized_) detail::refineRegularized(solve_into, ws_.rank_regularization, x, ws_);
  }

  /// out = W Jᵀ x with the J of the last factorization.
  void massWeightedJacobianTranspose(const Vector& x, Vector& out) const {
    if (ws_.sparse) {
      out.noalias() = ws_.constraint_space->J.transpose() * x;
      out.array() *= ws_.inverse_mass_diagonal.array();
    } else {
      out.noalias() = ws_.inverse_mass_jt * x;
    }
  }

  /// out = J v + ∂φ/∂t with the J and ∂φ/∂t in the workspace.
  void constraintRate(const Vector& v, Vector& out) const {
    if (ws_.sparse) {
      out.noalias() = ws_.constraint_space->J * v;
    } else {
      out.noalias() = ws_.J * v;
    }
    out += ws_.phi_t;
  }
};

}  // namespace

void RattleOptions::validate() const {
  requirePositive("rattle.newton_tolerance", newton_tolerance);
  if (newton_max_iterations < 1) {
    throwInvalid("rattle.newton_max_iterations", "must be >= 1, got " + std::to_string(newton_max_iterations));
  }
}

void requireRattleModel(const ConstrainedSystem& system) {
  if (system.massStructure() == MassStructure::ConstantDiagonal) return;
  throwInvalid("integrator", "rattle needs a constant mass matrix (MassStructure::ConstantDiagonal), but " +
                                 system.name() + " declares " +
                                 (system.massStructure() == MassStructure::Diagonal ? "a q-dependent diagonal M"
                                                                                    : "a general M(q)") +
                                 ": with M(q) the kinetic energy's q-gradient enters the kicks and the step "
                                 "becomes implicit in the momentum (docs/integrators.md, RATTLE)");
}

std::unique_ptr<FixedStepper> makeRattleStepper(const ConstrainedSystem& system, const FixedStepperSetup& setup) {
  setup.rattle.validate();
  requireRattleModel(system);
  if (setup.stabilization.project_after_step) {
    throwInvalid("stabilization.project_after_step",
                 "rattle holds phi = 0 and J qdot = 0 itself; a projection after its steps would break its "
                 "symplecticity (use Stabilization::none())");
  }
  if (setup.kkt.rank_deficiency == RankDeficiencyPolicy::MinimumNorm && KktWorkspace(system, setup.kkt).sparse) {
    throwInvalid("kkt.rank_deficiency", "rattle on the sparse path cannot take minimum_norm (it needs the "
                                        "eigen-decomposition of the dense J M^-1 J^T): use regularize, or "
                                        "kkt.path = dense");
  }
  return std::make_unique<RattleStepper>(system, setup);
}

}  // namespace kktdae
