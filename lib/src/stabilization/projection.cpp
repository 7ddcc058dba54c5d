#include "kktdae/stabilization/projection.hpp"

#include <Eigen/Cholesky>

#include "kktdae/core/checks.hpp"

namespace kktdae {
namespace {

/// M⁻¹ Jᵀ and the Cholesky factor of J M⁻¹ Jᵀ at (q, t); false when J M⁻¹ Jᵀ is not SPD.
bool factorMetric(const ConstrainedSystem& system, const Vector& q, double t, Matrix& J, Matrix& inverse_mass_jt,
                  Eigen::LLT<Matrix>& schur) {
  Matrix M(system.nq(), system.nq());
  system.massMatrix(q, M);
  system.constraintJacobian(q, t, J);
  Eigen::LLT<Matrix> mass(M);
  if (mass.info() != Eigen::Success) return false;
  inverse_mass_jt = mass.solve(J.transpose());
  schur.compute(J * inverse_mass_jt);
  return schur.info() == Eigen::Success && inverse_mass_jt.allFinite();
}

double infNorm(const Vector& x) { return x.size() ? x.lpNorm<Eigen::Infinity>() : 0.0; }

}  // namespace

void ProjectionOptions::validate() const {
  if (max_iterations < 1) throwInvalid("projection.max_iterations", "must be >= 1, got " + std::to_string(max_iterations));
  requirePositive("projection.tolerance", tolerance);
}

ProjectionReport projectToManifold(const ConstrainedSystem& system, State& state, const ProjectionOptions& options) {
  options.validate();
  checkStateSizes(system, state.q, state.v);
  const int nc = system.nc();
  ProjectionReport report;
  Vector q = state.q, v = state.v, phi(nc), phi_t(nc);
  Matrix J(nc, system.nq()), inverse_mass_jt;
  Eigen::LLT<Matrix> schur;

  auto velocityResidual = [&](const Vector& at_q) {
    system.constraintJacobian(at_q, state.t, J);
    system.constraintTimeDerivative(at_q, state.t, phi_t);
    return Vector(J * v + phi_t);
  };
  system.constraint(q, state.t, phi);
  report.phi_before = infNorm(phi);
  report.phi_dot_before = infNorm(velocityResidual(q));
  if (nc == 0) {
    report.converged = true;
    return report;
  }

  while (!(infNorm(phi) <= options.tolerance)) {
    if (report.iterations == options.max_iterations) {
      report.phi_after = infNorm(phi);
      report.message = "position projection did not converge in " + std::to_string(options.max_iterations) +
                       " iterations: |phi|_inf = " + formatDouble(report.phi_after) + " > tolerance " +
                       formatDouble(options.tolerance);
      return report;
    }
    if (!phi.allFinite() || !factorMetric(system, q, state.t, J, inverse_mass_jt, schur)) {
      report.message = "position projection failed at iteration " + std::to_string(report.iterations) +
                       ": J M^-1 J^T is singular or the model returned non-finite values";
      return report;
    }
    q -= inverse_mass_jt * schur.solve(phi);
    ++report.iterations;
    system.constraint(q, state.t, phi);
  }
  report.phi_after = infNorm(phi);

  if (!factorMetric(system, q, state.t, J, inverse_mass_jt, schur)) {
    report.message = "velocity projection failed: J M^-1 J^T is singular at the projected q";
    return report;
  }
  system.constraintTimeDerivative(q, state.t, phi_t);
  v -= inverse_mass_jt * schur.solve(J * v + phi_t);
  report.phi_dot_after = infNorm(velocityResidual(q));
  if (!q.allFinite() || !v.allFinite()) {
    report.message = "projection produced non-finite values";
    return report;
  }
  report.position_correction = infNorm(q - state.q);
  report.velocity_correction = infNorm(v - state.v);
  report.converged = true;
  state.q = q;
  state.v = v;
  return report;
}

}  // namespace kktdae
