#include "kktdae/linalg/semidefinite_pseudo_inverse.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace kktdae {

void SemidefinitePseudoInverse::resize(Eigen::Index n) {
  if (factor_.rows() == n) return;
  factor_ = Matrix::Zero(n, n);
  gram_ = Matrix::Zero(n, n);
  permutation_ = Eigen::VectorXi::LinSpaced(n, 0, static_cast<int>(n) - 1);
  work_ = Vector::Zero(n);
  rank_ = 0;
}

int SemidefinitePseudoInverse::factorize(const Matrix& a, double tolerance) {
  const Eigen::Index n = factor_.rows();
  factor_.triangularView<Eigen::Lower>() = a;
  factor_.triangularView<Eigen::StrictlyUpper>() = a.triangularView<Eigen::StrictlyLower>().transpose();
  for (Eigen::Index i = 0; i < n; ++i) permutation_[i] = static_cast<int>(i);
  rank_ = 0;
  if (n == 0 || !factor_.allFinite()) return 0;
  const double largest = factor_.diagonal().maxCoeff();
  if (!(largest > 0.0)) return 0;
  const double threshold = tolerance * largest;
  // Plain loops: J M⁻¹ Jᵀ of a redundant model is small, where Eigen's block expressions cost
  // more in setup than in arithmetic (measured: 4,900 instructions per 6×6 factorization).
  double* f = factor_.data();
  const auto at = [f, n](Eigen::Index i, Eigen::Index j) -> double& { return f[i + j * n]; };
  for (Eigen::Index k = 0; k < n; ++k) {
    Eigen::Index pivot = k;
    for (Eigen::Index i = k + 1; i < n; ++i) {
      if (at(i, i) > at(pivot, pivot)) pivot = i;
    }
    if (!(at(pivot, pivot) > threshold)) break;
    if (pivot != k) {  // symmetric swap of rows and columns k and pivot (the whole matrix is kept)
      for (Eigen::Index j = 0; j < n; ++j) std::swap(at(k, j), at(pivot, j));
      for (Eigen::Index i = 0; i < n; ++i) std::swap(at(i, k), at(i, pivot));
      std::swap(permutation_[k], permutation_[pivot]);
    }
    const double root = std::sqrt(at(k, k));
    at(k, k) = root;
    for (Eigen::Index i = k + 1; i < n; ++i) at(i, k) /= root;
    // The Schur complement of the pivot, both triangles (the next pivot search swaps whole rows).
    for (Eigen::Index j = k + 1; j < n; ++j) {
      const double ljk = at(j, k);
      for (Eigen::Index i = k + 1; i < n; ++i) at(i, j) -= at(i, k) * ljk;
    }
    ++rank_;
  }
  const Eigen::Index r = rank_;
  for (Eigen::Index j = 0; j < r; ++j) {
    for (Eigen::Index i = 0; i < j; ++i) at(i, j) = 0.0;
  }
  // LᵀL is r×r, positive definite, with A's condition restricted to its range; its own Cholesky
  // in the lower triangle.
  double* g = gram_.data();
  const auto gat = [g, n](Eigen::Index i, Eigen::Index j) -> double& { return g[i + j * n]; };
  for (Eigen::Index j = 0; j < r; ++j) {
    for (Eigen::Index i = j; i < r; ++i) {
      double sum = 0.0;
      for (Eigen::Index m = i; m < n; ++m) sum += at(m, i) * at(m, j);  // L(m, i) = 0 for m < i
      gat(i, j) = sum;
    }
  }
  for (Eigen::Index j = 0; j < r; ++j) {
    double diagonal = gat(j, j);
    for (Eigen::Index m = 0; m < j; ++m) diagonal -= gat(j, m) * gat(j, m);
    gat(j, j) = std::sqrt(diagonal);
    for (Eigen::Index i = j + 1; i < r; ++i) {
      double value = gat(i, j);
      for (Eigen::Index m = 0; m < j; ++m) value -= gat(i, m) * gat(j, m);
      gat(i, j) = value / gat(j, j);
    }
  }
  return rank_;
}

void SemidefinitePseudoInverse::applyInPlace(Eigen::Ref<Vector> x) {
  const Eigen::Index n = factor_.rows(), r = rank_;
  if (r == 0) {
    x.setZero();
    return;
  }
  const double* f = factor_.data();
  const double* g = gram_.data();
  const auto l = [f, n](Eigen::Index i, Eigen::Index j) { return f[i + j * n]; };
  const auto c = [g, n](Eigen::Index i, Eigen::Index j) { return g[i + j * n]; };
  for (Eigen::Index i = 0; i < n; ++i) work_[i] = x[permutation_[i]];  // P x
  // u = Lᵀ P x, kept in x's first r entries on the way.
  for (Eigen::Index j = 0; j < r; ++j) {
    double sum = 0.0;
    for (Eigen::Index m = j; m < n; ++m) sum += l(m, j) * work_[m];
    x[j] = sum;
  }
  for (int twice = 0; twice < 2; ++twice) {  // (LᵀL)⁻² = ((C Cᵀ)⁻¹)², C the Cholesky factor of LᵀL
    for (Eigen::Index i = 0; i < r; ++i) {  // C y = u
      double value = x[i];
      for (Eigen::Index m = 0; m < i; ++m) value -= c(i, m) * x[m];
      x[i] = value / c(i, i);
    }
    for (Eigen::Index i = r - 1; i >= 0; --i) {  // Cᵀ z = y
      double value = x[i];
      for (Eigen::Index m = i + 1; m < r; ++m) value -= c(m, i) * x[m];
      x[i] = value / c(i, i);
    }
  }
  for (Eigen::Index i = 0; i < n; ++i) {  // L z
    double sum = 0.0;
    for (Eigen::Index j = 0; j < std::min(i + 1, r); ++j) sum += l(i, j) * x[j];
    work_[i] = sum;
  }
  for (Eigen::Index i = 0; i < n; ++i) x[permutation_[i]] = work_[i];  // Pᵀ
}

}  // namespace kktdae
