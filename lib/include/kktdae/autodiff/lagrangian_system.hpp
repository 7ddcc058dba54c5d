#pragma once
/// @file
/// Models from a Lagrangian: write the kinetic energy T(q, q̇, t), the potential V(q, t) and the
/// constraints φ(q, t) once over a template scalar; kktdae derives everything the KKT solve needs.
///
/// The Euler–Lagrange equations d/dt(∂T/∂q̇) − ∂T/∂q + ∂V/∂q = Sᵀu + Jᵀλ, with the total time
/// derivative expanded, are M q̈ + h = Sᵀu + Jᵀλ with
///
///     M = ∂²T/∂q̇²                                   Mᵢⱼ = ∂²T/∂q̇ᵢ∂q̇ⱼ
///     h = (∂²T/∂q̇∂q) q̇ + ∂²T/∂q̇∂t − ∂T/∂q + ∂V/∂q    (∂²T/∂q̇∂q)ᵢⱼ = ∂²T/∂q̇ᵢ∂qⱼ
///
/// i.e. hᵢ = Σⱼ (∂²T/∂q̇ᵢ∂qⱼ) q̇ⱼ + ∂²T/∂q̇ᵢ∂t − ∂T/∂qᵢ + ∂V/∂qᵢ: the row index is the velocity
/// being differentiated, the column index the coordinate, and the product runs over the
/// coordinate. Generalized forces that are not conservative, and inputs, enter through
/// nu()/inputMap() (Sᵀu), never through V.
///
/// Each derived quantity is a handful of dual evaluations of T or V (dual.hpp):
///
///     Mᵢⱼ (i ≥ j)  ε₁ε₂ part of T(q, 0 + eᵢ ε₁ + eⱼ ε₂, 0)                    nq(nq+1)/2 nested
///     Aᵢ           ε₁ε₂ part of T(q + q̇ ε₂, q̇ + eᵢ ε₁, t + ε₂) = row i of
///                  (∂²T/∂q̇∂q) q̇ + ∂²T/∂q̇∂t                                 nq nested
///     ∂T/∂qᵢ, ∂V/∂qᵢ   ε part of T(q + eᵢ ε, q̇, t), V(q + eᵢ ε, t)          2 nq first-order
///
/// and J, ∂φ/∂t, γ come from AutoDiffConstraints. No step size, no truncation error.

#include "kktdae/autodiff/autodiff_constraints.hpp"

namespace kktdae {

/// CRTP base for a model given by its Lagrangian. The user class
/// `Derived : public LagrangianSystem<Derived>` defines
///
///     template <typename Scalar>
///     Scalar kinetic(ConstVectorRefOf<Scalar> q, ConstVectorRefOf<Scalar> v, const Scalar& t) const;
///     template <typename Scalar>
///     Scalar potential(ConstVectorRefOf<Scalar> q, const Scalar& t) const;
///     template <typename Scalar>                      // only when nc > 0
///     void phi(ConstVectorRefOf<Scalar> q, const Scalar& t, VectorRefOf<Scalar> phi) const;
///
/// with q, v of size nq and phi of size nc, plus name(), and nu()/inputMap() when actuated. Every
/// derived piece (massMatrix, bias, the constraint terms, the energies) stays virtual, so a
/// subclass can replace any of them by a hand-written version for speed.
///
/// Requirements, because ConstrainedSystem::massMatrix(q) and kineticEnergy(q, q̇) take no time:
/// T must be quadratic in q̇ with a time-independent quadratic part,
/// T = ½ q̇ᵀM(q)q̇ + b(q, t)ᵀq̇ + T₀(q, t) (every mechanical system, moving frames included).
/// M is evaluated at q̇ = 0, t = 0; kineticEnergy() is T(q, q̇, 0) (kineticEnergyAt() takes a
/// time); h is exact at every (q, q̇, t).
///
/// @tparam Derived the user's model (CRTP)
/// @tparam MaxSize capacity of the stack buffers: nq and nc must not exceed it
template <typename Derived, int MaxSize = kDefaultAutoDiffCapacity>
class LagrangianSystem : public AutoDiffConstraints<Derived, MaxSize> {
  using Base = AutoDiffConstraints<Derived, MaxSize>;
  using D = Dual<double>;
  using DD = Dual<D>;

 public:
  /// M = ∂²T/∂q̇² depends on q in general: dense, factorized by Cholesky in the Schur form.
  MassStructure massStructure() const override { return MassStructure::General; }

  /// M(q) = ∂²T/∂q̇², one nested sweep per entry of the lower triangle, mirrored to the upper
  /// (exactly symmetric). Sizes: q nq; M nq×nq.
  void massMatrix(ConstVectorRef q, MatrixRef M) const override {
    const int n = this->nq();
    FixedCapacityVector<DD, MaxSize> q_dual(n);
    FixedCapacityVector<DD, MaxSize> v_dual(n);
    for (int k = 0; k < n; ++k) {
      q_dual[k] = DD(q[k]);
      v_dual[k] = DD(0.0);  // M of a T quadratic in q̇ is the same at every q̇; 0 is the cheapest
    }
    const DD t_dual(0.0);
    for (int j = 0; j < n; ++j) {
      v_dual[j].derivative.value = 1.0;  // outer seed eⱼ (ε₂)
      for (int i = j; i < n; ++i) {
        v_dual[i].value.derivative = 1.0;  // inner seed eᵢ (ε₁); i = j gives eⱼᵀ (∂²T/∂q̇²) eⱼ
        const DD kinetic_dual = derived().template kinetic<DD>(q_dual, v_dual, t_dual);
        M(i, j) = kinetic_dual.derivative.derivative;
        M(j, i) = M(i, j);
        v_dual[i].value.derivative = 0.0;
      }
      v_dual[j].derivative.value = 0.0;
    }
  }

  /// h = (∂²T/∂q̇∂q) q̇ + ∂²T/∂q̇∂t − ∂T/∂q + ∂V/∂q, with (∂²T/∂q̇∂q)ᵢⱼ = ∂²T/∂q̇ᵢ∂qⱼ.
  /// Per coordinate one nested sweep of T and one first-order sweep each of T and V.
  /// Sizes: q, v nq; h nq.
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override {
    const int n = this->nq();
    // Nested: the outer direction ε₂ moves along the motion, (q, q̇, t) → (q + q̇ s, q̇, t + s);
    // the inner ε₁ picks the velocity q̇ᵢ being differentiated.
    FixedCapacityVector<DD, MaxSize> q_nested(n);
    FixedCapacityVector<DD, MaxSize> v_nested(n);
    // First order: the coordinate qᵢ being differentiated.
    FixedCapacityVector<D, MaxSize> q_first(n);
    FixedCapacityVector<D, MaxSize> v_first(n);
    for (int k = 0; k < n; ++k) {
      q_nested[k] = DD(D(q[k], 0.0), D(v[k], 0.0));
      v_nested[k] = DD(D(v[k], 0.0), D(0.0, 0.0));
      q_first[k] = D(q[k], 0.0);
      v_first[k] = D(v[k], 0.0);
    }
    const DD t_nested(D(t, 0.0), D(1.0, 0.0));
    const D t_first(t, 0.0);
    for (int i = 0; i < n; ++i) {
      v_nested[i].value.derivative = 1.0;
      const double velocity_terms =
          derived().template kinetic<DD>(q_nested, v_nested, t_nested).derivative.derivative;
      v_nested[i].value.derivative = 0.0;

      q_first[i].derivative = 1.0;
      const double kinetic_gradient = derived().template kinetic<D>(q_first, v_first, t_first).derivative;
      const double potential_gradient = derived().template potential<D>(q_first, t_first).derivative;
      q_first[i].derivative = 0.0;

      h[i] = velocity_terms - kinetic_gradient + potential_gradient;
    }
  }

  /// T(q, q̇, 0) (the interface's kinetic energy has no time argument). Sizes: q, v nq.
  double kineticEnergy(ConstVectorRef q, ConstVectorRef v) const override { return kineticEnergyAt(q, v, 0.0); }

  /// T(q, q̇, t) at an explicit time. Sizes: q, v nq.
  double kineticEnergyAt(ConstVectorRef q, ConstVectorRef v, double t) const {
    return derived().template kinetic<double>(q, v, t);
  }

  /// V(q, t). Sizes: q nq.
  double potentialEnergy(ConstVectorRef q, double t) const override {
    return derived().template potential<double>(q, t);
  }

 protected:
  /// Fixes the sizes. Throws std::invalid_argument unless 0 ≤ nq, nc ≤ MaxSize, and when nc > 0
  /// but Derived defines no `phi` template.
  LagrangianSystem(int nq, int nc) : Base(nq, nc) {}

  using Base::derived;
};

}  // namespace kktdae
