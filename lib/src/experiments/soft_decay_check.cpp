#include "kktdae/experiments/soft_decay_check.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <cmath>
#include <complex>
#include <vector>

#include "kktdae/core/checks.hpp"

namespace kktdae {

void SoftDecayCheckOptions::validate() const {
  if (isAdaptive(integrator)) throwInvalid("integrator", std::string(toString(integrator)) + " is not fixed-step");
  requirePositive("dt", dt);
  requirePositive("horizon_timeconsts", horizon_timeconsts);
  requirePositive("sample_timeconsts", sample_timeconsts);
  if (constraint < 0) throwInvalid("constraint", "must be >= 0, got " + std::to_string(constraint));
}

SoftDecayCheck checkSoftDecay(const ConstrainedSystem& system, const State& start, const SoftConstraint& soft,
                              const SoftDecayCheckOptions& options) {
  options.validate();
  if (options.constraint >= system.nc()) {
    throwInvalid("constraint", std::to_string(options.constraint) + " out of range for nc = " + std::to_string(system.nc()));
  }
  SoftDecayCheck check;
  check.predicted = softErrorDynamics(system, start, soft);
  const long stride = std::max(1L, std::lround(options.sample_timeconsts * soft.timeconst / options.dt));
  const double interval = static_cast<double>(stride) * options.dt;

  SimulationOptions run;
  run.integrator = options.integrator;
  run.dt = options.dt;
  run.steps = std::lround(options.horizon_timeconsts * soft.timeconst / options.dt);
  run.stabilization = Stabilization::softConstraint(soft);
  std::vector<double> samples;
  Vector phi(system.nc());
  long step = 0;
  check.summary = simulate(system, start, run, [&](double t, ConstVectorRef q, ConstVectorRef, ConstVectorRef) {
    if (step++ % stride != 0) return;
    system.constraint(q, t, phi);
    samples.push_back(phi[options.constraint]);
  });

  // e_{k+1} = Σ_i c_i e_{k−i} + c_0 (i < p), p = 2nc: the sampled solution of a constant-
  // coefficient linear ODE of order p with constant forcing satisfies it exactly.
  const int p = 2 * system.nc();
  const long rows = static_cast<long>(samples.size()) - p;
  if (rows < p + 1) throwInvalid("horizon_timeconsts", "too short for a fit: " + std::to_string(samples.size()) + " samples");
  Matrix X(rows, p + 1);
  Vector y(rows);
  for (long r = 0; r < rows; ++r) {
    for (int i = 0; i < p; ++i) X(r, i) = samples[static_cast<std::size_t>(r + p - 1 - i)];
    X(r, p) = 1.0;
    y[r] = samples[static_cast<std::size_t>(r + p)];
  }
  const Vector c = X.colPivHouseholderQr().solve(y);
  check.samples = static_cast<long>(samples.size());
  // Roots of z^p − c_0 z^{p−1} − … − c_{p−1}: the eigenvalues of the companion matrix.
  Matrix companion = Matrix::Zero(p, p);
  companion.row(0) = c.head(p).transpose();
  if (p > 1) companion.bottomLeftCorner(p - 1, p - 1).setIdentity();
  const Eigen::VectorXcd z = Eigen::EigenSolver<Matrix>(companion, false).eigenvalues();
  check.measured_roots.resize(p);
  Eigen::Index slowest = 0;
  for (int i = 0; i < p; ++i) {
    check.measured_roots[i] = std::log(z[i]) / interval;
    if (check.measured_roots[i].real() > check.measured_roots[slowest].real()) slowest = i;
  }
  const std::complex<double> s = check.measured_roots[slowest];
  check.measured_decay_rate = -s.real();
  check.measured_natural_frequency = std::abs(s);
  check.measured_damping_ratio = std::abs(s.imag()) > 0.0 ? -s.real() / std::abs(s) : 1.0;
  check.measured_offset = c[p] / (1.0 - c.head(p).sum());
  return check;
}

}  // namespace kktdae
