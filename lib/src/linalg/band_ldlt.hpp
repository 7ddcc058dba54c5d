#pragma once
// LDLᵀ of a symmetric band matrix in band storage (internal header of SparseLdlt's banded path).
//
// A of bandwidth b (A(i, j) = 0 for |i − j| > b) is stored by rows of its lower triangle, which
// are the columns of its upper one: row k occupies values[k(b+1) .. k(b+1)+b] and holds
// A(k, k−b), …, A(k, k−1), A(k, k) (slots before column 0 stay zero). L is stored the same way
// without the diagonal: l[k·b + t] = L(k, k−b+t). The factorization is the up-looking one of the
// general path restricted to the band: row k solves L y = A(0:k, k) over the b rows above it,
// in ascending order, then L(k, j) = y_j / d_j and d_k = A(k, k) − Σ L(k, j) y_j — the same
// operations in the same order as the general elimination of a banded pattern in natural order,
// without the elimination tree, the reach and the scatter. For b = 1 (a chain's J M⁻¹ Jᵀ) it is
// the tridiagonal recurrence d_k = A_kk − (A_{k−1,k} / d_{k−1}) A_{k−1,k}.

namespace kktdae::detail {

/// What bandFactorize() saw: where it stopped and the extremes SparseLdlt's pivot rules need.
struct BandFactorization {
  int stopped = 0;          ///< the row whose pivot stopped it, or n when every pivot was formed
  double smallest = 0.0;    ///< min |d_k| over the rows formed before `stopped`
  double largest = 0.0;     ///< max |d_k| over the same rows
  double scale = 0.0;       ///< max |A_kk| over the same rows
};

/// d and l of A = L D Lᵀ for n rows of bandwidth b (storage above). `y` is scratch of b
/// doubles. Stops at the first pivot that is not > 0 (positive_definite) or is 0. The extremes
/// are gathered in the same sweep, off its critical path (the chain of divisions). Allocates
/// nothing.
BandFactorization bandFactorize(int n, int b, const double* values, double* l, double* d, double* y,
                                bool positive_definite);

/// x ← A⁻¹ x in place with the factors of bandFactorize(): forward substitution with L, then
/// the division by D fused into the backward substitution with Lᵀ. Allocates nothing.
void bandSolveInPlace(int n, int b, const double* l, const double* d, double* x);

}  // namespace kktdae::detail
