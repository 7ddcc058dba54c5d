#include "klu_lu.hpp"

#include <stdexcept>
#include <string>

namespace kktdae::detail {

KluLu::KluLu(long n, const long* column_start, const long* row_index, const char* what) : n_(n) {
  klu_l_defaults(&common_);
  common_.halt_if_singular = 1;
  symbolic_ = klu_l_analyze(n, const_cast<long*>(column_start), const_cast<long*>(row_index), &common_);
  if (symbolic_ == nullptr) {
    throw std::runtime_error(std::string("KLU symbolic analysis of ") + what + " failed (status " +
                             std::to_string(common_.status) + ")");
  }
}

KluLu::~KluLu() {
  if (numeric_ != nullptr) klu_l_free_numeric(&numeric_, &common_);
  if (symbolic_ != nullptr) klu_l_free_symbolic(&symbolic_, &common_);
}

bool KluLu::factorize(const long* column_start, const long* row_index, const double* values) {
  auto* starts = const_cast<long*>(column_start);
  auto* rows = const_cast<long*>(row_index);
  auto* x = const_cast<double*>(values);
  singular_column_ = -1;
  if (numeric_ != nullptr) {
    // Same pivot sequence, new values: no allocation, kept while the pivots stay healthy.
    if (klu_l_refactor(starts, rows, x, symbolic_, numeric_, &common_) == 1 &&
        klu_l_rcond(symbolic_, numeric_, &common_) == 1 && common_.rcond >= 1e-3 * pivot_ratio_at_full_) {
      pivot_ratio_ = common_.rcond;
      return true;
    }
    klu_l_free_numeric(&numeric_, &common_);
  }
  numeric_ = klu_l_factor(starts, rows, x, symbolic_, &common_);
  ++full_factorizations_;
  if (numeric_ == nullptr || common_.status == KLU_SINGULAR) {
    singular_column_ = common_.singular_col < n_ ? common_.singular_col : -1;
    if (numeric_ != nullptr) klu_l_free_numeric(&numeric_, &common_);
    pivot_ratio_ = 0.0;
    return false;
  }
  klu_l_rcond(symbolic_, numeric_, &common_);
  pivot_ratio_ = pivot_ratio_at_full_ = common_.rcond;
  return true;
}

void KluLu::solveInPlace(double* x) { klu_l_solve(symbolic_, numeric_, n_, 1, x, &common_); }

}  // namespace kktdae::detail
