#pragma once
// What every integration driver shares: the Summary being filled, the observer, the violation
// maxima, the divergence rule, counted warnings, the interrupt flag and the wall clock (internal
// header).

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "kktdae/core/checks.hpp"
#include "kktdae/integrators/fixed_stepper.hpp"
#include "kktdae/simulate/simulate.hpp"
#include "short_vector_checks.hpp"

namespace kktdae::detail {

/// An Observer behind the StateObserver interface (what the recorder calls).
class FunctionObserver final : public StateObserver {
 public:
  explicit FunctionObserver(const Observer& f) : f_(f) {}
  void observe(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) override { f_(t, q, v, lambda); }
  /// nullptr for an empty Observer, else this.
  StateObserver* ifSet() { return f_ ? this : nullptr; }

 private:
  const Observer& f_;
};

class RunRecorder {
 public:
  /// `observer` may be nullptr (nothing observes); it must outlive the recorder.
  RunRecorder(const ConstrainedSystem& system, const SimulationOptions& options, StateObserver* observer,
              const State& initial);
  /// The same with an Observer (empty: nothing observes).
  RunRecorder(const ConstrainedSystem& system, const SimulationOptions& options, const Observer& observer,
              const State& initial)
      : RunRecorder(system, options, static_cast<StateObserver*>(nullptr), initial) {
    adapter_.emplace(observer);
    observer_ = adapter_->ifSet();
  }
  RunRecorder(const RunRecorder&) = delete;  // observer_ may point into adapter_
  RunRecorder& operator=(const RunRecorder&) = delete;

  /// The driver is now on step (or output interval) k: what a failure, a warning or an exception
  /// is attributed to. 0 is the initial state.
  void beginStep(long k) { current_step_ = k; }
  long currentStep() const { return current_step_; }

  /// True once SimulationOptions::interrupt reads true.
  bool interruptRequested() const {
    return interrupt_ != nullptr && interrupt_->load(std::memory_order_relaxed);
  }
  /// Ends the run as Interrupted before the current step.
  Summary finishInterrupted();
  /// Ends the run as Interrupted inside the current output interval, where the adaptive solver's
  /// callback found the flag set (its own time `t_solver`); the last output stays the last state.
  Summary finishInterrupted(double t_solver);

  /// Sets the divergence rule's scales (Q, V, E_s, E₀) from the state the run starts from, after
  /// any initial projection. Evaluates the model's M, T and V (may throw what the model throws);
  /// until it is called only the position rules hold, with Q from the initial q.
  void armDivergence(const State& start) {
    divergence_ = DivergenceRule(divergence_options_, system_, start, energy_rule_);
  }
  /// Counts WarningKind::OffManifoldStart when the start held in `ws` (φ, φ̇ and J at the state
  /// armDivergence() was given) lies further from the manifold, or leaves it faster, than 1e-6
  /// of the start's scales Q and V.
  void noteStart(double t, const KktWorkspace& ws);
  /// Plausible while (q, ws) is, else the position rule that fired (divergence.hpp); builds no
  /// text, so that the drivers can ask after every step. The runaway rules are runawayAfterStep()'s.
  DivergenceVerdict divergence(ConstVectorRef q, const KktWorkspace& ws) const { return divergence_.test(q, ws); }
  /// divergence() with ‖q‖∞ already known.
  DivergenceVerdict divergence(double q_inf, const KktWorkspace& ws) const { return divergence_.test(q_inf, ws); }
  /// Every rule at (t, q, q̇), `ws` holding φ, φ̇ and J there: what the adaptive drivers ask at an output.
  DivergenceVerdict divergence(double t, ConstVectorRef q, ConstVectorRef v, const KktWorkspace& ws) const {
    const DivergenceVerdict verdict = divergence_.test(q, ws);
    if (verdict != DivergenceVerdict::Plausible) return verdict;
    return divergence_.testRunaway(system_, t, q, v, ws);
  }
  /// Whether the runaway rules are due after fixed step k of `steps` (every
  /// DivergenceOptions::runaway_check_every steps and at the last): one comparison on most steps,
  /// so that the driver builds no argument for runaway() there.
  bool runawayDue(long k, long steps) {
    if (k < next_runaway_step_ && k != steps) return false;
    next_runaway_step_ = k + divergence_options_.runaway_check_every;
    return divergence_options_.enabled;
  }
  /// The runaway rules at (t, q, q̇), `ws` holding φ̇ and J there.
  DivergenceVerdict runaway(double t, ConstVectorRef q, ConstVectorRef v, const KktWorkspace& ws) const {
    return divergence_.testRunaway(system_, t, q, v, ws);
  }
  /// Ends the run as Diverged at the current step, time t, saying which rule fired on (q, q̇, ws).
  Summary finishDiverged(double t, DivergenceVerdict verdict, ConstVectorRef q, ConstVectorRef v,
                         const KktWorkspace& ws);
  /// finishDiverged()'s message without finishing: "diverged at step k (t = …): " and the rule's
  /// words (the Simulator, which fails but keeps its record).
  std::string describeDivergence(double t, DivergenceVerdict verdict, ConstVectorRef q, ConstVectorRef v,
                                 const KktWorkspace& ws) const;

  /// Records the constraint violation held in `ws` (the terms of the state at time t) and hands
  /// the state to the observer.
  void observe(double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda, const KktWorkspace& ws,
               double rcond) {
    handOut(t, ws, rcond, [&](StateObserver& observer) { observer.observe(t, q, v, lambda); });
  }
  /// observe() with the run's own vectors: the observer's observeState(), no Ref built (the
  /// fixed-step driver, every step). Its own name: an overload would make calls with Eigen
  /// expressions ambiguous.
  void observeState(double t, const Vector& q, const Vector& v, const Vector& lambda, const KktWorkspace& ws,
               double rcond) {
    handOut(t, ws, rcond, [&](StateObserver& observer) { observer.observeState(t, q, v, lambda); });
  }

  /// True when the run has an observer: the adaptive drivers solve for λ at an output only then.
  bool hasObserver() const { return static_cast<bool>(observer_); }
  /// True when the run has an observer that reads λ (StateObserver::readsMultiplier()).
  bool observerReadsMultiplier() const { return observer_ != nullptr && observer_->readsMultiplier(); }

  /// As observe(), but only tracks the violation (a step whose state is not handed out).
  void track(double t, const KktWorkspace& ws, double rcond) {
    summary_.final_phi_inf = maxAbs(ws.phi.data(), ws.nc);
    summary_.final_phi_dot_inf = maxAbs(ws.phi_dot.data(), ws.nc);
    summary_.max_phi_inf = std::max(summary_.max_phi_inf, summary_.final_phi_inf);
    summary_.max_phi_dot_inf = std::max(summary_.max_phi_dot_inf, summary_.final_phi_dot_inf);
    if (!std::isnan(rcond)) summary_.min_rcond = std::min(summary_.min_rcond, rcond);
    summary_.t_final = t;
    if (summary_.final_phi_inf > warn_phi_inf_) countViolationWarning(t);
    if (rank_deficient_first_step_ < 0 && acceleration_ != nullptr && acceleration_->rankDeficiency().solves > 0) {
      rank_deficient_first_step_ = current_step_;
    }
  }

  Summary& summary() { return summary_; }
  const Summary& summary() const { return summary_; }  ///< the Summary so far

  /// The run's right-hand side: finish() copies its solve count and rank-deficiency log into the
  /// summary, or lets `fill_counters` set the counters (a stepper that counts its own solves).
  void attach(const AccelerationFunction& f, std::function<void(Summary&)> fill_counters = {}) {
    acceleration_ = &f;
    fill_counters_ = std::move(fill_counters);
    summary_.sparse = f.workspace().sparse;
  }

  /// Adds one post-step projection to the counters (a stalled one also as a warning).
  void countProjection(const ProjectionReport& report);

  /// Sets status, message, wall time; logs at debug; returns the finished Summary.
  Summary finish(RunStatus status, std::string message);

  /// Ends the run as ModelError for an exception that came out of the model, the controller or
  /// the observer during the current step; the counters so far are kept.
  Summary abort(const std::exception& error);

 private:
  // Always inlined: out of line (GCC's choice for the two call sites) it cost ten instructions a step.
  template <class Call>
  __attribute__((always_inline)) void handOut(double t, const KktWorkspace& ws, double rcond, Call call) {
    track(t, ws, rcond);
    ++summary_.outputs;
    if (observer_ != nullptr) {
      in_observer_ = true;
      call(*observer_);
      in_observer_ = false;
    }
  }
  template <class Detail>
  void countWarning(WarningKind kind, double t, Detail detail) {
    for (RunWarning& warning : summary_.warnings) {
      if (warning.kind == kind) {
        ++warning.count;
        return;
      }
    }
    summary_.warnings.push_back({kind, 1, current_step_, t, detail()});
  }
  void noteRankDeficiency(const RankDeficiencyLog& log);
  /// track()'s rare branch, out of line so that the per-step part stays small enough to inline.
  void countViolationWarning(double t);

  const ConstrainedSystem& system_;
  StateObserver* observer_;
  std::optional<FunctionObserver> adapter_;  // set by the Observer constructor
  const AccelerationFunction* acceleration_ = nullptr;
  const std::atomic<bool>* interrupt_ = nullptr;
  DivergenceOptions divergence_options_;
  bool energy_rule_;  // no controller feeds energy in
  DivergenceRule divergence_;
  long next_runaway_step_ = 1;  // runawayDue() sets it from the first step's check
  double warn_phi_inf_;
  RankDeficiencyPolicy policy_ = RankDeficiencyPolicy::Fail;
  std::chrono::steady_clock::time_point started_;
  long current_step_ = 0;
  long rank_deficient_first_step_ = -1;
  bool in_observer_ = false;
  std::function<void(Summary&)> fill_counters_;
  Summary summary_;
};

/// "; offending constraint rows [1, 2]" or "".
std::string describeRows(const std::vector<int>& rows);

/// The first non-finite entry of (q, v) as "q[3] = nan", or "".
std::string firstNonFinite(ConstVectorRef q, ConstVectorRef v);

/// Projects `state` when options.project_initial_state asks for it (or `force`), noting the move in
/// the summary's notes; returns false (and the failure message) if the projection failed.
bool projectInitialState(const ConstrainedSystem& system, State& state, const SimulationOptions& options,
                         Summary& summary, std::string& failure, bool force = false);

/// What simulate() and the Simulator refuse before they start, by name (std::invalid_argument):
/// invalid options, wrong sizes, a non-finite start, models that cannot run, and combinations of
/// integrator and options that cannot work (cvode_adams with projection, ida_index1 with soft
/// constraints, a rank-deficiency policy the integrator cannot honour).
void requireRunnable(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options);

/// The fixed-step integrator's setup from a run's options: what simulate() and Simulator build
/// their stepper from.
FixedStepperSetup fixedStepperSetup(const SimulationOptions& options);

/// The drivers, one per family (simulate() dispatches).
Summary simulateFixedStep(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options,
                          StateObserver* observer);
/// cvode_bdf, cvode_adams, ida_index1 and ida_ggl (sundials/adaptive_run.cpp).
Summary simulateAdaptive(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options,
                         const Observer& observer);

}  // namespace kktdae::detail
