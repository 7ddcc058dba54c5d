#pragma once
// The pybind11 trampoline that lets a Python class derive from ConstrainedSystem: each virtual
// calls the Python method of the same name in snake_case (bias, constraint_jacobian, …), checks
// the returned array's shape and copies it into the caller-owned output. A Python exception on the
// way is noted for the run that called (python_errors.hpp) before it goes on.
#include <pybind11/pybind11.h>

#include <array>
#include <atomic>
#include <string>

#include "kktdae/core/state.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae::python {
namespace py = pybind11;

class PyConstrainedSystem : public ConstrainedSystem {
 public:
  using ConstrainedSystem::ConstrainedSystem;

  // Sizes and structure are read from Python once and cached: a model does not change during a
  // run (constrained_system.hpp), and the solvers ask for them many times per step.
  std::string name() const override;
  int nq() const override { return cachedInt(nq_, "nq", true); }
  int nc() const override { return cachedInt(nc_, "nc", true); }
  int nu() const override { return cachedInt(nu_, "nu", false); }
  MassStructure massStructure() const override;
  bool biasDependsOnState() const override;
  bool isTimeDependent() const override;
  bool isConservative() const override;
  double energyScale() const override;

  /// Evaluates every method once at `state` so that a missing method (TypeError) or a wrongly shaped
  /// return (ValueError) is raised before a run, not turned into a failed run status by simulate().
  void preflight(const State& state) const;

  void massMatrix(ConstVectorRef q, MatrixRef M) const override;
  void massDiagonal(ConstVectorRef q, VectorRef d) const override;
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override;
  void inputMap(ConstVectorRef q, double t, MatrixRef S) const override;
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override;
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override;
  void constraintTimeDerivative(ConstVectorRef q, double t, VectorRef phi_t) const override;
  void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const override;
  double kineticEnergy(ConstVectorRef q, ConstVectorRef v) const override;
  double potentialEnergy(ConstVectorRef q, double t) const override;

 private:
  /// The methods called in the per-step path, whose lookups are cached (see lookup()).
  enum class Method {
    MassMatrix, MassDiagonal, Bias, InputMap, Constraint, ConstraintJacobian, ConstraintTimeDerivative,
    ConstraintBias, KineticEnergy, PotentialEnergy, Count
  };
  /// The Python class's function `name` if the class overrides it, else an empty handle. Looked up
  /// on the class once (pybind11's get_override repeats an attribute lookup and a frame inspection
  /// at every call: the largest part of a trampoline call). While the method runs on this thread,
  /// the lookup answers empty, so a super().name(...) inside it reaches the C++ base instead of
  /// recursing, as with get_override. Needs the GIL.
  py::handle lookup(Method id, const char* name) const;
  /// The looked-up function, or TypeError naming the class when the model does not define it.
  py::handle requiredMethod(Method id, const char* name) const;
  /// Calls `function(self, args...)` marked active for lookup().
  template <typename... Args>
  py::object invoke(Method id, py::handle function, Args&&... args) const;
  /// The Python object that owns this C++ instance (borrowed: it outlives every call on it).
  py::handle self() const;

  /// The Python override of `name`, or an empty function. Needs the GIL.
  py::function override(const char* name) const;
  /// The override of a method the model must define; TypeError naming the class otherwise.
  py::function required(const char* name) const;
  /// "SphericalPendulum.bias": how messages name a method of this model.
  std::string where(const char* method) const;
  int cachedInt(std::atomic<int>& cache, const char* method, bool required) const;
  /// Copies a method's returned array into out; the shape is checked and, only on a mismatch,
  /// the message built (it names the class, the method and `what`).
  /// A returned real number; TypeError naming the method otherwise.
  double scalar(const py::object& value, const char* method, const char* what) const;
  template <typename Out>
  void store(const py::object& value, Out out, const char* method, const char* what) const;

  mutable std::atomic<int> nq_{-1}, nc_{-1}, nu_{-1}, mass_structure_{-1};
  mutable std::atomic<int> bias_depends_{-1}, time_dependent_{-1}, conservative_{-1};
  struct MethodSlot {
    bool looked_up = false;
    py::object function;  ///< the class's function (not bound: no reference cycle with self)
  };
  mutable std::array<MethodSlot, static_cast<std::size_t>(Method::Count)> methods_;
  mutable PyObject* self_ = nullptr;
};

}  // namespace kktdae::python
