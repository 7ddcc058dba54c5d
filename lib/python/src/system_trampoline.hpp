#pragma once
// The pybind11 trampoline that lets a Python class derive from ConstrainedSystem: each virtual
// calls the Python method of the same name in snake_case (bias, constraint_jacobian, …), checks
// the returned array's shape and copies it into the caller-owned output.
#include <pybind11/pybind11.h>

#include <atomic>
#include <string>

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
  /// The Python override of `name`, or an empty function. Needs the GIL.
  py::function override(const char* name) const;
  /// The override of a method the model must define; TypeError naming the class otherwise.
  py::function required(const char* name) const;
  /// "SphericalPendulum.bias": how messages name a method of this model.
  std::string where(const char* method) const;
  int cachedInt(std::atomic<int>& cache, const char* method, bool required) const;

  mutable std::atomic<int> nq_{-1}, nc_{-1}, nu_{-1}, mass_structure_{-1};
  mutable std::atomic<int> bias_depends_{-1}, time_dependent_{-1};
};

}  // namespace kktdae::python
