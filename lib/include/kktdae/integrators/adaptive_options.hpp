#pragma once
/// @file
/// Options of the SUNDIALS integrators (cvode_bdf, cvode_adams, ida_index1, ida_ggl).

#include <string_view>

#include "kktdae/core/types.hpp"

namespace kktdae {

/// The linear solver inside the implicit integrators' Newton iterations (cvode_bdf, ida_*).
enum class NewtonLinearSolver {
  /// Dense on the dense KKT path; on the sparse path, Krylov for cvode_bdf and Sparse for
  /// ida_* (when the model allows it, see Sparse; dense otherwise).
  Auto,
  /// SUNDIALS' dense LU of a difference-quotient Newton matrix: O(n²) memory, O(n³) per setup.
  Dense,
  /// ida_* only: the Newton matrix ∂F/∂y + c ∂F/∂ẏ assembled in a fixed sparse pattern (exact
  /// structural blocks; curvature blocks from difference quotients of J and γ along colored
  /// directions) and factorized by KLU. Needs a sparse J, a constant diagonal M, a bias h that
  /// does not depend on (q, q̇) (ConstrainedSystem::biasDependsOnState() false), no inputs and
  /// scleronomic constraints.
  Sparse,
  /// cvode_bdf only: SPGMR, matrix-free (Jacobian–vector products by difference quotients, each
  /// one right-hand side through the KKT solve), no preconditioner.
  Krylov,
};

/// "auto" / "dense" / "sparse" / "krylov".
std::string_view toString(NewtonLinearSolver solver);

/// Where the dense Newton matrix of cvode_bdf and ida_* comes from (the sparse and Krylov
/// solvers have their own: see NewtonLinearSolver).
enum class NewtonMatrix {
  /// Assembled from the model's derivatives (DynamicsJacobian: M, J and columns of differences
  /// of h, J, γ, S), docs/newton-matrices.md: about 2nq model calls per matrix instead of one
  /// residual or right-hand side per column of the matrix.
  Analytic,
  /// SUNDIALS' own difference quotient: one residual (IDA) or right-hand side with its KKT solve
  /// (CVODE) per column of the matrix.
  DifferenceQuotient,
};

/// "analytic" / "difference_quotient".
std::string_view toString(NewtonMatrix matrix);

/// Settings of the adaptive integrators (CVODE and IDA): tolerances, step limits and the Newton
/// iteration's matrix and linear solver.
struct AdaptiveOptions {
  /// Relative tolerance of the local error test (> 0). Seed 002's lesson uses 1e-6.
  double rtol = 1e-6;
  /// Absolute tolerance (> 0) for every component, unless atol_per_component is given.
  double atol = 1e-9;
  /// Optional per-component absolute tolerances for (q, v), size 2·nq, all > 0. ida_index1's λ
  /// takes the scalar atol; ida_ggl's λ and μ take ggl_multiplier_atol.
  Vector atol_per_component;
  /// ida_ggl only: absolute weight of λ and μ in IDA's Newton convergence test (they are left
  /// out of the error test). Index-2 multipliers are determined only to O(ε/h²), so a tight
  /// weight makes Newton fail at the first step; measured on the double and triple pendulum over
  /// 20 s, 1 converges from rtol 1e-4 to 1e-10 with ‖φ‖∞ between 0.3 and 2.6 (rtol + atol)
  /// (docs/integrators.md).
  double ggl_multiplier_atol = 1.0;
  /// Largest step the solver may take [s]; 0 means no limit.
  double max_step = 0.0;
  /// Most internal steps between two outputs before the run fails (SUNDIALS' mxstep).
  long max_steps = 100000;
  /// First step to try [s]; 0 lets the solver estimate it (ida_ggl then starts at 1e-4 of the
  /// output spacing: IDA's estimate from a start at rest is too small for GGL's Newton).
  double initial_step = 0.0;
  /// false: outputs between internal steps are interpolated (the solver steps freely; an
  /// interpolated state is off the manifold by the interpolation error). true: the solver stops
  /// exactly at every output time (more steps on fine output grids, states are true steps).
  bool stop_at_outputs = false;
  /// The Newton iterations' linear solver (see NewtonLinearSolver); Summary::linear_solver says
  /// which one ran.
  NewtonLinearSolver linear_solver = NewtonLinearSolver::Auto;
  /// The dense Newton matrix's source (cvode_bdf, ida_*; see NewtonMatrix). Analytic falls back
  /// to DifferenceQuotient for the soft constraint (Summary::notes says so).
  NewtonMatrix newton_matrix = NewtonMatrix::Analytic;
  /// Krylov only: the largest Krylov subspace (SPGMR's maxl, ≥ 1).
  int krylov_dimension = 20;

  /// Throws std::invalid_argument naming the bad field; nq sizes atol_per_component.
  void validate(int nq) const;
};

}  // namespace kktdae
