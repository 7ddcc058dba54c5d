#include "kktdae/system/constrained_system.hpp"

#include <stdexcept>

#include "kktdae/core/checks.hpp"

namespace kktdae {

void ConstrainedSystem::massMatrix(ConstVectorRef q, MatrixRef M) const {
  if (massStructure() == MassStructure::General) {
    throw std::logic_error(name() + ": a model with a general mass matrix must override massMatrix()");
  }
  // The diagonal of a matrix is strided, so it cannot bind to VectorRef: go through a vector.
  Vector diagonal(nq());
  massDiagonal(q, diagonal);
  M.setZero();
  M.diagonal() = diagonal;
}

void ConstrainedSystem::massDiagonal(ConstVectorRef, VectorRef) const {
  if (massStructure() == MassStructure::General) {
    throw std::logic_error(name() + ": massDiagonal() called on a model with a general mass matrix (use massMatrix())");
  }
  throw std::logic_error(name() + ": declares a diagonal mass (MassStructure::" +
                         (massStructure() == MassStructure::Diagonal ? "Diagonal" : "ConstantDiagonal") +
                         ") but does not override massDiagonal()");
}

void ConstrainedSystem::inputMap(ConstVectorRef, double, MatrixRef) const {
  // nu() > 0 with this default would leave S = 0: the inputs would silently do nothing.
  if (nu() > 0) {
    throw std::logic_error(name() + ": declares nu() = " + std::to_string(nu()) +
                           " inputs but does not override inputMap()");
  }
}

void ConstrainedSystem::constraintJacobianPattern(IndexVectorRef, IndexVectorRef) const {
  throw std::logic_error(name() + ": constraintJacobianPattern() called on a model without a sparse Jacobian");
}

void ConstrainedSystem::constraintJacobianValues(ConstVectorRef, double, VectorRef) const {
  throw std::logic_error(name() + ": constraintJacobianValues() called on a model without a sparse Jacobian");
}

void ConstrainedSystem::constraintTimeDerivative(ConstVectorRef, double, VectorRef phi_t) const {
  phi_t.setZero();
}

void ConstrainedSystem::evaluateTerms(ConstVectorRef q, ConstVectorRef v, double t, ModelTermsOutput& out) const {
  bias(q, v, t, out.h);
  constraint(q, t, out.phi);
  if (out.J.size() > 0) constraintJacobian(q, t, out.J);
  if (out.jacobian_values.size() > 0) constraintJacobianValues(q, t, out.jacobian_values);
  constraintBias(q, v, t, out.gamma);
  constraintTimeDerivative(q, t, out.phi_t);
}

double ConstrainedSystem::kineticEnergy(ConstVectorRef q, ConstVectorRef v) const {
  Matrix M(nq(), nq());
  massMatrix(q, M);
  return 0.5 * v.dot(M * v);
}

void checkDimensions(const ConstrainedSystem& system) {
  auto require = [&](const char* what, int value, int minimum) {
    if (value < minimum) {
      throwInvalid(std::string("system.") + what, system.name() + " has " + what + " = " + std::to_string(value) +
                                                      " (must be >= " + std::to_string(minimum) + ")");
    }
  };
  require("nq()", system.nq(), 1);
  require("nc()", system.nc(), 0);
  require("nu()", system.nu(), 0);
}

void checkStateSizes(const ConstrainedSystem& system, ConstVectorRef q, ConstVectorRef v) {
  requireSize("q", q.size(), system.nq());
  requireSize("v", v.size(), system.nq());
}

}  // namespace kktdae
