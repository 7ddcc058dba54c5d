#include "system_trampoline.hpp"

#include "arrays.hpp"

namespace kktdae::python {

py::function PyConstrainedSystem::override(const char* name) const {
  return py::get_override(static_cast<const ConstrainedSystem*>(this), name);
}

std::string PyConstrainedSystem::where(const char* method) const {
  const py::handle self = py::detail::get_object_handle(this, py::detail::get_type_info(typeid(ConstrainedSystem)));
  const std::string type = self ? std::string(py::str(py::type::handle_of(self).attr("__name__"))) : "ConstrainedSystem";
  return type + "." + method;
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
  const int value = f ? py::cast<int>(f()) : 0;
  if (value < 0) throw py::value_error(where(method) + "() must be >= 0, got " + std::to_string(value));
  cache.store(value, std::memory_order_relaxed);
  return value;
}

std::string PyConstrainedSystem::name() const {
  py::gil_scoped_acquire gil;
  if (py::function f = override("name")) return py::cast<std::string>(f());
  const std::string method = where("name");
  return method.substr(0, method.size() - 5);  // the class name
}

MassStructure PyConstrainedSystem::massStructure() const {
  int known = mass_structure_.load(std::memory_order_relaxed);
  if (known < 0) {
    py::gil_scoped_acquire gil;
    py::function f = override("mass_structure");
    known = static_cast<int>(f ? py::cast<MassStructure>(f()) : MassStructure::General);
    mass_structure_.store(known, std::memory_order_relaxed);
  }
  return static_cast<MassStructure>(known);
}

namespace {
bool cachedFlag(std::atomic<int>& cache, const py::function& f, bool fallback) {
  const int value = f ? static_cast<int>(py::cast<bool>(f())) : static_cast<int>(fallback);
  cache.store(value, std::memory_order_relaxed);
  return value != 0;
}
}  // namespace

bool PyConstrainedSystem::biasDependsOnState() const {
  const int known = bias_depends_.load(std::memory_order_relaxed);
  if (known >= 0) return known != 0;
  py::gil_scoped_acquire gil;
  return cachedFlag(bias_depends_, override("bias_depends_on_state"), true);
}

bool PyConstrainedSystem::isTimeDependent() const {
  const int known = time_dependent_.load(std::memory_order_relaxed);
  if (known >= 0) return known != 0;
  py::gil_scoped_acquire gil;
  return cachedFlag(time_dependent_, override("is_time_dependent"), false);
}

void PyConstrainedSystem::massMatrix(ConstVectorRef q, MatrixRef M) const {
  {
    py::gil_scoped_acquire gil;
    if (py::function f = override("mass_matrix")) {
      copyInto(f(toNumpy(q)), M, where("mass_matrix"), "the returned M");
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
  copyInto(required("mass_diagonal")(toNumpy(q)), d, where("mass_diagonal"), "the returned diag(M)");
}

void PyConstrainedSystem::bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const {
  py::gil_scoped_acquire gil;
  copyInto(required("bias")(toNumpy(q), toNumpy(v), t), h, where("bias"), "the returned h");
}

void PyConstrainedSystem::inputMap(ConstVectorRef q, double t, MatrixRef S) const {
  {
    py::gil_scoped_acquire gil;
    if (py::function f = override("input_map")) {
      copyInto(f(toNumpy(q), t), S, where("input_map"), "the returned S");
      return;
    }
  }
  ConstrainedSystem::inputMap(q, t, S);
}

void PyConstrainedSystem::constraint(ConstVectorRef q, double t, VectorRef phi) const {
  py::gil_scoped_acquire gil;
  copyInto(required("constraint")(toNumpy(q), t), phi, where("constraint"), "the returned phi");
}

void PyConstrainedSystem::constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const {
  py::gil_scoped_acquire gil;
  copyInto(required("constraint_jacobian")(toNumpy(q), t), J, where("constraint_jacobian"), "the returned J");
}

void PyConstrainedSystem::constraintTimeDerivative(ConstVectorRef q, double t, VectorRef phi_t) const {
  {
    py::gil_scoped_acquire gil;
    if (py::function f = override("constraint_time_derivative")) {
      copyInto(f(toNumpy(q), t), phi_t, where("constraint_time_derivative"), "the returned phi_t");
      return;
    }
  }
  ConstrainedSystem::constraintTimeDerivative(q, t, phi_t);
}

void PyConstrainedSystem::constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const {
  py::gil_scoped_acquire gil;
  copyInto(required("constraint_bias")(toNumpy(q), toNumpy(v), t), gamma, where("constraint_bias"),
           "the returned gamma");
}

double PyConstrainedSystem::kineticEnergy(ConstVectorRef q, ConstVectorRef v) const {
  {
    py::gil_scoped_acquire gil;
    if (py::function f = override("kinetic_energy")) {
      return toDouble(f(toNumpy(q), toNumpy(v)), where("kinetic_energy"), "the returned T");
    }
  }
  return ConstrainedSystem::kineticEnergy(q, v);  // ½ vᵀ M v from mass_matrix / mass_diagonal
}

double PyConstrainedSystem::potentialEnergy(ConstVectorRef q, double t) const {
  py::gil_scoped_acquire gil;
  return toDouble(required("potential_energy")(toNumpy(q), t), where("potential_energy"), "the returned V");
}

}  // namespace kktdae::python
