#include "kktdae/simulate/simulate.hpp"

#include "kktdae/core/checks.hpp"
#include "run_recorder.hpp"

#include <algorithm>
#include <cmath>

namespace kktdae {
namespace {

/// What makes a model unable to run, found before the first step: each of these would otherwise
/// surface mid-run as a misleading numerical failure, or not at all.
void requireRunnableModel(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options) {
  if (options.controller && system.nu() == 0) {
    throwInvalid("controller", "given, but " + system.name() + " has no inputs (nu() = 0): it would never be called");
  }
  // The defaults of massDiagonal() and inputMap() throw std::logic_error when a model needed to
  // override them; ask once here so the user hears it as a mistake in the model, not mid-run.
  try {
    if (system.massStructure() != MassStructure::General) {
      Vector diagonal(system.nq());
      system.massDiagonal(initial.q, diagonal);
    }
    if (system.nu() > 0) {
      Matrix S(system.nu(), system.nq());
      system.inputMap(initial.q, initial.t, S);
    }
  } catch (const std::logic_error& error) {
    if (dynamic_cast<const std::invalid_argument*>(&error) != nullptr) throw;
    throwInvalid("system", error.what());
  }
}

void requireValidEnums(const SimulationOptions& options) {
  const auto& all = allIntegrators();
  if (std::find(all.begin(), all.end(), options.integrator) == all.end()) {
    throwInvalid("integrator", "is not an Integrator value (" + std::to_string(static_cast<int>(options.integrator)) + ")");
  }
}

}  // namespace

void SimulationOptions::validate() const {
  requireValidEnums(*this);
  requirePositive("dt", dt);
  if (steps && end_time) {
    throwInvalid("steps", "and end_time are both given (" + std::to_string(*steps) + " steps, end_time " +
                              formatDouble(*end_time) + " s): give one");
  }
  if (steps && *steps < 0) throwInvalid("steps", "must be >= 0, got " + std::to_string(*steps));
  if (end_time && !std::isfinite(*end_time)) throwInvalid("end_time", "must be finite, got " + formatDouble(*end_time));
  if (observe_every < 1) throwInvalid("observe_every", "must be >= 1, got " + std::to_string(observe_every));
  if (!(warn_phi_inf > 0.0)) throwInvalid("warn_phi_inf", "must be > 0, got " + formatDouble(warn_phi_inf));
  stabilization.validate();
  kkt.validate();
  projection.validate();
  divergence.validate();
  validateEvents(events);
}

long SimulationOptions::gridSteps(double t0) const {
  constexpr long kDefaultSteps = 1000;
  long count = steps.value_or(kDefaultSteps);
  if (end_time) {
    if (!(*end_time > t0)) {
      throwInvalid("end_time", "must be later than the initial time " + formatDouble(t0) + ", got " + formatDouble(*end_time));
    }
    const double intervals = (*end_time - t0) / dt;
    if (!(intervals < 9e18)) {
      throwInvalid("end_time", formatDouble(*end_time) + " s at dt " + formatDouble(dt) + " s needs " +
                                   formatDouble(intervals) + " steps: more than a run can count");
    }
    // An end time meant to be on the grid ((end − t0)/dt = 4000.0000000001) takes no sliver step.
    const double nearest = std::round(intervals);
    count = std::abs(intervals - nearest) <= 1e-9 * std::max(1.0, nearest) ? static_cast<long>(nearest)
                                                                            : static_cast<long>(std::ceil(intervals));
    count = std::max(count, 1L);
  }
  const double last = t0 + static_cast<double>(count) * dt;
  if (!std::isfinite(last)) {
    throwInvalid("dt", formatDouble(dt) + " s x " + std::to_string(count) + " steps from t0 = " + formatDouble(t0) +
                           " s overflows the time axis");
  }
  return count;
}

namespace {

/// KktOptions::rank_deficiency acts where the integrator solves J M⁻¹ Jᵀ (or the KKT block)
/// itself: the explicit methods, CVODE's right-hand side, RATTLE's constraint space. The implicit
/// methods' Newton matrices couple the constraint rows to the whole step ([M + β′K, −Jᵀ; J, 0],
/// IDA's residual Jacobian), which a dependent row makes singular however λ is chosen: refused
/// up front, by name, instead of failing at the first Newton step.
void requirePolicyIntegrator(const SimulationOptions& options) {
  switch (options.integrator) {
    case Integrator::GeneralizedAlpha:
    case Integrator::Hht:
    case Integrator::IdaIndex1:
    case Integrator::IdaGgl:
      throwInvalid("kkt.rank_deficiency",
                   std::string(toString(options.integrator)) + " cannot honour " +
                       std::string(toString(options.kkt.rank_deficiency)) +
                       ": its Newton matrix couples the constraint rows to the whole step and is singular where "
                       "they are dependent, whatever lambda is chosen. Remove the redundant rows, or run an "
                       "integrator that applies the policy to each solve (euler, semi_implicit, rk4, rattle, "
                       "cvode_bdf, cvode_adams)");
    default:
      return;
  }
}

}  // namespace

namespace detail {

void requireRunnable(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options) {
  options.validate();
  checkDimensions(system);
  checkStateSizes(system, initial.q, initial.v);
  requireRunnableModel(system, initial, options);
  requireFinite("initial.t", Eigen::Matrix<double, 1, 1>::Constant(initial.t));
  requireFinite("initial.q", initial.q);
  requireFinite("initial.v", initial.v);
  if (isAdaptive(options.integrator)) options.adaptive.validate(system.nq());
  if (options.integrator == Integrator::CvodeAdams && options.stabilization.project_after_step) {
    throwInvalid("stabilization.project_after_step",
                 "cvode_adams cannot project after steps: SUNDIALS projects with BDF methods only (use cvode_bdf)");
  }
  if (options.kkt.rank_deficiency != RankDeficiencyPolicy::Fail) requirePolicyIntegrator(options);
  if (options.integrator == Integrator::IdaIndex1 && options.stabilization.kind == Stabilization::Kind::Soft) {
    throwInvalid("stabilization.kind", "soft constraints need the regularized solve; ida_index1 enforces its "
                                       "constraint row exactly (use a fixed-step integrator or CVODE)");
  }
}

}  // namespace detail

namespace {

// Both simulate() overloads: `observer` is what the adaptive drivers call; the fixed-step driver
// calls `object` when given (the StateObserver overload, whose `observer` forwards to it) and
// `observer` behind the StateObserver interface otherwise.
Summary simulateChecked(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options,
                        const Observer& observer, StateObserver* object) {
  detail::requireRunnable(system, initial, options);
  options.gridSteps(initial.t);  // throws for an end time before t0 or a grid that overflows
  try {
    switch (options.integrator) {
      case Integrator::CvodeBdf:
      case Integrator::CvodeAdams:
      case Integrator::IdaIndex1:
      case Integrator::IdaGgl:
        return detail::simulateAdaptive(system, initial, options, observer);
      default: {
        if (object != nullptr) return detail::simulateFixedStep(system, initial, options, object);
        detail::FunctionObserver adapter(observer);
        return detail::simulateFixedStep(system, initial, options, adapter.ifSet());
      }
    }
  } catch (const std::invalid_argument&) {
    throw;  // a programming error in the call, reported as such
  } catch (const std::bad_alloc&) {
    // Not the run's numerical trouble but the machine's: the caller decides (an app reports it
    // with its memory estimate and exits 1; a status would read as the method's failure).
    throw;
  } catch (const std::exception& error) {
    // The drivers turn exceptions from the model and observer into ModelError themselves; what
    // reaches here came from setting the run up (a workspace the model's sizes make impossible).
    Summary summary;
    summary.integrator = options.integrator;
    summary.form = options.kkt.form;
    summary.t_final = initial.t;
    summary.failed_step = 0;
    summary.status = RunStatus::SolverFailure;
    summary.message = std::string("the run could not be set up: ") + error.what();
    return summary;
  }
}

}  // namespace

Summary simulate(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options,
                 const Observer& observer) {
  return simulateChecked(system, initial, options, observer, nullptr);
}

Summary simulate(const ConstrainedSystem& system, const State& initial, const SimulationOptions& options,
                 StateObserver& observer) {
  // Small enough for std::function's in-place storage: no allocation.
  const Observer forward = [&observer](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef lambda) {
    observer.observe(t, q, v, lambda);
  };
  return simulateChecked(system, initial, options, forward, &observer);
}

}  // namespace kktdae
