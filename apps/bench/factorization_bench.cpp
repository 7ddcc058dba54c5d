// The sparse factorizations behind the sparse path, against the libraries we could have used,
// on the very matrices the library builds for an N-link chain at seed 000's launch state:
//
//   Schur, A = J M⁻¹ Jᵀ (nc × nc, SPD) — numeric factorization + one solve per iteration, the
//   ordering and symbolic analysis once before the loop:
//     factor/schur/sparse_ldlt      our SparseLdlt (AMD; values written into its permuted storage)
//     factor/schur/eigen_simplicial Eigen's SimplicialLDLT (analyzePattern once, factorize)
//     factor/schur/cholmod          CHOLMOD simplicial LDLᵀ (cholmod_l_analyze once,
//                                   cholmod_l_factorize, cholmod_l_solve2 with reused buffers)
//   Block, K = [M −Jᵀ; J 0] ((nq + nc) square) — numeric LU + one solve per iteration:
//     factor/block/klu_refactor     our SparseBlockSystem (KLU: analysis and the first pivoting
//                                   factorization once, then klu_l_refactor with those pivots)
//     factor/block/eigen_sparselu   Eigen's SparseLU (COLAMD; analyzePattern once, factorize)
//
// J comes from the library's SparseConstraintSpace (evaluateJacobian), A from its assemble(); the
// Eigen and CHOLMOD copies are built from that J, and before timing every solver's solution is
// checked against ours. CHOLMOD and KLU allocate through SuiteSparse_config's function pointers:
// the benchmark counts those calls inside the timed loop (counter "allocs", per iteration).
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>
#include <SuiteSparse_config.h>
#include <cholmod.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_setup.hpp"

namespace kktdae::bench {
namespace {

using Index64 = SuiteSparse_long;
using ColumnMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, Index64>;

// --- counting SuiteSparse's allocations -------------------------------------------------------
long suitesparse_allocations = 0;
void* countingMalloc(std::size_t size) {
  ++suitesparse_allocations;
  return std::malloc(size);
}
void* countingCalloc(std::size_t count, std::size_t size) {
  ++suitesparse_allocations;
  return std::calloc(count, size);
}
void* countingRealloc(void* pointer, std::size_t size) {
  ++suitesparse_allocations;
  return std::realloc(pointer, size);
}
void countAllocations() {
  SuiteSparse_config.malloc_func = &countingMalloc;
  SuiteSparse_config.calloc_func = &countingCalloc;
  SuiteSparse_config.realloc_func = &countingRealloc;
}

/// An N-link chain's constraint space at the launch state: J evaluated, A = J M⁻¹ Jᵀ assembled
/// into space.ldlt.values(), and the same A (upper triangle) and K = [M −Jᵀ; J 0] as Eigen
/// matrices with 64-bit indices.
struct ChainMatrices {
  explicit ChainMatrices(int links)
      : chain(PendulumChainParams::uniform(links)), space(chain), start(chain.initialState(seedTilt())) {
    space.evaluateJacobian(chain, start.q, start.t);
    mass = Vector(chain.nq());
    chain.massDiagonal(start.q, mass);
    inverse_mass = mass.cwiseInverse();
    Vector diagonal(chain.nc());
    space.assemble(inverse_mass, diagonal);

    const ColumnMatrix J(space.J);
    const ColumnMatrix full = J * inverse_mass.asDiagonal() * J.transpose();
    upper = full.triangularView<Eigen::Upper>();
    upper.makeCompressed();

    std::vector<Eigen::Triplet<double, Index64>> entries;
    const Index64 nq = chain.nq();
    for (Index64 k = 0; k < nq; ++k) entries.emplace_back(k, k, mass[k]);
    for (Index64 outer = 0; outer < J.outerSize(); ++outer) {
      for (ColumnMatrix::InnerIterator it(J, outer); it; ++it) {
        entries.emplace_back(nq + it.row(), it.col(), it.value());   // J
        entries.emplace_back(it.col(), nq + it.row(), -it.value());  // −Jᵀ
      }
    }
    const Index64 n = nq + chain.nc();
    block.resize(n, n);
    block.setFromTriplets(entries.begin(), entries.end());
    block.makeCompressed();

    rhs_schur = Vector::LinSpaced(chain.nc(), 1.0, 2.0);
    rhs_block = Vector::LinSpaced(n, -1.0, 1.0);
  }

  /// Our SparseLdlt's solution of A x = rhs_schur (the reference of the Schur checks).
  Vector schurReference() {
    Vector x = rhs_schur;
    if (!space.ldlt.factorize(true)) return Vector();
    space.ldlt.solveInPlace(x);
    return x;
  }

  PendulumChain chain;
  SparseConstraintSpace space;
  State start;
  Vector mass, inverse_mass;
  ColumnMatrix upper, block;
  Vector rhs_schur, rhs_block;
};

/// A solution is accepted when its backward error ‖K x − b‖∞ / (‖K‖∞ ‖x‖∞ + ‖b‖∞) is at most
/// this. (Agreement between solvers is no test here: A's condition grows like N², ~1e10 at
/// 100000 links, so correct solutions differ in their sixth digit.)
constexpr double kBackwardError = 1e-13;

double backwardError(const ColumnMatrix& K, bool upper_only, const Vector& x, const Vector& b) {
  if (x.size() != b.size() || !x.allFinite()) return 1.0;
  Vector r;
  double norm_k = 0.0;
  if (upper_only) {
    r = K.selfadjointView<Eigen::Upper>() * x - b;
    const ColumnMatrix full = K.selfadjointView<Eigen::Upper>();
    for (Index64 j = 0; j < full.outerSize(); ++j) {
      double column = 0.0;  // symmetric: the 1-norm of a column is the ∞-norm of its row
      for (ColumnMatrix::InnerIterator it(full, j); it; ++it) column += std::abs(it.value());
      norm_k = std::max(norm_k, column);
    }
  } else {
    r = K * x - b;
    Vector row_sums = Vector::Zero(K.rows());
    for (Index64 j = 0; j < K.outerSize(); ++j) {
      for (ColumnMatrix::InnerIterator it(K, j); it; ++it) row_sums[it.row()] += std::abs(it.value());
    }
    norm_k = row_sums.maxCoeff();
  }
  return r.lpNorm<Eigen::Infinity>() / (norm_k * x.lpNorm<Eigen::Infinity>() + b.lpNorm<Eigen::Infinity>());
}

/// Records the solution's backward error and its relative difference from `reference` (our
/// solver's) as counters; false (and the benchmark skipped) if the backward error is too large.
bool check(benchmark::State& state, const ColumnMatrix& K, bool upper_only, const Vector& x, const Vector& b,
           const Vector& reference, const char* solver) {
  const double error = backwardError(K, upper_only, x, b);
  state.counters["backward_error"] = error;
  if (reference.size() == x.size() && reference.size() > 0) {
    state.counters["rel_diff_vs_ours"] =
        (x - reference).lpNorm<Eigen::Infinity>() / reference.lpNorm<Eigen::Infinity>();
  }
  if (error <= kBackwardError) return true;
  state.SkipWithError((std::string(solver) + ": backward error " + std::to_string(error) + " > 1e-13").c_str());
  return false;
}

void finish(benchmark::State& state, long allocations) {
  state.SetItemsProcessed(state.iterations());
  if (allocations >= 0) {
    state.counters["allocs"] = benchmark::Counter(static_cast<double>(allocations), benchmark::Counter::kAvgIterations);
  }
}

void schurSparseLdlt(benchmark::State& state, int links) {
  ChainMatrices m(links);
  Vector x = m.schurReference();
  if (!check(state, m.upper, true, x, m.rhs_schur, Vector(), "SparseLdlt")) return;
  for (auto _ : state) {
    if (!m.space.ldlt.factorize(true)) {
      state.SkipWithError("SparseLdlt: a pivot broke down");
      break;
    }
    x = m.rhs_schur;  // same size: a copy, no allocation
    m.space.ldlt.solveInPlace(x);
    benchmark::DoNotOptimize(x.data());
    benchmark::ClobberMemory();
  }
  finish(state, -1);  // allocation-free by construction (sparse_ldlt.hpp)
}

void schurEigenSimplicial(benchmark::State& state, int links) {
  ChainMatrices m(links);
  const Vector reference = m.schurReference();
  Eigen::SimplicialLDLT<ColumnMatrix, Eigen::Upper> ldlt;  // AMD ordering by default
  ldlt.analyzePattern(m.upper);
  ldlt.factorize(m.upper);
  Vector x = ldlt.solve(m.rhs_schur);
  if (ldlt.info() != Eigen::Success) {
    state.SkipWithError("Eigen SimplicialLDLT failed");
    return;
  }
  if (!check(state, m.upper, true, x, m.rhs_schur, reference, "Eigen SimplicialLDLT")) return;
  for (auto _ : state) {
    ldlt.factorize(m.upper);
    x = ldlt.solve(m.rhs_schur);
    benchmark::DoNotOptimize(x.data());
    benchmark::ClobberMemory();
  }
  finish(state, -1);  // Eigen allocates outside SuiteSparse: not counted (see docs/performance.md)
}

void schurCholmod(benchmark::State& state, int links) {
  countAllocations();
  ChainMatrices m(links);
  const Vector reference = m.schurReference();
  cholmod_common common;
  cholmod_l_start(&common);
  common.supernodal = CHOLMOD_SIMPLICIAL;
  common.final_ll = 0;  // keep LDLᵀ
  common.nmethods = 1;
  common.method[0].ordering = CHOLMOD_AMD;

  cholmod_sparse A{};  // a view of m.upper: no copy
  A.nrow = A.ncol = static_cast<std::size_t>(m.upper.rows());
  A.nzmax = static_cast<std::size_t>(m.upper.nonZeros());
  A.p = m.upper.outerIndexPtr();
  A.i = m.upper.innerIndexPtr();
  A.x = m.upper.valuePtr();
  A.stype = 1;  // upper triangle stored
  A.itype = CHOLMOD_LONG;
  A.xtype = CHOLMOD_REAL;
  A.dtype = CHOLMOD_DOUBLE;
  A.sorted = 1;
  A.packed = 1;
  cholmod_dense B{};
  B.nrow = A.nrow;
  B.ncol = 1;
  B.nzmax = A.nrow;
  B.d = A.nrow;
  B.x = m.rhs_schur.data();
  B.xtype = CHOLMOD_REAL;
  B.dtype = CHOLMOD_DOUBLE;

  cholmod_factor* L = cholmod_l_analyze(&A, &common);
  cholmod_dense *X = nullptr, *Y = nullptr, *E = nullptr;  // cholmod_l_solve2 reuses them
  bool ok = L != nullptr && cholmod_l_factorize(&A, L, &common) && common.status == CHOLMOD_OK &&
            L->is_ll == 0 && L->is_super == 0 &&  // a simplicial LDLᵀ, as asked
            cholmod_l_solve2(CHOLMOD_A, L, &B, nullptr, &X, nullptr, &Y, &E, &common);
  if (!ok) {
    state.SkipWithError("CHOLMOD failed");
  } else if (check(state, m.upper, true,
                   Eigen::Map<const Vector>(static_cast<const double*>(X->x), m.rhs_schur.size()), m.rhs_schur,
                   reference, "CHOLMOD")) {
    const long before = suitesparse_allocations;
    long in_factorize = 0;
    for (auto _ : state) {
      const long before_factorize = suitesparse_allocations;
      cholmod_l_factorize(&A, L, &common);
      in_factorize += suitesparse_allocations - before_factorize;
      cholmod_l_solve2(CHOLMOD_A, L, &B, nullptr, &X, nullptr, &Y, &E, &common);
      benchmark::DoNotOptimize(X->x);
      benchmark::ClobberMemory();
    }
    finish(state, suitesparse_allocations - before);
    state.counters["allocs_in_factorize"] =
        benchmark::Counter(static_cast<double>(in_factorize), benchmark::Counter::kAvgIterations);
  }
  cholmod_l_free_dense(&X, &common);
  cholmod_l_free_dense(&Y, &common);
  cholmod_l_free_dense(&E, &common);
  cholmod_l_free_factor(&L, &common);
  cholmod_l_finish(&common);
}

void blockKlu(benchmark::State& state, int links) {
  countAllocations();
  ChainMatrices m(links);
  SparseBlockSystem block(m.space);
  block.assemble(m.mass, m.space.J, Vector::Zero(m.chain.nc()));
  if (!block.factorize()) {  // the first, pivoting factorization: not timed
    state.SkipWithError("KLU: the block matrix is singular");
    return;
  }
  Vector x = m.rhs_block;
  block.solveInPlace(x);
  if (!check(state, m.block, false, x, m.rhs_block, Vector(), "SparseBlockSystem (KLU)")) return;
  const long before = suitesparse_allocations;
  for (auto _ : state) {
    if (!block.factorize()) {
      state.SkipWithError("KLU: the block matrix is singular");
      break;
    }
    x = m.rhs_block;
    block.solveInPlace(x);
    benchmark::DoNotOptimize(x.data());
    benchmark::ClobberMemory();
  }
  finish(state, suitesparse_allocations - before);
  state.counters["full_factorizations"] = static_cast<double>(block.fullFactorizations());
}

void blockEigenSparseLu(benchmark::State& state, int links) {
  ChainMatrices m(links);
  Eigen::SparseLU<ColumnMatrix> lu;  // COLAMD ordering by default
  lu.analyzePattern(m.block);
  lu.factorize(m.block);
  Vector x = lu.solve(m.rhs_block);
  if (lu.info() != Eigen::Success) {
    state.SkipWithError("Eigen SparseLU failed");
    return;
  }
  SparseBlockSystem ours(m.space);  // for the difference from ours only
  ours.assemble(m.mass, m.space.J, Vector::Zero(m.chain.nc()));
  Vector reference = m.rhs_block;
  if (ours.factorize()) ours.solveInPlace(reference);
  if (!check(state, m.block, false, x, m.rhs_block, reference, "Eigen SparseLU")) return;
  for (auto _ : state) {
    lu.factorize(m.block);
    x = lu.solve(m.rhs_block);
    benchmark::DoNotOptimize(x.data());
    benchmark::ClobberMemory();
  }
  finish(state, -1);
}

}  // namespace

void registerFactorizationBenchmarks() {
  const std::vector<int> sizes{1000, 10000, 100000};
  registerOverSizes("factor/schur/sparse_ldlt", schurSparseLdlt, sizes);
  registerOverSizes("factor/schur/eigen_simplicial", schurEigenSimplicial, sizes);
  registerOverSizes("factor/schur/cholmod", schurCholmod, sizes);
  registerOverSizes("factor/block/klu_refactor", blockKlu, sizes);
  registerOverSizes("factor/block/eigen_sparselu", blockEigenSparseLu, sizes);
}

}  // namespace kktdae::bench
