// The Simulator's calls into CVODE and IDA: the AdaptiveSolver simulate()'s adaptive driver uses
// (sundials/adaptive_solver.hpp), started as that driver starts it and called as it calls it for
// each output, so that advancing over simulate()'s output grid returns its states bit for bit.
#include <cmath>
#include <stdexcept>

#include "kktdae/core/checks.hpp"
#include "../sundials/initial_state.hpp"
#include "simulator_machinery.hpp"

namespace kktdae {

namespace {

bool isIda(Integrator integrator) { return integrator == Integrator::IdaIndex1 || integrator == Integrator::IdaGgl; }

}  // namespace

void Simulator::resetAdaptive(const State& state) {
  Machinery& m = *machinery_;
  const bool ggl = options_.integrator == Integrator::IdaGgl;
  // simulate()'s start: the projection (always for ida_ggl), the KKT solve for q̈ and λ, the
  // state recorded.
  State start = state;
  if (auto ended = detail::startAdaptiveRun(*system_, options_, *m.recorder, *m.f, m.physical, start, m.qdd, ggl,
                                            isIda(options_.integrator)
                                                ? std::string(toString(options_.integrator)) + ": "
                                                : std::string())) {
    state_ = state;
    fail(ended->status, ended->message);
    throw std::runtime_error("Simulator.reset: " + message_);
  }
  try {
    if (!m.solver) {
      m.solver = detail::makeAdaptiveSolver(*system_, m.options, *m.f, start, m.qdd, m.f->lambda(), *m.recorder,
                                            *m.events, m.setup);
    } else {
      m.solver->restart(start, m.qdd, m.f->lambda(), *m.recorder, *m.events);
    }
  } catch (const std::runtime_error& error) {  // AdaptiveSetupError, or SetupError from a restart
    state_ = start;
    fail(RunStatus::SolverFailure, error.what());
    throw std::runtime_error(std::string("Simulator.reset: ") + error.what());
  }
  state_ = start;
  // IDA's own λ is its algebraic unknown, the KKT solve's λ at the start.
  if (isIda(options_.integrator)) m.own_lambda = m.f->lambda();
}

double Simulator::nextGridTime() const {
  const double intervals = (state_.t - grid_origin_) / options_.dt;
  const double nearest = std::round(intervals);
  const bool on_grid = std::abs(intervals - nearest) <= 1e-9 * std::max(1.0, std::abs(nearest));
  const double k = on_grid ? nearest + 1.0 : std::floor(intervals) + 1.0;
  return grid_origin_ + k * options_.dt;
}

RunStatus Simulator::solveAdaptive(double t_out, bool one_step, bool stop) {
  if (options_.interrupt != nullptr && options_.interrupt->load(std::memory_order_relaxed)) {
    return RunStatus::Interrupted;
  }
  Machinery& m = *machinery_;
  const long k = calls_since_reset_ + 1;
  m.recorder->beginStep(k);
  before_step_.q = state_.q;  // the state kept if the divergence rules stop the call (no allocation)
  before_step_.v = state_.v;
  before_step_.t = state_.t;
  const detail::SolveOutcome outcome = m.solver->solve(t_out, one_step, stop, k);
  switch (outcome.end) {
    case detail::SolveOutcome::End::EventStop:
      calls_since_reset_ = k;
      return stopAtEvent();
    case detail::SolveOutcome::End::Failed:
      // An interrupt leaves the solver where its last step ended; the next call goes on from there.
      if (outcome.status == RunStatus::Interrupted) return RunStatus::Interrupted;
      return fail(outcome.status, outcome.message);
    case detail::SolveOutcome::End::Reached:
      break;
  }
  state_.t = outcome.t;
  state_.q = m.solver->q();
  state_.v = m.solver->v();
  lambda_current_ = false;
  if (const RunStatus diverged = testAdaptiveDivergence(); diverged != RunStatus::Success) return diverged;
  calls_since_reset_ = k;
  if (isIda(options_.integrator) && !m.physical.solves()) {
    // Copied now: after a failed call the solver's vector no longer holds this state.
    double rcond = 0.0;
    std::string failure;
    const Vector* own = m.solver->ownLambda(state_.t, rcond, failure);
    if (own == nullptr) return fail(RunStatus::KktFailure, failure);
    m.own_lambda = *own;
  }
  return RunStatus::Success;
}

RunStatus Simulator::testAdaptiveDivergence() {
  // Every rule at the state the call reached, as simulate() tests each output: φ, J and φ̇ there
  // (no KKT solve). When one fires, the state goes back to where the call started (the last good
  // one; the solver stays where it is until reset()).
  if (!options_.divergence.enabled) return RunStatus::Success;
  Machinery& m = *machinery_;
  std::string failure;
  RunStatus status = RunStatus::Diverged;
  std::string message;
  try {
    if (!m.f->evaluateConstraintTerms(state_.t, state_.q, state_.v, failure)) {
      status = RunStatus::KktFailure;
      message = "model terms failed at the output t = " + formatDouble(state_.t) + " s: " + failure;
    } else {
      const DivergenceVerdict verdict = m.recorder->divergence(state_.t, state_.q, state_.v, m.f->workspace());
      if (verdict == DivergenceVerdict::Plausible) return RunStatus::Success;
      message = m.recorder->describeDivergence(state_.t, verdict, state_.q, state_.v, m.f->workspace());
    }
  } catch (const std::exception& error) {  // the model's energy, outside SUNDIALS but on its behalf
    status = RunStatus::ModelError;
    message = std::string("the model failed testing the divergence rules at t = ") + formatDouble(state_.t) +
              " s: " + error.what();
  }
  state_.q = before_step_.q;
  state_.v = before_step_.v;
  state_.t = before_step_.t;
  return fail(status, message);
}

const Vector* Simulator::ownAdaptiveLambda(std::string& failure) {
  Machinery& m = *machinery_;
  if (isIda(options_.integrator)) return &m.own_lambda;
  // CVODE's own: the KKT solve with the run's stabilization at the state, as simulate()'s outputs
  // solve for it.
  const KktResult kkt = m.f->evaluate(state_.t, state_.q, state_.v, m.qdd);
  if (!kkt.ok()) {
    failure = "KKT solve failed (" + std::string(toString(kkt.status)) + ") at t = " + formatDouble(state_.t) +
              " s: " + kkt.message + detail::describeRows(kkt.offending_rows);
    return nullptr;
  }
  m.own_lambda = m.f->lambda();
  return &m.own_lambda;
}

}  // namespace kktdae
