#pragma once
// CVODE and IDA behind one object (internal header): what simulate()'s adaptive driver
// (adaptive_run.cpp) and the Simulator (simulate/simulator_adaptive.cpp) both step. An
// AdaptiveSolver owns the SUNDIALS memory, its vectors and linear solvers and the callbacks' data;
// it is set up once from the run's options (makeAdaptiveSolver) and restarted at a new state
// (CVodeReInit / IDAReInit). No SUNDIALS header here: the solvers live in cvode_solver.cpp and
// ida_solver.cpp.

#include <memory>
#include <stdexcept>
#include <string>

#include "kktdae/core/state.hpp"
#include "kktdae/integrators/acceleration_function.hpp"
#include "kktdae/kkt/kkt_result.hpp"
#include "kktdae/simulate/simulate.hpp"

namespace kktdae::detail {

class RunRecorder;
struct SundialsEvents;

/// How one AdaptiveSolver::solve() call ended.
struct SolveOutcome {
  enum class End {
    Reached,    ///< at the time asked for (or the internal step's end): q(), v() hold the state
    EventStop,  ///< a stop event fired at the root t (Summary::events' last entry holds its state)
    Failed,     ///< the solver gave up: status and message say why; the state is the last returned
  };
  End end = End::Reached;
  /// Reached: the state's time. EventStop: the root's. Failed with RunStatus::Interrupted: the
  /// solver's own time when the callback found the flag.
  double t = 0.0;
  RunStatus status = RunStatus::Success;  ///< Failed: the failure
  std::string message;                    ///< Failed: what, where and when
};

/// The data every right-hand side and residual shares with the run: its model function, where it
/// records a failure (exceptions must not unwind through SUNDIALS' C frames) and what it polls.
struct CallbackState {
  AccelerationFunction* f = nullptr;
  RunRecorder* recorder = nullptr;  ///< whose interrupt flag the callbacks poll (and CVODE counts projections in)
  SundialsEvents* events = nullptr;  ///< SimulationOptions::events (sundials_events.hpp)
  int nq = 0;
  long evaluations = 0;  ///< right-hand sides (CVODE) or residuals (IDA)
  /// The first KKT failure that ended the run, with its time (status Ok if none).
  KktResult failure;
  double failure_time = 0.0;
  bool model_threw = false;  ///< the failure is an exception from the model or controller
  bool interrupted = false;  ///< a callback found SimulationOptions::interrupt set
  std::string projection_failure;  ///< CVODE: why the last projection failed, if one did

  /// Forgets the failures and the evaluations counted (a restart).
  void clear() {
    evaluations = 0;
    failure = KktResult{};
    failure_time = 0.0;
    model_threw = false;
    interrupted = false;
    projection_failure.clear();
  }
};

class AdaptiveSolver {
 public:
  virtual ~AdaptiveSolver() = default;

  /// Goes toward `t_out`: to it (interpolated unless `stop`), or, with `one_step`, one internal
  /// step (t_out then only sets the first step's scale and, with `stop`, the stop time). `stop`
  /// sets t_out as the stop time: no step goes beyond it. Roots found on the way fire through
  /// the events (their step index `k`); a non-stop one is stepped past. Never throws for
  /// numerical trouble (Failed).
  SolveOutcome solve(double t_out, bool one_step, bool stop, long k);
  /// Starts again at `start` (CVodeReInit / IDAReInit): `qdd` is q̈ there and `lambda` λ (IDA's
  /// consistent initial values), `recorder` and `events` what the callbacks use from now on.
  /// The counters SUNDIALS keeps start again from zero. Throws SetupError on a failed call.
  virtual void restart(const State& start, ConstVectorRef qdd, ConstVectorRef lambda, RunRecorder& recorder,
                       SundialsEvents& events) = 0;

  /// The state solve() last returned (q, q̇), or the start: views of the solver's vector.
  virtual Eigen::Map<const Vector> q() const = 0;
  virtual Eigen::Map<const Vector> v() const = 0;  ///< see q()
  /// The integrator's own λ at that state, time t, with the constraint terms there left in the
  /// right-hand side's workspace: CVODE's is a KKT solve with the run's stabilization (its
  /// reciprocal condition into `rcond`), IDA's its algebraic unknown (rcond NaN). nullptr when
  /// the model's terms or the solve failed, `failure` saying so.
  virtual const Vector* ownLambda(double t, double& rcond, std::string& failure) = 0;
  /// The solver's counters into the Summary (steps, evaluations, Jacobians, failures, last step).
  virtual void fillStatistics(Summary& summary) const = 0;

 protected:
  explicit AdaptiveSolver(CallbackState& callbacks) : callbacks_(callbacks) {}
  CallbackState& callbacks_;
  double t_last_ = 0.0;  ///< the time of the state last returned

 private:
  // The few calls that differ between CVODE and IDA; solve() is the rest.
  virtual int setStopTime(double t) = 0;
  virtual int call(double t_out, bool one_step, double& t_reached) = 0;  ///< CVode / IDASolve
  virtual int rootReturn() const = 0;                                    ///< CV_ROOT_RETURN / IDA_ROOT_RETURN
  virtual bool rootReturned(long k, double t) = 0;  ///< fires the roots found; true when one stops
  virtual bool rootAtOutput(double t_root, double t_out) = 0;
  virtual double currentTime(double fallback) = 0;
  virtual double lastStep() = 0;
  virtual const char* solverName() const = 0;  ///< "CVODE" / "IDA", as messages name it
  virtual const char* callName() const = 0;    ///< "CVode" / "IDASolve"
  virtual std::string stopTimeCall() const = 0;  ///< "CVodeSetStopTime" / "IDASetStopTime"
  virtual std::string flagName(int flag) const = 0;
  virtual std::string takeErrorLog() = 0;  ///< SUNDIALS' last message, before a statistics call can add one
};

/// Thrown (as a std::runtime_error) when the solver cannot be set up: "CVODE setup failed: …".
struct AdaptiveSetupError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The stabilization of the right-hand side or residual: ida_ggl uses none (GGL holds φ and φ̇).
Stabilization adaptiveLaw(const SimulationOptions& options);
/// What the run notes before it starts (a stabilization ida_ggl ignores, no projection after IDA
/// steps), appended to `notes`.
void noteAdaptiveSetup(const SimulationOptions& options, std::string& notes);

/// The solver of options.integrator (cvode_bdf, cvode_adams, ida_index1, ida_ggl) at `start`,
/// with `qdd` and `lambda` the KKT solve's there; `f` the right-hand side (adaptiveLaw()),
/// `recorder` and `events` what its callbacks use (restart() changes them); Summary::linear_solver
/// and notes of `summary` say what it chose. Throws AdaptiveSetupError.
std::unique_ptr<AdaptiveSolver> makeAdaptiveSolver(const ConstrainedSystem& system, const SimulationOptions& options,
                                                   AccelerationFunction& f, const State& start, ConstVectorRef qdd,
                                                   ConstVectorRef lambda, RunRecorder& recorder,
                                                   SundialsEvents& events, Summary& summary);
/// The two halves of makeAdaptiveSolver() (cvode_solver.cpp, ida_solver.cpp).
std::unique_ptr<AdaptiveSolver> makeCvodeSolver(const ConstrainedSystem& system, const SimulationOptions& options,
                                                AccelerationFunction& f, const State& start, RunRecorder& recorder,
                                                SundialsEvents& events, Summary& summary);
std::unique_ptr<AdaptiveSolver> makeIdaSolver(const ConstrainedSystem& system, const SimulationOptions& options,
                                              AccelerationFunction& f, const State& start, ConstVectorRef qdd,
                                              ConstVectorRef lambda, RunRecorder& recorder, SundialsEvents& events,
                                              Summary& summary);

}  // namespace kktdae::detail
