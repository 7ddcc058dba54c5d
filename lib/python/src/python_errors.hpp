#pragma once
// Python exceptions that pass through a C++ run. The library ends a run with a failed status for
// any exception from the model, observer, controller or an event (it must not unwind through
// SUNDIALS' C frames), and keeps only its text; checkModel() turns one into a finding. A
// PythonErrorScope, open around such a call, keeps the exception object itself, so that the
// binding can afterwards raise KeyboardInterrupt, SystemExit and MemoryError as themselves and
// hand any other one to the caller with its type and traceback (SimulationResult.exception).
#include <pybind11/pybind11.h>

namespace kktdae::python {
namespace py = pybind11;

class PythonErrorScope {
 public:
  /// Becomes this thread's innermost scope: Python exceptions noted on this thread go here.
  PythonErrorScope();
  ~PythonErrorScope();
  PythonErrorScope(const PythonErrorScope&) = delete;
  PythonErrorScope& operator=(const PythonErrorScope&) = delete;

  /// Keeps `exception` (an exception instance, its traceback attached): the first one that must
  /// never become a status (see mustPropagate()), else the latest. Needs the GIL.
  void note(py::object exception);
  /// The first exception noted that must propagate, or an empty object.
  const py::object& mustRaise() const { return must_raise_; }
  /// The latest exception noted, or an empty object.
  const py::object& latest() const { return latest_; }

 private:
  PythonErrorScope* outer_;
  py::object must_raise_, latest_;
};

/// KeyboardInterrupt, SystemExit and MemoryError: what a user stops a program with, or what the
/// interpreter cannot go on after. They leave a run as themselves, not as a failed status.
bool mustPropagate(py::handle exception);

/// Notes the Python exception `error` holds in this thread's innermost scope (none open: nothing).
/// Needs the GIL.
void notePythonError(const py::error_already_set& error);
/// The same for an exception the bindings raise on Python's behalf (a wrongly shaped return).
void notePythonError(const py::builtin_exception& error);

/// Calls `call`, which calls Python under the GIL, noting a Python exception that leaves it before
/// letting it go on: the run that catches it then ends, and the binding still has the object.
template <typename Call>
decltype(auto) notingPythonErrors(Call&& call) {
  try {
    return call();
  } catch (const py::error_already_set& error) {
    notePythonError(error);
    throw;
  } catch (const py::builtin_exception& error) {
    notePythonError(error);
    throw;
  }
}

/// Raises `exception` (an instance, with its traceback) in the calling Python code: sets Python's
/// error indicator and throws py::error_already_set. Needs the GIL.
[[noreturn]] void raisePython(py::handle exception);

}  // namespace kktdae::python
