#include "kktdae/stabilization/soft_error_dynamics.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <cmath>

#include "kktdae/core/checks.hpp"

namespace kktdae {

SoftErrorDynamics softErrorDynamics(const ConstrainedSystem& system, const State& state, const SoftConstraint& soft) {
  soft.validate();
  checkStateSizes(system, state.q, state.v);
  const int nq = system.nq(), nc = system.nc();
  if (nc == 0) throwInvalid("system", system.name() + " has no constraints");
  Matrix M(nq, nq), J(nc, nq);
  Vector h(nq), phi(nc), gamma(nc);
  system.massMatrix(state.q, M);
  system.bias(state.q, state.v, state.t, h);
  system.constraint(state.q, state.t, phi);
  system.constraintJacobian(state.q, state.t, J);
  system.constraintBias(state.q, state.v, state.t, gamma);
  const Eigen::LLT<Matrix> mass(M);
  const Matrix MinvJt = mass.solve(J.transpose());
  const Matrix A = J * MinvJt;
  const Vector a0 = J * mass.solve(-h) + gamma;

  // Reference gains exactly as subtractStabilizationTerms applies them.
  const double B = 2.0 / (soft.dmax * soft.timeconst);
  const double K = 1.0 / (soft.dmax * soft.dmax * soft.timeconst * soft.timeconst * soft.dampratio * soft.dampratio);
  // ë = F(e) − W(e) B ė with F(e) = −W(e) K D(e) e + (I − W(e)) a₀, the configuration (A, a₀)
  // held at the state's: W and D depend on e through the impedances.
  Vector d(nc), R(nc);
  Matrix W(nc, nc), A_plus_R(nc, nc);
  auto filter = [&](const Vector& e) {
    for (int k = 0; k < nc; ++k) {
      d[k] = soft.impedance(e[k]);
      R[k] = (1.0 - d[k]) / d[k] * A(k, k);
    }
    A_plus_R = A;
    A_plus_R.diagonal() += R;
    W = A_plus_R.ldlt().solve(A).transpose();  // A (A + R)⁻¹, both symmetric
  };
  auto F = [&](const Vector& e) -> Vector {
    filter(e);
    return -K * (W * d.cwiseProduct(e)) + (Matrix::Identity(nc, nc) - W) * a0;
  };
  // −∂F/∂e by central differences, steps relative to the impedance's width (where d bends).
  auto stiffnessAt = [&](const Vector& e) {
    Matrix S(nc, nc);
    for (int j = 0; j < nc; ++j) {
      const double step = 1e-6 * std::max(soft.width, std::abs(e[j]));
      Vector plus = e, minus = e;
      plus[j] += step;
      minus[j] -= step;
      S.col(j) = -(F(plus) - F(minus)) / (2.0 * step);
    }
    return S;
  };

  // The forced equilibrium F(e_ss) = 0 by Newton from the state's own error; the dynamics the
  // error settles into are the linearization about it.
  Vector e_ss = phi;
  for (int iteration = 0; iteration < 50; ++iteration) {
    const Vector residual = F(e_ss);
    const Vector step = stiffnessAt(e_ss).partialPivLu().solve(residual);
    e_ss += step;
    if (step.lpNorm<Eigen::Infinity>() <= 1e-14 * std::max(soft.width, e_ss.lpNorm<Eigen::Infinity>())) break;
  }
  SoftErrorDynamics result;
  result.offset = e_ss;
  const Matrix stiffness = stiffnessAt(e_ss);
  filter(e_ss);
  result.impedance = d;
  result.W = W;
  Matrix companion = Matrix::Zero(2 * nc, 2 * nc);
  companion.topRightCorner(nc, nc).setIdentity();
  companion.bottomLeftCorner(nc, nc) = -stiffness;
  companion.bottomRightCorner(nc, nc) = -B * result.W;
  result.roots = Eigen::EigenSolver<Matrix>(companion, false).eigenvalues();
  Eigen::Index slowest = 0;
  for (Eigen::Index i = 1; i < result.roots.size(); ++i) {
    if (result.roots[i].real() > result.roots[slowest].real()) slowest = i;
  }
  const std::complex<double> s = result.roots[slowest];
  result.decay_rate = -s.real();
  result.natural_frequency = std::abs(s);
  result.damping_ratio = std::abs(s.imag()) > 0.0 ? -s.real() / std::abs(s) : 1.0;

  const double tau = soft.timeconst, zeta = soft.dampratio;
  result.requested_damping_ratio = zeta;
  result.requested_natural_frequency = 1.0 / (tau * zeta);
  result.requested_decay_rate = zeta <= 1.0 ? 1.0 / tau : (1.0 - std::sqrt(1.0 - 1.0 / (zeta * zeta))) / tau;
  return result;
}

}  // namespace kktdae
