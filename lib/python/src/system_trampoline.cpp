#include "system_trampoline.hpp"

#include "arrays.hpp"
#include "python_errors.hpp"

#include <utility>
#include <vector>

namespace kktdae::python {
namespace {
/// The (model, method) calls running on this thread, innermost last: what makes a super() call
/// from inside a Python method reach the C++ base. Per thread, because Python threads may run
/// the same model at once and switch inside a method.
thread_local std::vector<std::pair<const void*, int>> active_calls;

/// "float 6.0": how a message names what a method returned.
std::string describeReturned(py::handle value) {
  return std::string(py::str(py::type::handle_of(value).attr("__name__"))) + " " + std::string(py::repr(value));
}

/// f() converted to T, a Python exception on the way noted for the run (python_errors.hpp). A
/// value of another type is a TypeError naming the method, the type it must return and what it
/// returned ("Model.nq() must return int, got float 6.0"), not pybind11's "Unable to cast".
template <typename T>
T callNoting(const py::function& f, const std::string& method, const char* expected) {
  return notingPythonErrors([&] {
    const py::object value = f();
    try {
      return py::cast<T>(value);
    } catch (const py::cast_error&) {
      throw py::type_error(method + "() must return " + expected + ", got " + describeReturned(value));
    }
  });
}
}  // namespace

py::handle PyConstrainedSystem::self() const {
  if (!self_) {
    self_ = py::detail::get_object_handle(static_cast<const ConstrainedSystem*>(this),
                                          py::detail::get_type_info(typeid(ConstrainedSystem)))
                .ptr();
  }
  return self_;
}

py::handle PyConstrainedSystem::lookup(Method id, const char* name) const {
  MethodSlot& slot = methods_[static_cast<std::size_t>(id)];
  if (!slot.looked_up) {
    py::object own = py::getattr(py::type::handle_of(self()), name, py::none());
    py::object base = py::getattr(py::type::of<ConstrainedSystem>(), name, py::none());
    if (!own.is_none() && !own.is(base)) slot.function = std::move(own);
    slot.looked_up = true;
  }
  if (!slot.function) return {};
  for (const auto& call : active_calls) {
    if (call.first == this && call.second == static_cast<int>(id)) return {};
  }
  return slot.function;
}

py::handle PyConstrainedSystem::requiredMethod(Method id, const char* name) const {
  const py::handle f = lookup(id, name);
  if (!f) throw py::type_error(where(name) + " is not defined: a ConstrainedSystem subclass must define it");
  return f;
}

template <typename... Args>
py::object PyConstrainedSystem::invoke(Method id, py::handle function, Args&&... args) const {
  active_calls.emplace_back(this, static_cast<int>(id));
  struct Pop {
    ~Pop() { active_calls.pop_back(); }
  } pop;
  return notingPythonErrors([&] { return function(self(), std::forward<Args>(args)...); });
}

py::function PyConstrainedSystem::override(const char* name) const {
  return py::get_override(static_cast<const ConstrainedSystem*>(this), name);
}

std::string PyConstrainedSystem::where(const char* method) const {
  const py::handle self = py::detail::get_object_handle(this, py::detail::get_type_info(typeid(ConstrainedSystem)));
  const std::string type = self ? std::string(py::str(py::type::handle_of(self).attr("__name__"))) : "ConstrainedSystem";
  return type + "." + method;
}

template <typename Out>
void PyConstrainedSystem::store(const py::object& value, Out out, const char* method, const char* what) const {
  if (!tryFastCopy(value, out)) notingPythonErrors([&] { copyInto(value, out, where(method), what); });
}

double PyConstrainedSystem::scalar(const py::object& value, const char* method, const char* what) const {
  if (PyFloat_CheckExact(value.ptr())) return PyFloat_AS_DOUBLE(value.ptr());
  return notingPythonErrors([&] { return toDouble(value, where(method), what); });
}

py::function PyConstrainedSystem::required(const char* name) const {
  py::function f = override(name);
  if (!f) throw py::type_error(where(name) + " is not defined: a ConstrainedSystem subclass must define it");
  return f;
}

int PyConstrainedSystem::cachedInt(std::atomic<int>& cache, const char* method, bool needed) const {
  const int known = cache.load(std::memory_order_relaxed);
  if (known >= 0) return known;
  py::gil_scoped_acquire gil;
  py::function f = needed ? required(method) : override(method);
  const int value = f ? callNoting<int>(f, where(method), "int") : 0;
  if (value < 0) throw py::value_error(where(method) + "() must be >= 0, got " + std::to_string(value));
  cache.store(value, std::memory_order_relaxed);
  return value;
}

std::string PyConstrainedSystem::name() const {
  py::gil_scoped_acquire gil;
  if (py::function f = override("name")) return callNoting<std::string>(f, where("name"), "str");
  const std::string method = where("name");
  return method.substr(0, method.size() - 5);  // the class name
}

MassStructure PyConstrainedSystem::massStructure() const {
  int known = mass_structure_.load(std::memory_order_relaxed);
  if (known < 0) {
    py::gil_scoped_acquire gil;
    py::function f = override("mass_structure");
    known = static_cast<int>(f ? callNoting<MassStructure>(f, where("mass_structure"), "MassStructure")
                               : MassStructure::General);
    mass_structure_.store(known, std::memory_order_relaxed);
  }
  return static_cast<MassStructure>(known);
}

namespace {
bool cachedFlag(std::atomic<int>& cache, const py::function& f, bool fallback, const std::string& method) {
  const int value = static_cast<int>(f ? callNoting<bool>(f, method, "bool") : fallback);
  cache.store(value, std::memory_order_relaxed);
  return value != 0;
}
}  // namespace

bool PyConstrainedSystem::biasDependsOnState() const {
  const int known = bias_depends_.load(std::memory_order_relaxed);
  if (known >= 0) return known != 0;
  py::gil_scoped_acquire gil;
  return cachedFlag(bias_depends_, override("bias_depends_on_state"), true, where("bias_depends_on_state"));
}

bool PyConstrainedSystem::isTimeDependent() const {
  const int known = time_dependent_.load(std::memory_order_relaxed);
  if (known >= 0) return known != 0;
  py::gil_scoped_acquire gil;
  return cachedFlag(time_dependent_, override("is_time_dependent"), false, where("is_time_dependent"));
}

bool PyConstrainedSystem::isConservative() const {
  const int known = conservative_.load(std::memory_order_relaxed);
  if (known >= 0) return known != 0;
  py::gil_scoped_acquire gil;
  return cachedFlag(conservative_, override("is_conservative"), false, where("is_conservative"));
}

double PyConstrainedSystem::energyScale() const {
  // Asked once per run (the divergence rule's scales): no cache needed.
  py::gil_scoped_acquire gil;
  if (py::function f = override("energy_scale")) {
    return scalar(callNoting<py::object>(f, where("energy_scale"), "a float"), "energy_scale", "the returned energy scale");
  }
  return ConstrainedSystem::energyScale();
}

void PyConstrainedSystem::preflight(const State& state) const {
  const int n = nq(), m = nc(), inputs = nu();
  Matrix M(n, n), J(m, n), S = Matrix::Zero(inputs, n);
  Vector h(n), phi(m), phi_t(m), gamma(m);
  massMatrix(state.q, M);
  bias(state.q, state.v, state.t, h);
  inputMap(state.q, state.t, S);
  constraint(state.q, state.t, phi);
  constraintJacobian(state.q, state.t, J);
  constraintTimeDerivative(state.q, state.t, phi_t);
  constraintBias(state.q, state.v, state.t, gamma);
  const double energy = totalEnergy(state.q, state.v, state.t);
  (void)energy;
}

void PyConstrainedSystem::massMatrix(ConstVectorRef q, MatrixRef M) const {
  {
    py::gil_scoped_acquire gil;
    if (const py::handle f = lookup(Method::MassMatrix, "mass_matrix")) {
      store(invoke(Method::MassMatrix, f, toNumpy(q)), M, "mass_matrix", "the returned M");
      return;
    }
  }
  if (massStructure() == MassStructure::General) {
    py::gil_scoped_acquire gil;
    throw py::type_error(where("mass_matrix") + " is not defined: a model with MassStructure.GENERAL must define it");
  }
  ConstrainedSystem::massMatrix(q, M);  // diagonal models: from mass_diagonal
}

void PyConstrainedSystem::massDiagonal(ConstVectorRef q, VectorRef d) const {
  py::gil_scoped_acquire gil;
  const py::handle f = requiredMethod(Method::MassDiagonal, "mass_diagonal");
  store(invoke(Method::MassDiagonal, f, toNumpy(q)), d, "mass_diagonal", "the returned diag(M)");
}

void PyConstrainedSystem::bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const {
  py::gil_scoped_acquire gil;
  const py::handle f = requiredMethod(Method::Bias, "bias");
  store(invoke(Method::Bias, f, toNumpy(q), toNumpy(v), t), h, "bias", "the returned h");
}

void PyConstrainedSystem::inputMap(ConstVectorRef q, double t, MatrixRef S) const {
  {
    py::gil_scoped_acquire gil;
    if (const py::handle f = lookup(Method::InputMap, "input_map")) {
      store(invoke(Method::InputMap, f, toNumpy(q), t), S, "input_map", "the returned S");
      return;
    }
  }
  ConstrainedSystem::inputMap(q, t, S);
}

void PyConstrainedSystem::constraint(ConstVectorRef q, double t, VectorRef phi) const {
  py::gil_scoped_acquire gil;
  const py::handle f = requiredMethod(Method::Constraint, "constraint");
  store(invoke(Method::Constraint, f, toNumpy(q), t), phi, "constraint", "the returned phi");
}

void PyConstrainedSystem::constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const {
  py::gil_scoped_acquire gil;
  const py::handle f = requiredMethod(Method::ConstraintJacobian, "constraint_jacobian");
  store(invoke(Method::ConstraintJacobian, f, toNumpy(q), t), J, "constraint_jacobian", "the returned J");
}

void PyConstrainedSystem::constraintTimeDerivative(ConstVectorRef q, double t, VectorRef phi_t) const {
  {
    py::gil_scoped_acquire gil;
    if (const py::handle f = lookup(Method::ConstraintTimeDerivative, "constraint_time_derivative")) {
      store(invoke(Method::ConstraintTimeDerivative, f, toNumpy(q), t), phi_t, "constraint_time_derivative", "the returned phi_t");
      return;
    }
  }
  ConstrainedSystem::constraintTimeDerivative(q, t, phi_t);
}

void PyConstrainedSystem::constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const {
  py::gil_scoped_acquire gil;
  const py::handle f = requiredMethod(Method::ConstraintBias, "constraint_bias");
  store(invoke(Method::ConstraintBias, f, toNumpy(q), toNumpy(v), t), gamma, "constraint_bias", "the returned gamma");
}

double PyConstrainedSystem::kineticEnergy(ConstVectorRef q, ConstVectorRef v) const {
  {
    py::gil_scoped_acquire gil;
    if (const py::handle f = lookup(Method::KineticEnergy, "kinetic_energy")) {
      return scalar(invoke(Method::KineticEnergy, f, toNumpy(q), toNumpy(v)), "kinetic_energy", "the returned T");
    }
  }
  return ConstrainedSystem::kineticEnergy(q, v);  // ½ vᵀ M v from mass_matrix / mass_diagonal
}

double PyConstrainedSystem::potentialEnergy(ConstVectorRef q, double t) const {
  py::gil_scoped_acquire gil;
  const py::handle f = requiredMethod(Method::PotentialEnergy, "potential_energy");
  return scalar(invoke(Method::PotentialEnergy, f, toNumpy(q), t), "potential_energy", "the returned V");
}

}  // namespace kktdae::python
