#include "kktdae/contact/contact_dynamics.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kktdae/core/checks.hpp"

namespace kktdae::contact {

ContactWorkspace::ContactWorkspace(const ConstrainedSystem& system, const UnilateralConstraints& gaps) {
  const Eigen::Index nq = system.nq(), nc = system.nc(), ng = gaps.ng();
  M.resize(nq, nq);
  J.resize(nc, nq);
  J_N.resize(ng, nq);
  A.resize(nq, nq);
  S_pinv.resize(nc, nc);
  P.resize(nq, nq);
  PJ_Nt.resize(nq, ng);
  h.resize(nq);
  phi.resize(nc);
  gamma.resize(nc);
  phi_t.resize(nc);
  g.resize(ng);
  g_t.resize(ng);
  gamma_N.resize(ng);
  qdd0.resize(nq);
  lambda0.resize(nc);
}

namespace {

// Pseudo-inverse of a symmetric positive semidefinite matrix by its eigen-decomposition:
// eigenvalues below rel · λ_max count as zero (redundant rows).
Matrix psdPseudoInverse(const Matrix& S, double rel = 1e-12) {
  if (S.rows() == 0) return S;
  Eigen::SelfAdjointEigenSolver<Matrix> eig(0.5 * (S + S.transpose()));
  if (eig.info() != Eigen::Success) throw std::runtime_error("contact: the eigen-decomposition of J M^-1 J^T failed");
  const double top = std::max(eig.eigenvalues().maxCoeff(), 0.0);
  Vector inv = eig.eigenvalues();
  for (Eigen::Index i = 0; i < inv.size(); ++i) inv[i] = inv[i] > rel * top && inv[i] > 0.0 ? 1.0 / inv[i] : 0.0;
  return eig.eigenvectors() * inv.asDiagonal() * eig.eigenvectors().transpose();
}

void requireFiniteTerm(bool finite, const char* what, double t) {
  if (!finite) throw std::runtime_error(std::string("contact: ") + what + " is not finite at t = " + formatDouble(t));
}

}  // namespace

void evaluateContactTerms(const ConstrainedSystem& system, const UnilateralConstraints& gaps, double t,
                          ConstVectorRef q, ConstVectorRef v, ContactWorkspace& ws) {
  system.massMatrix(q, ws.M);
  system.bias(q, v, t, ws.h);
  if (system.nc() > 0) {
    system.constraint(q, t, ws.phi);
    system.constraintJacobian(q, t, ws.J);
    system.constraintBias(q, v, t, ws.gamma);
    system.constraintTimeDerivative(q, t, ws.phi_t);
  }
  if (gaps.ng() > 0) {
    gaps.gap(q, t, ws.g);
    gaps.gapJacobian(q, t, ws.J_N);
    gaps.gapTimeDerivative(q, t, ws.g_t);
    gaps.gapBias(q, v, t, ws.gamma_N);
  }
  requireFiniteTerm(ws.M.allFinite(), "M", t);
  requireFiniteTerm(ws.h.allFinite(), "h", t);
  requireFiniteTerm(ws.J.allFinite() && ws.gamma.allFinite() && ws.phi_t.allFinite(), "J, gamma or dphi/dt", t);
  requireFiniteTerm(ws.g.allFinite() && ws.J_N.allFinite() && ws.gamma_N.allFinite() && ws.g_t.allFinite(),
                    "a gap, its Jacobian, dg/dt or gamma_N", t);
  const Eigen::LLT<Matrix> llt(ws.M);
  if (llt.info() != Eigen::Success) {
    throw std::runtime_error("contact: M is not positive definite at t = " + formatDouble(t) +
                             " (the contact solves need M > 0)");
  }
  ws.A = llt.solve(Matrix::Identity(system.nq(), system.nq()));
  if (system.nc() > 0) {
    const Matrix AJt = ws.A * ws.J.transpose();
    ws.S_pinv = psdPseudoInverse(ws.J * AJt);
    ws.lambda0 = ws.S_pinv * (ws.J * (ws.A * ws.h) - ws.gamma);
    ws.qdd0 = ws.A * (ws.J.transpose() * ws.lambda0 - ws.h);
    ws.P = ws.A - AJt * ws.S_pinv * AJt.transpose();
  } else {
    ws.qdd0 = -(ws.A * ws.h);
    ws.P = ws.A;
  }
  if (gaps.ng() > 0) ws.PJ_Nt = ws.P * ws.J_N.transpose();
}

Matrix delassus(const UnilateralConstraints& gaps, const std::vector<int>& set, const ContactWorkspace& ws) {
  const Eigen::Index m = static_cast<Eigen::Index>(set.size());
  Matrix W(m, m);
  for (Eigen::Index a = 0; a < m; ++a) {
    const int ka = set[static_cast<std::size_t>(a)];
    for (Eigen::Index c = 0; c < m; ++c) W(a, c) = ws.J_N.row(ka).dot(ws.PJ_Nt.col(set[static_cast<std::size_t>(c)]));
    const double free_mass = ws.J_N.row(ka).dot(ws.A * ws.J_N.row(ka).transpose());
    if (!(W(a, a) > 1e-10 * free_mass)) {
      throw std::runtime_error("contact: gap " + std::to_string(ka) + " '" + gaps.gapName(ka) +
                               "' cannot move under the equalities (its Delassus entry W_kk = " + formatDouble(W(a, a)) +
                               " against J_N M^-1 J_N^T = " + formatDouble(free_mass) +
                               "): its Jacobian row lies in the span of J, so it contradicts or repeats the bilateral constraints");
    }
  }
  return 0.5 * (W + W.transpose());
}

ContactAccelerations solveContactAccelerations(const ConstrainedSystem& system, const UnilateralConstraints& gaps,
                                               double t, ConstVectorRef q, ConstVectorRef v,
                                               const std::vector<int>& set, ContactLaw law, ContactWorkspace& ws,
                                               const LcpOptions& lcp) {
  evaluateContactTerms(system, gaps, t, q, v, ws);
  const Eigen::Index m = static_cast<Eigen::Index>(set.size());
  ContactAccelerations out;
  out.lambda_N = Vector::Zero(gaps.ng());
  Vector lam_C = Vector::Zero(m);
  if (m > 0) {
    const Matrix W = delassus(gaps, set, ws);
    Vector b(m);
    for (Eigen::Index a = 0; a < m; ++a) {
      const int k = set[static_cast<std::size_t>(a)];
      b[a] = ws.J_N.row(k).dot(ws.qdd0) + ws.gamma_N[k];
    }
    if (law == ContactLaw::Complementarity) {
      out.lcp = solveLcp(W, b, lcp);
      if (!out.lcp.ok()) {
        throw std::runtime_error("contact: the acceleration LCP failed at t = " + formatDouble(t) + " (" +
                                 toString(out.lcp.status) + ")");
      }
      lam_C = out.lcp.lambda;
    } else {
      lam_C = psdPseudoInverse(W) * (-b);
      out.lcp.status = LcpStatus::Solved;
      out.lcp.lambda = lam_C;
      out.lcp.w = W * lam_C + b;
      out.lcp.residual = out.lcp.w.lpNorm<Eigen::Infinity>();
      out.lcp.minimum_norm = true;
    }
    for (Eigen::Index a = 0; a < m; ++a) out.lambda_N[set[static_cast<std::size_t>(a)]] = lam_C[a];
  }
  out.qdd = ws.qdd0;
  if (gaps.ng() > 0) out.qdd += ws.PJ_Nt * out.lambda_N;
  if (system.nc() > 0) {
    Vector force = ws.h;
    if (gaps.ng() > 0) force -= ws.J_N.transpose() * out.lambda_N;
    out.lambda = ws.S_pinv * (ws.J * (ws.A * force) - ws.gamma);
  } else {
    out.lambda.resize(0);
  }
  out.g_ddot = Vector::Zero(gaps.ng());
  if (gaps.ng() > 0) out.g_ddot = ws.J_N * out.qdd + ws.gamma_N;
  return out;
}

ImpactSolution solveImpact(const ConstrainedSystem& system, const UnilateralConstraints& gaps, double t,
                           ConstVectorRef q, ConstVectorRef v_minus, const std::vector<int>& set, ContactWorkspace& ws,
                           double restitution_override, const LcpOptions& lcp) {
  evaluateContactTerms(system, gaps, t, q, v_minus, ws);
  const int ng = gaps.ng();
  const Eigen::Index m = static_cast<Eigen::Index>(set.size());
  ImpactSolution out;
  out.impulse = Vector::Zero(ng);
  out.gdot_minus = Vector::Zero(ng);
  if (ng > 0) out.gdot_minus = ws.J_N * v_minus + ws.g_t;
  out.v_plus = v_minus;
  if (m > 0) {
    const Matrix W = delassus(gaps, set, ws);
    Vector b(m);
    for (Eigen::Index a = 0; a < m; ++a) {
      const int k = set[static_cast<std::size_t>(a)];
      const double e = restitution_override >= 0.0 ? restitution_override : gaps.restitution(k);
      b[a] = (1.0 + e) * out.gdot_minus[k];
    }
    out.lcp = solveLcp(W, b, lcp);
    if (!out.lcp.ok()) {
      throw std::runtime_error("contact: the impact LCP failed at t = " + formatDouble(t) + " (" +
                               toString(out.lcp.status) + ")");
    }
    for (Eigen::Index a = 0; a < m; ++a) out.impulse[set[static_cast<std::size_t>(a)]] = out.lcp.lambda[a];
    out.v_plus += ws.PJ_Nt * out.impulse;
  }
  out.gdot_plus = Vector::Zero(ng);
  if (ng > 0) out.gdot_plus = ws.J_N * out.v_plus + ws.g_t;
  return out;
}

}  // namespace kktdae::contact
