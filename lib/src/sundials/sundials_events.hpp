#pragma once
// SimulationOptions::events in CVODE and IDA through their root finding (internal header). The
// drivers keep one SundialsEvents per run and call these from small hooks: the root function
// reads g at SUNDIALS' (t, y), a CV_ROOT_RETURN / IDA_ROOT_RETURN fires what it found.

#include <cvodes/cvodes.h>
#include <idas/idas.h>

#include <string>
#include <vector>

#include "../simulate/event_runner.hpp"

namespace kktdae::detail {

struct SundialsEvents {
  SundialsEvents(const ConstrainedSystem& system, const SimulationOptions& options, const Stabilization& stabilization,
                 Summary& summary)
      : runner(system, options, stabilization, summary),
        nq(system.nq()),
        nc(system.nc()),
        found(static_cast<std::size_t>(runner.components()), 0),
        lambda(system.nc()) {}

  bool active() const { return runner.active(); }

  EventRunner runner;
  int nq, nc;
  /// IDA: the events read IDA's algebraic λ from y (ObservedMultiplier::Method) instead of
  /// solving for the physical one.
  bool own_lambda = true;
  std::vector<int> found;  // SUNDIALS' root info at the last root return
  Vector lambda;           // IDA's λ copied out of y
  /// Why a root-function call failed (an exception must not unwind through SUNDIALS' C frames);
  /// empty when none did.
  std::string failure;
};

/// Registers the events with CVODE (CVodeRootInit, directions, no warning for a g that is zero at
/// t0: it is inactive there by design). Throws SetupError on a failed call.
void initCvodeEvents(void* memory, SundialsEvents& events, CVRootFn roots);
/// Registers the events with IDA, as initCvodeEvents().
void initIdaEvents(void* memory, SundialsEvents& events, IDARootFn roots);

/// The body of CVODE's root function for y = (q, v): λ from a KKT solve at (t, q, v). Returns 0,
/// or −1 after an exception (kept in events.failure).
int cvodeEventRoots(SundialsEvents& events, double t, N_Vector y, double* gout);
/// The body of IDA's root function for y = (q, v, λ, …): λ is IDA's own (events.own_lambda) or
/// a KKT solve at (t, q, v).
int idaEventRoots(SundialsEvents& events, double t, N_Vector y, double* gout);

/// After CV_ROOT_RETURN at (t, y) in output interval k: fires the roots found, in component
/// order. True when one of them stops the run (then events.runner.finishStopped()).
bool cvodeRootReturned(void* memory, SundialsEvents& events, long k, double t, N_Vector y);
/// After IDA_ROOT_RETURN, as cvodeRootReturned().
bool idaRootReturned(void* memory, SundialsEvents& events, long k, double t, N_Vector y);

/// True when a root at t_root is within SUNDIALS' own root tolerance, 100 ε (|t| + |h|), of the
/// output time t_out: the root's state then stands for the output (calling CVode for t_out again
/// would return the same root, forever).
bool cvodeRootAtOutput(void* memory, double t_root, double t_out);
/// The same for IDA.
bool idaRootAtOutput(void* memory, double t_root, double t_out);

}  // namespace kktdae::detail
