#include "kktdae/contact/lcp.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "kktdae/core/checks.hpp"

namespace kktdae::contact {

void LcpOptions::validate() const {
  if (max_pivots_per_unknown < 1) {
    throw std::invalid_argument("LcpOptions::max_pivots_per_unknown = " + std::to_string(max_pivots_per_unknown) +
                                " < 1");
  }
  if (!(tolerance > 0.0 && tolerance < 1.0)) {
    throw std::invalid_argument("LcpOptions::tolerance = " + formatDouble(tolerance) + " outside (0, 1)");
  }
}

std::string toString(LcpStatus status) {
  switch (status) {
    case LcpStatus::NotRun: return "not_run";
    case LcpStatus::Solved: return "solved";
    case LcpStatus::RayTermination: return "ray_termination";
    case LcpStatus::PivotLimit: return "pivot_limit";
  }
  return "unknown";
}

double complementarityResidual(ConstMatrixRef W, ConstVectorRef b, ConstVectorRef lambda) {
  if (lambda.size() == 0) return 0.0;
  const Vector w = W * lambda + b;
  double r = 0.0;
  for (Eigen::Index i = 0; i < lambda.size(); ++i) r = std::max(r, std::abs(std::min(lambda[i], w[i])));
  return r;
}

namespace {

// Lemke's method on the tableau [I  −W  −1 | b] over the variables (w, λ, z₀); the basis starts
// as w. Returns λ (size n) and the status; `pivots` counts the pivots made.
LcpStatus lemke(const Matrix& W, const Vector& b, double tol, int max_pivots, Vector& lambda, int& pivots) {
  const Eigen::Index n = b.size();
  const Eigen::Index z0 = 2 * n, rhs = 2 * n + 1;
  Matrix T = Matrix::Zero(n, 2 * n + 2);
  T.leftCols(n).setIdentity();
  T.block(0, n, n, n) = -W;
  T.col(z0).setConstant(-1.0);
  T.col(rhs) = b;
  std::vector<Eigen::Index> basis(static_cast<std::size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) basis[static_cast<std::size_t>(i)] = i;
  lambda = Vector::Zero(n);
  pivots = 0;

  auto pivot = [&](Eigen::Index r, Eigen::Index c) {
    T.row(r) /= T(r, c);
    for (Eigen::Index i = 0; i < n; ++i) {
      if (i != r && T(i, c) != 0.0) T.row(i) -= T(i, c) * T.row(r);
    }
    basis[static_cast<std::size_t>(r)] = c;
    ++pivots;
  };

  Eigen::Index r0 = 0;
  b.minCoeff(&r0);
  pivot(r0, z0);
  Eigen::Index entering = n + r0;  // the complement of the w that left
  while (pivots < max_pivots) {
    // Lexicographic minimum ratio over the rows whose entering-column entry is positive: first
    // the right-hand side, then the columns of the initial basis (the w's), divided by the entry.
    Eigen::Index best = -1;
    for (Eigen::Index i = 0; i < n; ++i) {
      if (T(i, entering) <= tol) continue;
      if (best < 0) {
        best = i;
        continue;
      }
      const double a = T(i, entering), c = T(best, entering);
      int cmp = 0;  // −1: row i smaller
      const double di = T(i, rhs) / a, db = T(best, rhs) / c;
      const double scale = tol * std::max(1.0, std::max(std::abs(di), std::abs(db)));
      if (di < db - scale) cmp = -1;
      else if (di > db + scale) cmp = 1;
      else if (basis[static_cast<std::size_t>(i)] == z0) cmp = -1;  // a tie that lets z₀ leave ends the run
      else if (basis[static_cast<std::size_t>(best)] == z0) cmp = 1;
      else {
        for (Eigen::Index j = 0; j < n && cmp == 0; ++j) {
          const double ei = T(i, j) / a, eb = T(best, j) / c;
          if (ei < eb - tol) cmp = -1;
          else if (ei > eb + tol) cmp = 1;
        }
      }
      if (cmp < 0) best = i;
    }
    if (best < 0) return LcpStatus::RayTermination;
    const Eigen::Index leaving = basis[static_cast<std::size_t>(best)];
    pivot(best, entering);
    if (leaving == z0) {
      for (Eigen::Index i = 0; i < n; ++i) {
        const Eigen::Index v = basis[static_cast<std::size_t>(i)];
        if (v >= n && v < 2 * n) lambda[v - n] = std::max(0.0, T(i, rhs));
      }
      return LcpStatus::Solved;
    }
    entering = leaving < n ? leaving + n : leaving - n;
  }
  return LcpStatus::PivotLimit;
}

// Minimum-norm λ over the solutions of a symmetric positive semidefinite LCP: on the rows I where
// w vanishes, the pseudo-inverse's solution of W_II λ_I = −b_I. Empty when it is not a solution.
bool minimumNormSolution(const Matrix& W, const Vector& b, const Vector& w, double zero_w, double tol, Vector& lambda) {
  const Eigen::Index n = b.size();
  std::vector<Eigen::Index> I;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (w[i] <= zero_w) I.push_back(i);
  }
  const Eigen::Index m = static_cast<Eigen::Index>(I.size());
  Vector candidate = Vector::Zero(n);
  if (m > 0) {
    Matrix W_II(m, m);
    Vector b_I(m);
    for (Eigen::Index a = 0; a < m; ++a) {
      b_I[a] = b[I[static_cast<std::size_t>(a)]];
      for (Eigen::Index c = 0; c < m; ++c) W_II(a, c) = W(I[static_cast<std::size_t>(a)], I[static_cast<std::size_t>(c)]);
    }
    const Matrix sym = 0.5 * (W_II + W_II.transpose());
    Eigen::SelfAdjointEigenSolver<Matrix> eig(sym);
    if (eig.info() != Eigen::Success) return false;
    const double cutoff = tol * std::max(eig.eigenvalues().cwiseAbs().maxCoeff(), 1e-300) * 100.0;
    Vector coeffs = eig.eigenvectors().transpose() * (-b_I);
    for (Eigen::Index k = 0; k < m; ++k) coeffs[k] = eig.eigenvalues()[k] > cutoff ? coeffs[k] / eig.eigenvalues()[k] : 0.0;
    const Vector lam_I = eig.eigenvectors() * coeffs;
    for (Eigen::Index a = 0; a < m; ++a) candidate[I[static_cast<std::size_t>(a)]] = lam_I[a];
  }
  const double scale = std::max({1.0, b.lpNorm<Eigen::Infinity>(), W.lpNorm<Eigen::Infinity>() * lambda.lpNorm<Eigen::Infinity>()});
  if (candidate.minCoeff() < -1e3 * tol * scale) return false;
  candidate = candidate.cwiseMax(0.0);
  const double r_new = complementarityResidual(W, b, candidate);
  const double r_old = complementarityResidual(W, b, lambda);
  if (r_new > std::max(r_old * 10.0, 1e3 * tol * scale)) return false;
  lambda = candidate;
  return true;
}

}  // namespace

LcpResult solveLcp(ConstMatrixRef W_in, ConstVectorRef b_in, const LcpOptions& options) {
  options.validate();
  if (W_in.rows() != W_in.cols()) {
    throw std::invalid_argument("solveLcp: W is " + std::to_string(W_in.rows()) + "×" + std::to_string(W_in.cols()) +
                                ", not square");
  }
  if (W_in.rows() != b_in.size()) {
    throw std::invalid_argument("solveLcp: W has " + std::to_string(W_in.rows()) + " rows but b has " +
                                std::to_string(b_in.size()) + " entries");
  }
  if (!W_in.allFinite() || !b_in.allFinite()) throw std::invalid_argument("solveLcp: W or b has a non-finite entry");
  const Matrix W = W_in;
  const Vector b = b_in;
  const Eigen::Index n = b.size();
  LcpResult result;
  result.lambda = Vector::Zero(n);
  result.w = b;
  if (n == 0 || b.minCoeff() >= 0.0) {
    result.status = LcpStatus::Solved;
    result.minimum_norm = true;  // λ = 0 is the smallest there is
    result.residual = complementarityResidual(W, b, result.lambda);
    return result;
  }
  const double scale = std::max({W.lpNorm<Eigen::Infinity>(), b.lpNorm<Eigen::Infinity>(), 1e-300});
  const double tol = options.tolerance * scale;
  result.status = lemke(W, b, tol, options.max_pivots_per_unknown * static_cast<int>(n), result.lambda, result.pivots);
  if (result.ok()) {
    result.w = W * result.lambda + b;
    if (options.minimum_norm) {
      const double zero_w = 1e3 * options.tolerance * std::max(b.lpNorm<Eigen::Infinity>(), 1e-300);
      result.minimum_norm = minimumNormSolution(W, b, result.w, zero_w, options.tolerance, result.lambda);
      result.w = W * result.lambda + b;
    }
  }
  result.residual = complementarityResidual(W, b, result.lambda);
  return result;
}

}  // namespace kktdae::contact
