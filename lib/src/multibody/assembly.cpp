#include "kktdae/multibody/assembly.hpp"

#include <Eigen/QR>
#include <Eigen/SVD>
#include <cmath>

#include "kktdae/core/checks.hpp"

#include "attachment_kinematics.hpp"
#include "constraint_rows.hpp"
#include "kkt/dependent_rows.hpp"
#include "mechanism_data.hpp"

namespace kktdae::multibody {

void AssemblyOptions::validate() const {
  if (max_iterations < 1) throwInvalid("max_iterations", "must be >= 1, got " + std::to_string(max_iterations));
  requirePositive("tolerance", tolerance);
  if (!(rank_tolerance > 0.0 && rank_tolerance < 1.0)) {
    throwInvalid("rank_tolerance", "must lie in (0, 1), got " + formatDouble(rank_tolerance));
  }
}

namespace {

/// The row of G with G q̇ = the joint's read-back rate.
Vector rateRow(const Mechanism& m, int joint, ConstVectorRef q) {
  const detail::MechanismData& data = m.data();
  if (joint < 0 || joint >= m.jointCount()) throwInvalid("rates", "joint index " + std::to_string(joint) + " is not a joint");
  const detail::JointData& j = data.joints[static_cast<std::size_t>(joint)];
  Vector row = Vector::Zero(m.nq());
  if (j.has_readback) {
    const detail::RowEvaluation e = detail::evaluateRow(data, j.readback, q, Vector(), 0.0);
    if (j.body_a >= 0) row.segment(data.bodies[static_cast<std::size_t>(j.body_a)].offset, e.grad_a.size()) += e.grad_a.transpose();
    if (j.body_b >= 0) row.segment(data.bodies[static_cast<std::size_t>(j.body_b)].offset, e.grad_b.size()) += e.grad_b.transpose();
    return row;
  }
  if (j.kind != JointKind::Revolute) {
    throwInvalid("rates", std::string(toString(j.kind)) + " joint '" + j.name + "' has no read-back rate to prescribe");
  }
  // Spatial revolute: z_A·(ω_B − ω_A) with ω = ½ Σ dₖ × ḋₖ, so ∂/∂ḋₖ = ±½ z_A × dₖ.
  const Eigen::Vector3d z = detail::coordinateRotation(data, j.body_a, q) * j.frame_a.rotation.col(2);
  for (int side = 0; side < 2; ++side) {
    const int body = side == 0 ? j.body_a : j.body_b;
    if (body < 0) continue;
    const detail::BodyData& b = data.bodies[static_cast<std::size_t>(body)];
    const int d0 = b.kind == BodyKind::Spatial ? b.offset + 3 : b.offset;
    const double sign = side == 0 ? -1.0 : 1.0;
    for (int k = 0; k < 3; ++k) {
      row.segment<3>(d0 + 3 * k) += sign * 0.5 * z.cross(Eigen::Vector3d(q.segment<3>(d0 + 3 * k)));
    }
  }
  return row;
}

/// Minimum-norm Gauss–Newton on the rows where `keep` is true; returns the iterations taken and
/// leaves ‖φ_kept‖∞ in `residual`.
int gaussNewton(const Mechanism& m, double t, const std::vector<bool>& keep, const AssemblyOptions& options, Vector& q,
                double& residual) {
  const int nq = m.nq(), nc = m.nc();
  std::vector<int> rows;
  for (int i = 0; i < nc; ++i) {
    if (keep[static_cast<std::size_t>(i)]) rows.push_back(i);
  }
  const int nk = static_cast<int>(rows.size());
  Vector phi(nc), phi_kept(nk);
  Matrix J(nc, nq), J_kept(nk, nq);
  // Δq = −J⁺φ by a complete orthogonal decomposition, which also takes the rank-deficient J of
  // an overconstrained loop.
  Eigen::CompleteOrthogonalDecomposition<Matrix> cod;
  cod.setThreshold(options.rank_tolerance);
  int iterations = 0;
  for (;; ++iterations) {
    m.constraint(q, t, phi);
    for (int k = 0; k < nk; ++k) phi_kept[k] = phi[rows[static_cast<std::size_t>(k)]];
    residual = nk > 0 ? phi_kept.lpNorm<Eigen::Infinity>() : 0.0;
    if (!std::isfinite(residual) || residual <= options.tolerance || iterations == options.max_iterations) break;
    m.constraintJacobian(q, t, J);
    for (int k = 0; k < nk; ++k) J_kept.row(k) = J.row(rows[static_cast<std::size_t>(k)]);
    cod.compute(J_kept);
    q -= cod.solve(phi_kept);
  }
  return iterations;
}

/// The loop that does not close: the last joint (or driver) without whose rows the others
/// assemble. Empty when no single joint explains it.
std::string failingJoint(const Mechanism& m, const State& start, const AssemblyOptions& options) {
  const int nc = m.nc();
  for (int j = m.jointCount() - 1; j >= 0; --j) {
    std::vector<bool> keep(static_cast<std::size_t>(nc), true);
    for (int r = 0; r < m.jointRowCount(j); ++r) keep[static_cast<std::size_t>(m.jointFirstRow(j) + r)] = false;
    if (m.driverRow(j) >= 0) keep[static_cast<std::size_t>(m.driverRow(j))] = false;
    Vector q = start.q;
    double residual = 0.0;
    gaussNewton(m, start.t, keep, options, q, residual);
    if (residual <= options.tolerance) return m.jointName(j);
  }
  return "";
}

}  // namespace

AssemblyReport assemble(const Mechanism& m, State& state, const std::vector<IndependentRate>& rates,
                        const AssemblyOptions& options) {
  options.validate();
  checkStateSizes(m, state.q, state.v);
  const int nq = m.nq(), nc = m.nc();
  const bool policy = options.rank_deficiency != RankDeficiencyPolicy::Fail;
  AssemblyReport report;
  Vector phi(nc), phi_t(nc);
  Matrix J(nc, nq);
  const State start = state;
  report.iterations =
      gaussNewton(m, state.t, std::vector<bool>(static_cast<std::size_t>(nc), true), options, state.q, report.residual);
  m.constraintJacobian(state.q, state.t, J);
  Eigen::CompleteOrthogonalDecomposition<Matrix> cod;
  cod.setThreshold(options.rank_tolerance);
  cod.compute(J);
  report.rank = static_cast<int>(cod.rank());
  // dependentConstraintRows names the weakest row even at full rank; the rank tells them apart.
  if (report.rank < nc) report.dependent_rows = kktdae::detail::dependentConstraintRows(J, std::sqrt(options.rank_tolerance));
  if (!(report.residual <= options.tolerance)) {
    report.failing_joint = failingJoint(m, start, options);
    report.message = "not assembled after " + std::to_string(report.iterations) + " Gauss-Newton iterations (|phi| = " +
                     formatDouble(report.residual) + ")" +
                     (report.failing_joint.empty() ? std::string(": no single joint's removal lets the rest close")
                                                   : ": joint '" + report.failing_joint + "' does not close");
    return report;
  }
  if (report.rank < nc && !policy) {
    report.message = "J has rank " + std::to_string(report.rank) + " < " + std::to_string(nc) +
                     " rows at the assembled configuration (overconstrained or singular): dependent rows named; "
                     "RankDeficiencyPolicy::MinimumNorm assembles it";
    return report;
  }
  // Velocities: the least-kinetic-energy q̇ with J q̇ = −∂φ/∂t and G q̇ = rates, through
  // M^{-1/2} (A M^{-1/2})⁺ b (the identity metric where M has a zero entry).
  const int nr = static_cast<int>(rates.size());
  Matrix A(nc + nr, nq);
  Vector b(nc + nr);
  A.topRows(nc) = J;
  m.constraintTimeDerivative(state.q, state.t, phi_t);
  b.head(nc) = -phi_t;
  for (int i = 0; i < nr; ++i) {
    A.row(nc + i) = rateRow(m, rates[static_cast<std::size_t>(i)].joint, state.q).transpose();
    b[nc + i] = rates[static_cast<std::size_t>(i)].rate;
  }
  Vector d(nq);
  m.massDiagonal(state.q, d);
  const Vector scale = (d.array() > 0.0).select(d.cwiseSqrt().cwiseInverse(), Vector::Ones(nq));
  const Matrix scaled = A * scale.asDiagonal();
  Eigen::CompleteOrthogonalDecomposition<Matrix> velocity(scaled);
  velocity.setThreshold(options.rank_tolerance);
  state.v = scale.asDiagonal() * velocity.solve(b);
  report.velocity_residual = (A * state.v - b).lpNorm<Eigen::Infinity>();
  const double b_scale = std::max(1.0, b.lpNorm<Eigen::Infinity>());
  if (!(report.velocity_residual <= options.tolerance * b_scale)) {
    report.message = "the prescribed rates contradict the constraints (residual " +
                     formatDouble(report.velocity_residual) + "): they are not independent";
    return report;
  }
  report.converged = true;
  return report;
}

}  // namespace kktdae::multibody
