#pragma once
// Ctrl-C during a run. Python's SIGINT handler only notes the signal; the KeyboardInterrupt is
// raised by the interpreter when it next runs bytecode on the main thread, which a C++ run (the
// GIL released, or held but with no Python to call for a whole CVODE interval) may not do for
// minutes. While a SigintBridge exists, a SIGINT also sets the flag the library polls
// (SimulationOptions::interrupt: every fixed step, every CVODE right-hand side and IDA residual),
// and still reaches Python's own handler. After the run, raiseIfSignalled() lets Python run its
// handler, and the default one raises KeyboardInterrupt there, in the caller.
#include <pybind11/pybind11.h>

#include <atomic>

namespace kktdae::python {
namespace py = pybind11;

class SigintBridge {
 public:
  /// Installs the bridge's handler in front of the current one, unless SIGINT is ignored or has
  /// its default action (which ends the process at once); bridges nest and may live on several
  /// threads at once (the first installs, the last restores).
  SigintBridge();
  ~SigintBridge();
  SigintBridge(const SigintBridge&) = delete;
  SigintBridge& operator=(const SigintBridge&) = delete;

  /// What to pass as SimulationOptions::interrupt (shared by the bridges alive: a SIGINT stops
  /// every run that is going on, as it interrupts the whole program). Cleared when the last
  /// bridge alive ends, so that it may stay in a Simulator's options between calls.
  const std::atomic<bool>* flag() const;
  /// True when a SIGINT arrived while a bridge was installed.
  bool signalled() const;
  /// When signalled(): runs Python's signal handlers (PyErr_CheckSignals, on the main thread) and,
  /// if one raises (the default raises KeyboardInterrupt), sets `result` as the exception's
  /// attribute `result` and throws it on. Needs the GIL.
  void raiseIfSignalled(py::handle result) const;
};

}  // namespace kktdae::python
