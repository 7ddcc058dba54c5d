#pragma once
/// @file
/// The fixed-step contract: a stepper object that owns its right-hand side and workspace, is
/// reset at the initial state, and reports per step what it solved. Explicit methods (Euler,
/// semi-implicit Euler, RK4) wrap their stateless step functions (fixed_steppers.hpp); methods
/// that carry state across steps or solve at the new state themselves (RATTLE) implement it
/// directly. One driver (simulate()) runs them all.

#include <memory>
#include <string>

#include "kktdae/core/state.hpp"
#include "kktdae/integrators/acceleration_function.hpp"
#include "kktdae/integrators/integrator.hpp"
#include "kktdae/integrators/generalized_alpha_options.hpp"
#include "kktdae/integrators/rattle_options.hpp"

namespace kktdae {

/// What one call of FixedStepper::reset(), step() or settle() did.
struct StepReport {
  /// The first failed KKT solve or model evaluation (with the stage or iteration in its
  /// message); Ok otherwise.
  KktResult kkt;
  /// A Newton iteration did not converge (iteration cap, or a non-decreasing residual):
  /// `message` says which and with what residual. kkt is Ok then.
  bool newton_failed = false;
  int newton_iterations = 0;   ///< Newton iterations this call took (0 for explicit methods)
  double newton_residual = 0;  ///< ‖residual‖∞ at the last Newton iteration [units of φ]
  std::string message;         ///< why the Newton failed; empty otherwise

  bool ok() const { return kkt.ok() && !newton_failed; }  ///< the KKT solve and any Newton succeeded
};

/// A fixed-step integrator with a lifetime of one run. Not thread-safe; the system must outlive it.
///
/// The driver calls reset(initial) once, then for every step: step(state, dt), the driver's own
/// bookkeeping (grid time, finiteness, projection after the step), settle(state). After reset()
/// and settle(), lambda() and terms() describe that state.
class FixedStepper {
 public:
  virtual ~FixedStepper() = default;

  /// Prepares a run at the initial state (what the first step needs, the observer's λ there).
  virtual StepReport reset(const State& state) = 0;
  /// Advances state by dt (state.t included). On failure the state is unspecified: the driver
  /// stops and keeps what it observed before.
  virtual StepReport step(State& state, double dt) = 0;
  /// Called with the state the step reached, after the driver set its grid time and possibly
  /// projected it: evaluates what the observer and the next step need there.
  virtual StepReport settle(const State& state) = 0;

  /// The multiplier handed to the observer at the last reset()/settled state, size nc. What it
  /// means differs by method (documented on each; for explicit methods λ of the KKT solve there).
  virtual const Vector& lambda() const = 0;
  /// True when lambda() is the KKT solve's multiplier at the settled state, so that others
  /// (events) may use it instead of solving again; false when it means something else (RATTLE's
  /// impulse average) or is not known to be that.
  virtual bool lambdaIsKktSolve() const { return false; }
  /// The model terms at the last reset()/settled state: phi and phi_dot there are what the
  /// Summary's violation maxima record.
  virtual const KktWorkspace& terms() const = 0;
  /// The run's right-hand side (its solve counter and rank-deficiency log).
  virtual const AccelerationFunction& accelerationFunction() const = 0;

  /// Linear solves made so far (KKT solves and, for implicit methods, constraint-space solves).
  virtual long solves() const = 0;
  /// Model evaluations so far (KKT stages, or terms and constraint evaluations).
  virtual long modelEvaluations() const = 0;
  /// Newton iterations over all steps so far (0 for explicit methods).
  virtual long newtonIterations() const { return 0; }
  /// Where the method did not use what it was given (e.g. "rattle ignores Baumgarte"); empty
  /// when nothing to say. Ends with ". " when not empty.
  virtual std::string notes() const { return {}; }
  /// What happened during the run that the Summary's notes should say (e.g. halved steps), read
  /// once when the run ends; empty when nothing to say. Ends with ". " when not empty.
  virtual std::string runNotes() const { return {}; }
  /// Newton-matrix evaluations (derivative terms) so far; 0 for methods without one.
  virtual long jacobianEvaluations() const { return 0; }
  /// Factorizations of the Newton matrix so far; 0 for methods without one.
  virtual long factorizations() const { return 0; }
};

/// What makeFixedStepper() needs besides the system.
struct FixedStepperSetup {
  Integrator integrator = Integrator::SemiImplicitEuler;  ///< a fixed-step integrator
  Stabilization stabilization = Stabilization::none();  ///< the run's stabilization
  KktOptions kkt;         ///< options of the KKT solves
  Controller controller;  ///< u(t, q, q̇); empty: u = 0
  RattleOptions rattle;  ///< Integrator::Rattle only
  GeneralizedAlphaOptions generalized_alpha;  ///< Integrator::GeneralizedAlpha and Integrator::Hht only
};

/// The stepper for setup.integrator. Throws std::invalid_argument for an adaptive integrator,
/// invalid options, or a model the method cannot handle (RATTLE: a q-dependent M).
std::unique_ptr<FixedStepper> makeFixedStepper(const ConstrainedSystem& system, FixedStepperSetup setup);

}  // namespace kktdae
