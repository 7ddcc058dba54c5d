#pragma once
/// @file
/// The interface a user implements to describe a holonomic constrained system
///
///     M(q) q̈ + h(q, q̇, t) = Sᵀ(q, t) u + J(q, t)ᵀ λ,     φ(q, t) = 0,
///
/// with J = ∂φ/∂q. Every evaluation writes into a caller-owned output of the documented size,
/// so a model allocates nothing per call. All methods are const and a model keeps no mutable
/// state: one model instance may be evaluated from several threads at once, and it must not
/// change during a run. Per-step buffers live in workspaces (kkt/workspace.hpp), never here.
///
/// A model that is easier to write once over a template scalar (for automatic derivatives) is
/// wrapped into this double-precision interface by an adaptor; the interface itself stays
/// double-only so that the per-step path is plain Eigen.

#include <string>

#include "kktdae/core/types.hpp"

namespace kktdae {

/// How M(q) is structured; lets the KKT solve use a cheap M⁻¹.
enum class MassStructure {
  General,           ///< dense, depends on q: M⁻¹ through a Cholesky factorization (Schur form)
  Diagonal,          ///< diagonal, may depend on q: M⁻¹ entrywise
  ConstantDiagonal,  ///< diagonal and independent of q: the solve may cache M⁻¹ across steps
};

/// Where ConstrainedSystem::evaluateTerms() writes the terms every acceleration solve needs:
/// views of caller-owned storage, each of the size its per-term method documents. The caller
/// asks for the Jacobian densely (`J` nc×nq) or as values at the sparse pattern
/// (`jacobian_values`, jacobianNonZeros()); an empty view (size 0) asks for nothing there.
struct ModelTermsOutput {
  VectorRef h;                ///< h(q, q̇, t), nq (bias())
  VectorRef phi;              ///< φ(q, t), nc (constraint())
  MatrixRef J;                ///< J(q, t), nc×nq (constraintJacobian()); or 0×0: not wanted
  VectorRef jacobian_values;  ///< J's values at the pattern (constraintJacobianValues()); or empty
  VectorRef gamma;            ///< γ(q, q̇, t), nc (constraintBias())
  VectorRef phi_t;            ///< ∂φ/∂t, nc (constraintTimeDerivative())
};

/// A constrained mechanical model: its sizes and the terms M, h, S, φ, J, ∂φ/∂t and γ evaluated
/// into caller-owned outputs, with optional energies, sparse Jacobians and structure hints (this
/// file's description). Derive from it and override what the model has.
class ConstrainedSystem {
 public:
  virtual ~ConstrainedSystem() = default;

  /// Short human-readable name, used in messages ("pendulum_chain(2)").
  virtual std::string name() const = 0;
  /// Number of generalized coordinates nq (size of q, q̇, q̈).
  virtual int nq() const = 0;
  /// Number of constraints nc (size of φ, λ).
  virtual int nc() const = 0;
  /// Number of inputs nu (size of u); 0 for an unactuated model.
  virtual int nu() const { return 0; }

  /// Structure of M, so the solve can pick its cheapest inverse.
  virtual MassStructure massStructure() const { return MassStructure::General; }
  /// M(q), symmetric, and positive definite at least on null(J) (vᵀM v > 0 for J v = 0, v ≠ 0), so
  /// that [M −Jᵀ; J 0] is nonsingular for a J of full row rank. Only KktForm::Block solves an M
  /// that is singular off null(J) (Euler parameters); the Schur form and RATTLE need M ≻ 0.
  /// Sizes: q nq; M nq×nq.
  /// The default fills a diagonal matrix from massDiagonal() for diagonal models.
  virtual void massMatrix(ConstVectorRef q, MatrixRef M) const;
  /// diag(M(q)) for models whose massStructure() is diagonal. Sizes: q nq; d nq.
  /// The default throws std::logic_error: a diagonal model must override it (simulate() reports
  /// a missing override as std::invalid_argument before the run).
  virtual void massDiagonal(ConstVectorRef q, VectorRef d) const;

  /// h(q, q̇, t): Coriolis, centrifugal, gravity and other applied forces moved to the left side,
  /// in the convention M q̈ + h = Sᵀu + Jᵀλ (gravity on a point mass m gives h_y = +m g).
  /// Sizes: q, v nq; h nq.
  virtual void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const = 0;

  /// S(q, t), the input map, so that u enters as the generalized force Sᵀu. Sizes: S nu×nq.
  /// The default writes nothing for nu = 0 and throws std::logic_error for nu > 0 (a model with
  /// inputs must say where they act; simulate() reports it as std::invalid_argument up front).
  virtual void inputMap(ConstVectorRef q, double t, MatrixRef S) const;

  /// φ(q, t). Sizes: phi nc.
  virtual void constraint(ConstVectorRef q, double t, VectorRef phi) const = 0;
  /// J(q, t) = ∂φ/∂q. Sizes: J nc×nq.
  virtual void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const = 0;
  /// ∂φ/∂t (zero for scleronomic constraints, the default). The velocity constraint is
  /// φ̇ = J q̇ + ∂φ/∂t; the solve always adds it, whatever isTimeDependent() says. Sizes: phi_t nc.
  virtual void constraintTimeDerivative(ConstVectorRef q, double t, VectorRef phi_t) const;
  /// γ = φ̈ − J q̈ = Σᵢ (∂J/∂qᵢ) q̇ᵢ q̇ + 2 (∂J/∂t) q̇ + ∂²φ/∂t², the part of the constraint
  /// acceleration that does not depend on q̈ (for scleronomic φ just J̇q̇). Sizes: q, v nq; gamma nc.
  virtual void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const = 0;

  /// All of h, φ, J (dense or its sparse values, as `out` asks), γ and ∂φ/∂t at (q, q̇, t) in
  /// one call: what the solver asks of the model on every solve. The default calls bias(),
  /// constraint(), constraintJacobian() or constraintJacobianValues(), constraintBias() and
  /// constraintTimeDerivative() in that order, so a model that implements only those is
  /// served unchanged. Override it when the terms share work (a chain computes each link
  /// vector d_k once for φ and γ) or to save the virtual calls; the override must write the
  /// per-term methods' values (the shipped ones bit for bit, model_terms_test.cpp; checkModel()
  /// compares a user's up to round-off). Sizes: q, v nq; the views of `out` as documented there.
  virtual void evaluateTerms(ConstVectorRef q, ConstVectorRef v, double t, ModelTermsOutput& out) const;

  // --- sparse Jacobian (optional): what lets the sparse path solve long chains in O(N) -------

  /// Number of structural non-zeros of J, fixed for the model's lifetime. 0, the default, means
  /// the model offers no sparse J and is always solved densely (KktPath::Auto then picks dense).
  virtual int jacobianNonZeros() const { return 0; }
  /// Where the non-zeros are: entry k is J(rows[k], cols[k]), each position at most once, in
  /// the order constraintJacobianValues() writes them. Sizes: rows, cols jacobianNonZeros().
  /// The default throws std::logic_error (a model that reports non-zeros must override it).
  virtual void constraintJacobianPattern(IndexVectorRef rows, IndexVectorRef cols) const;
  /// The values of J(q, t) at the pattern's positions, in its order; every other entry of J is
  /// zero. Must agree with constraintJacobian() (checkDerivatives compares them). Sizes: q nq;
  /// values jacobianNonZeros(). The default throws std::logic_error.
  virtual void constraintJacobianValues(ConstVectorRef q, double t, VectorRef values) const;

  /// Whether h depends on (q, q̇). True, the default, is always safe; a model whose h is
  /// constant (gravity and constant forces on point masses) returns false, which lets the sparse
  /// IDA Newton matrix (NewtonLinearSolver::Sparse) leave ∂h/∂q and ∂h/∂q̇ out.
  virtual bool biasDependsOnState() const { return true; }
  /// The band of ∂h/∂q and ∂h/∂q̇ when h depends on the state: both are zero wherever
  /// |row − column| > biasJacobianBandwidth() (a chain whose joint forces couple only
  /// neighbouring particles). −1, the default, means unknown (possibly dense): the sparse
  /// Newton matrices (SparseDynamicsJacobian) then refuse a model with biasDependsOnState().
  virtual int biasJacobianBandwidth() const { return -1; }

  /// True when φ depends on t explicitly (driven joints, prescribed motion). Informational (for
  /// reports and integrator choices); correctness never depends on it.
  virtual bool isTimeDependent() const { return false; }

  /// True when the total energy kineticEnergy() + potentialEnergy() is a first integral of the
  /// exact motion with u = 0: h is ∂V/∂q plus forces that do no work (gyroscopic, Coriolis), V and
  /// φ do not depend on t, and nothing dissipates. The divergence rule then watches the energy of
  /// a run (DivergenceOptions::energy_factor). False, the default, is always safe.
  virtual bool isConservative() const { return false; }
  /// A size of the model's energy [J] > 0 (e.g. Σm·g·ΣL for a chain: what its potential can
  /// exchange with its motion), or 0, the default: none declared. The divergence rule measures
  /// energy drift and speeds against max(energyScale(), |T₀| + |V₀|).
  virtual double energyScale() const { return 0.0; }

  /// Kinetic energy ½ q̇ᵀ M q̇. The default builds M and allocates: models override it.
  virtual double kineticEnergy(ConstVectorRef q, ConstVectorRef v) const;
  /// Potential energy V(q, t) of the conservative part of h.
  virtual double potentialEnergy(ConstVectorRef q, double t) const = 0;
  /// Kinetic plus potential energy.
  double totalEnergy(ConstVectorRef q, ConstVectorRef v, double t) const {
    return kineticEnergy(q, v) + potentialEnergy(q, t);
  }
};

/// Throws std::invalid_argument unless nq() ≥ 1, nc() ≥ 0 and nu() ≥ 0 (naming the model and the value).
void checkDimensions(const ConstrainedSystem& system);

/// Throws std::invalid_argument unless q and v have nq entries each.
void checkStateSizes(const ConstrainedSystem& system, ConstVectorRef q, ConstVectorRef v);

}  // namespace kktdae
