#include "python_errors.hpp"

#include <utility>

namespace kktdae::python {
namespace {

/// Per thread: a run that calls Python does so on the thread that started it (it holds the GIL).
thread_local PythonErrorScope* innermost = nullptr;

/// The exception instance `error` holds, with its traceback attached: Python attaches it when an
/// except clause catches the exception, and this one was caught by pybind11 instead.
py::object exceptionOf(const py::error_already_set& error) {
  py::object value = error.value();
  if (value && error.trace()) PyException_SetTraceback(value.ptr(), error.trace().ptr());
  return value;
}

}  // namespace

PythonErrorScope::PythonErrorScope() : outer_(innermost) { innermost = this; }

PythonErrorScope::~PythonErrorScope() { innermost = outer_; }

void PythonErrorScope::note(py::object exception) {
  if (!exception) return;
  if (!must_raise_ && mustPropagate(exception)) must_raise_ = exception;
  latest_ = std::move(exception);
}

bool mustPropagate(py::handle exception) {
  return PyErr_GivenExceptionMatches(exception.ptr(), PyExc_KeyboardInterrupt) != 0 ||
         PyErr_GivenExceptionMatches(exception.ptr(), PyExc_SystemExit) != 0 ||
         PyErr_GivenExceptionMatches(exception.ptr(), PyExc_MemoryError) != 0;
}

void notePythonError(const py::error_already_set& error) {
  if (innermost != nullptr) innermost->note(exceptionOf(error));
}

void notePythonError(const py::builtin_exception& error) {
  if (innermost == nullptr) return;
  error.set_error();                   // the Python exception pybind11 would raise for it ...
  const py::error_already_set raised;  // ... fetched back as an object
  innermost->note(exceptionOf(raised));
}

void raisePython(py::handle exception) {
  PyObject* trace = PyException_GetTraceback(exception.ptr());  // a new reference, or null
  PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(exception.ptr()));
  Py_INCREF(type);
  Py_INCREF(exception.ptr());
  PyErr_Restore(type, exception.ptr(), trace);  // steals the three references
  throw py::error_already_set();
}

}  // namespace kktdae::python
