#pragma once
/// @file
/// Parameter derivatives from the model's own formulas: write M(q, p), h(q, q̇, t, p) and φ(q, t)
/// (or φ(q, t, p)) once over a template scalar, with the parameters p as an input like q, and get a
/// ParametricSystem (sensitivity/parametric_system.hpp) whose every derivative comes from
/// forward-mode Dual numbers (dual.hpp), exact to rounding:
///
///     D(:, j) = d/ds [M(q, p + s eⱼ) a + h(q, q̇, t, p + s eⱼ)]       np first-order sweeps of M and h
///     δM, δh  = d/ds [M, h](q + s δq, q̇ + s δq̇)                       one first-order sweep each
///     δJ(:, j) = ε₁ε₂ part of φ(q + eⱼ ε₁ + δq ε₂, t)                 nq nested sweeps of φ
///     δγ      = the tangent part of γ's nested sweep (three levels)    one sweep of φ
///     δ(∂φ/∂t) = ε₁ε₂ part of φ(q + δq ε₂, t + ε₁)                    one nested sweep of φ
///
/// and J, ∂φ/∂t, γ as AutoDiffConstraints derives them. h is vector-valued, so one sweep gives
/// its whole tangent: a model with a Lagrangian writes h from it by hand (or by LagrangianSystem's
/// formulas) and passes it here. When φ takes p as well (a length, a driver's amplitude), the
/// constraints depend on the parameters and, for each parameter i,
///
///     ∂φ/∂p(:, i)      = d/ds φ(q, t, p + s eᵢ)                          np first-order sweeps
///     ∂J/∂pᵢ(:, j)     = ε₁ε₂ part of φ(q + eⱼ ε₁, t, p + eᵢ ε₂)          nq nested sweeps
///     ∂(∂φ/∂t)/∂pᵢ     = ε₁ε₂ part of φ(q, t + ε₁, p + eᵢ ε₂)             one nested sweep
///     ∂γ/∂pᵢ           = γ's nested sweep over p + eᵢ ε₃ (three levels)    one sweep

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kktdae/autodiff/autodiff_constraints.hpp"
#include "kktdae/autodiff/dual.hpp"
#include "kktdae/sensitivity/parametric_system.hpp"

namespace kktdae {

/// A dense matrix over any scalar (double or a dual).
template <typename Scalar>
using MatrixOf = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
/// Output matrix argument of a templated model function, already of the documented size.
template <typename Scalar>
using MatrixRefOf = Eigen::Ref<MatrixOf<Scalar>>;

namespace detail {

/// Throws std::invalid_argument unless `names` has as many distinct, non-empty entries as
/// `values`, every value finite and np ≤ max_size.
void checkParameterDeclaration(const std::vector<std::string>& names, ConstVectorRef values, int max_size);
/// Throws std::invalid_argument naming `model` unless p has np entries, all finite.
void checkParameterValues(const std::string& model, const std::vector<std::string>& names, ConstVectorRef p);

}  // namespace detail

/// CRTP base that turns a model written over a template scalar, with its parameters as an input,
/// into a ParametricSystem. The user class `Derived : public AutoDiffParametricSystem<Derived>`
/// defines
///
///     template <typename Scalar>       // M(q, p), nq × nq, symmetric positive definite
///     void M(ConstVectorRefOf<Scalar> q, ConstVectorRefOf<Scalar> p, MatrixRefOf<Scalar> M) const;
///     template <typename Scalar>       // h(q, q̇, t, p), nq: M q̈ + h = Jᵀλ
///     void h(ConstVectorRefOf<Scalar> q, ConstVectorRefOf<Scalar> v, const Scalar& t,
///            ConstVectorRefOf<Scalar> p, VectorRefOf<Scalar> h) const;
///     template <typename Scalar>       // φ(q, t), nc; only when nc > 0 (AutoDiffConstraints)
///     void phi(ConstVectorRefOf<Scalar> q, const Scalar& t, VectorRefOf<Scalar> phi) const;
///
/// or, for constraints that depend on the parameters (constraintsDependOnParameters() is then true),
///
///     template <typename Scalar>       // φ(q, t, p), nc
///     void phi(ConstVectorRefOf<Scalar> q, const Scalar& t, ConstVectorRefOf<Scalar> p,
///              VectorRefOf<Scalar> phi) const;
///
/// plus, by hand, name() and potentialEnergy() (and massStructure() ConstantDiagonal when M does
/// not depend on q: the tangent then skips δM). Derived must be copy-constructible:
/// withParameterValues() copies it and changes only p, which the base holds. The parameters
/// are passed to M, h (and φ(q, t, p)) on every call (as doubles, or as constant duals in the
/// tangent), so the model reads them from its argument, never from a member.
///
/// Cost: the terms themselves are one evaluation of M or h in double; M's evaluation for
/// massMatrix()/massDiagonal() and the dual M of the derivatives allocate (a dense nq × nq
/// matrix); everything else uses stack buffers of capacity MaxSize.
///
/// @tparam Derived the user's model (CRTP)
/// @tparam MaxSize capacity of the stack buffers: nq, nc and np must not exceed it
template <typename Derived, int MaxSize = kDefaultAutoDiffCapacity>
class AutoDiffParametricSystem : public AutoDiffConstraints<Derived, MaxSize, ParametricSystem> {
  using Base = AutoDiffConstraints<Derived, MaxSize, ParametricSystem>;
  using D1 = Dual<double>;
  using D2 = Dual<D1>;
  using D3 = Dual<D2>;
  friend Base;  // evaluatePhi() calls phiAtOwnParameters()
  /// Whether the model writes φ(q, t, p). A function, not a constant: Derived is complete only
  /// when member bodies are instantiated.
  static constexpr bool parametricPhi() { return detail::HasParametricConstraintFunction<Derived>::value; }

 public:
  /// M(q, p) is dense unless the model says otherwise (override with ConstantDiagonal when M
  /// does not depend on q).
  MassStructure massStructure() const override { return MassStructure::General; }
  /// M(q, p) from the model's M in double. Sizes: q nq; M nq×nq.
  void massMatrix(ConstVectorRef q, MatrixRef M) const override { derived().template M<double>(q, p_, M); }
  /// The diagonal of M(q, p) (allocates an nq × nq matrix). Sizes: q, d nq.
  void massDiagonal(ConstVectorRef q, VectorRef d) const override {
    Matrix M(this->nq(), this->nq());
    derived().template M<double>(q, p_, M);
    d = M.diagonal();
  }
  /// h(q, q̇, t, p) from the model's h in double. Sizes: q, v, h nq.
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override {
    derived().template h<double>(q, v, t, p_, h);
  }

  /// np, fixed at construction.
  int np() const final { return static_cast<int>(names_.size()); }
  /// The name given at construction; throws std::invalid_argument for i out of [0, np).
  std::string parameterName(int i) const final {
    if (i < 0 || i >= np()) checkIndex(i);
    return names_[static_cast<std::size_t>(i)];
  }
  /// p, np.
  Vector parameterValues() const final { return p_; }
  /// A copy of the model with p instead; throws std::invalid_argument for a wrong size, a
  /// non-finite value, or what validateParameterValues() refuses.
  std::unique_ptr<ParametricSystem> withParameterValues(ConstVectorRef p) const override {
    detail::checkParameterValues(this->name(), names_, p);
    validateParameterValues(p);
    auto copy = std::make_unique<Derived>(derived());
    static_cast<AutoDiffParametricSystem&>(*copy).p_ = p;
    return copy;
  }
  /// Refuses values the model cannot take (a negative mass, say) with std::invalid_argument
  /// naming the parameter and the value; accepts every finite p unless overridden.
  virtual void validateParameterValues(ConstVectorRef /*p*/) const {}

  /// D(:, j) = d/ds [M(q, p + s eⱼ) a + h(q, q̇, t, p + s eⱼ)], one sweep of M and h per
  /// parameter. Sizes: q, v, a nq; D nq×np.
  void dynamicsParameterJacobian(ConstVectorRef q, ConstVectorRef v, ConstVectorRef a, double t,
                                 MatrixRef D) const override {
    const int n = this->nq(), m = np();
    FixedCapacityVector<D1, MaxSize> q_dual(n), v_dual(n), p_dual(m), h_dual(n);
    for (int k = 0; k < n; ++k) {
      q_dual[k] = D1(q[k], 0.0);
      v_dual[k] = D1(v[k], 0.0);
    }
    for (int k = 0; k < m; ++k) p_dual[k] = D1(p_[k], 0.0);
    MatrixOf<D1> M_dual(n, n);
    const D1 t_dual(t, 0.0);
    for (int j = 0; j < m; ++j) {
      p_dual[j].derivative = 1.0;
      derived().template M<D1>(q_dual, p_dual, M_dual);
      derived().template h<D1>(q_dual, v_dual, t_dual, p_dual, h_dual);
      for (int i = 0; i < n; ++i) {
        double row = h_dual[i].derivative;
        for (int k = 0; k < n; ++k) row += M_dual(i, k).derivative * a[k];
        D(i, j) = row;
      }
      p_dual[j].derivative = 0.0;
    }
  }

  /// δM, δh, δJ, δγ, δ(∂φ/∂t) along (δq, δq̇), by the sweeps of the file comment.
  /// Sizes: q, v, dq, dv nq; the views of `out` as ModelTermsTangent documents.
  void termsTangent(ConstVectorRef q, ConstVectorRef v, double t, ConstVectorRef dq, ConstVectorRef dv,
                    ModelTermsTangent& out) const override {
    const int n = this->nq(), nc = this->nc(), m = np();
    FixedCapacityVector<D1, MaxSize> q_dual(n), v_dual(n), p_dual(m), h_dual(n);
    for (int k = 0; k < n; ++k) {
      q_dual[k] = D1(q[k], dq[k]);
      v_dual[k] = D1(v[k], dv[k]);
    }
    for (int k = 0; k < m; ++k) p_dual[k] = D1(p_[k], 0.0);
    const D1 t_dual(t, 0.0);
    if (massStructure() == MassStructure::ConstantDiagonal) {
      out.M.setZero();
    } else {
      MatrixOf<D1> M_dual(n, n);
      derived().template M<D1>(q_dual, p_dual, M_dual);
      for (int c = 0; c < n; ++c) {
        for (int r = 0; r < n; ++r) out.M(r, c) = M_dual(r, c).derivative;
      }
    }
    derived().template h<D1>(q_dual, v_dual, t_dual, p_dual, h_dual);
    for (int k = 0; k < n; ++k) out.h[k] = h_dual[k].derivative;
    if (nc == 0) return;
    if constexpr (detail::kHasAnyConstraintFunction<Derived>) {
      constraintTangents(q, v, t, dq, dv, out);
    }
  }

  /// True when the model writes φ(q, t, p) (the parameters enter the constraints).
  bool constraintsDependOnParameters() const override { return parametricPhi(); }

  /// P(:, i) = d/ds φ(q, t, p + s eᵢ), one sweep per parameter (zeros for φ(q, t)).
  /// Sizes: q nq; P nc×np.
  void constraintParameterJacobian(ConstVectorRef q, double t, MatrixRef P) const override {
    if constexpr (parametricPhi()) {
      const int n = this->nq(), nc = this->nc(), m = np();
      FixedCapacityVector<D1, MaxSize> q_dual(n), p_dual(m), phi_dual(nc);
      for (int k = 0; k < n; ++k) q_dual[k] = D1(q[k], 0.0);
      for (int k = 0; k < m; ++k) p_dual[k] = D1(p_[k], 0.0);
      const D1 t_dual(t, 0.0);
      for (int i = 0; i < m; ++i) {
        p_dual[i].derivative = 1.0;
        derived().template phi<D1>(q_dual, t_dual, p_dual, phi_dual);
        for (int r = 0; r < nc; ++r) P(r, i) = phi_dual[r].derivative;
        p_dual[i].derivative = 0.0;
      }
    } else {
      P.setZero();
    }
  }

  /// ∂J/∂pᵢ, ∂γ/∂pᵢ and ∂(∂φ/∂t)/∂pᵢ by the nested sweeps of the file comment (zeros for φ(q, t)).
  /// Throws std::invalid_argument for `parameter` outside [0, np). Sizes: q, v nq; the views of
  /// `out` as ConstraintParameterTangent documents.
  void constraintParameterTangent(ConstVectorRef q, ConstVectorRef v, double t, int parameter,
                                  ConstraintParameterTangent& out) const override {
    if (parameter < 0 || parameter >= np()) checkIndex(parameter);
    if constexpr (parametricPhi()) {
      const int n = this->nq(), nc = this->nc(), m = np();
      // ∂J/∂pᵢ(:, j) and ∂(∂φ/∂t)/∂pᵢ: inner ε₁ along qⱼ (or t), outer ε₂ along pᵢ.
      FixedCapacityVector<D2, MaxSize> q2(n), p2(m), phi2(nc);
      for (int k = 0; k < n; ++k) q2[k] = D2(D1(q[k], 0.0), D1(0.0, 0.0));
      for (int k = 0; k < m; ++k) p2[k] = D2(D1(p_[k], 0.0), D1(k == parameter ? 1.0 : 0.0, 0.0));
      const D2 t_fixed(D1(t, 0.0), D1(0.0, 0.0));
      for (int j = 0; j < n; ++j) {
        q2[j].value.derivative = 1.0;
        derived().template phi<D2>(q2, t_fixed, p2, phi2);
        for (int r = 0; r < nc; ++r) out.J(r, j) = phi2[r].derivative.derivative;
        q2[j].value.derivative = 0.0;
      }
      derived().template phi<D2>(q2, D2(D1(t, 1.0), D1(0.0, 0.0)), p2, phi2);
      for (int r = 0; r < nc; ++r) out.phi_t[r] = phi2[r].derivative.derivative;
      // ∂γ/∂pᵢ: γ's sweep (ε₁, ε₂ along the motion) over p + eᵢ ε₃ on the innermost level.
      FixedCapacityVector<D3, MaxSize> q3(n), p3(m), phi3(nc);
      for (int k = 0; k < n; ++k) {
        const D1 position(q[k], 0.0), velocity(v[k], 0.0);
        q3[k] = D3(D2(position, velocity), D2(velocity, D1(0.0, 0.0)));
      }
      for (int k = 0; k < m; ++k) p3[k] = D3(D2(D1(p_[k], k == parameter ? 1.0 : 0.0)));
      const D3 t3(D2(D1(t, 0.0), D1(1.0, 0.0)), D2(D1(1.0, 0.0), D1(0.0, 0.0)));
      derived().template phi<D3>(q3, t3, p3, phi3);
      for (int r = 0; r < nc; ++r) out.gamma[r] = phi3[r].derivative.derivative.derivative;
    } else {
      out.J.setZero();
      out.gamma.setZero();
      out.phi_t.setZero();
    }
  }

 protected:
  /// Fixes the sizes and declares the parameters: `names` (distinct, non-empty) with their
  /// current `values`. Throws std::invalid_argument for sizes beyond MaxSize, a missing φ
  /// template (nc > 0), a repeated or empty name, a size mismatch or a non-finite value.
  AutoDiffParametricSystem(int nq, int nc, std::vector<std::string> names, ConstVectorRef values)
      : Base(nq, nc), names_(std::move(names)), p_(values) {
    detail::checkParameterDeclaration(names_, p_, MaxSize);
  }

  using Base::derived;

 private:
  [[noreturn]] void checkIndex(int i) const {
    throw std::invalid_argument(this->name() + " has parameters 0 to " + std::to_string(np() - 1) + ", asked for " +
                                std::to_string(i));
  }

  /// φ(q, t, p) over Scalar at the parameters held here (constants): what evaluatePhi() calls.
  template <typename Scalar>
  void phiAtOwnParameters(ConstVectorRefOf<Scalar> q, const Scalar& t, VectorRefOf<Scalar> phi) const {
    FixedCapacityVector<Scalar, MaxSize> p(np());
    for (int k = 0; k < np(); ++k) p[k] = Scalar(p_[k]);
    derived().template phi<Scalar>(q, t, p, phi);
  }

  /// δJ, δγ, δ(∂φ/∂t) from nested sweeps of φ whose innermost level carries the tangent.
  void constraintTangents(ConstVectorRef q, ConstVectorRef v, double t, ConstVectorRef dq, ConstVectorRef dv,
                          ModelTermsTangent& out) const {
    const int n = this->nq(), nc = this->nc();
    FixedCapacityVector<D2, MaxSize> q2(n), phi2(nc);
    // δJ(:, j): inner ε₁ = eⱼ (the column), outer ε₂ = δq (the tangent).
    for (int k = 0; k < n; ++k) q2[k] = D2(D1(q[k], 0.0), D1(dq[k], 0.0));
    const D2 t_fixed(D1(t, 0.0), D1(0.0, 0.0));
    for (int j = 0; j < n; ++j) {
      q2[j].value.derivative = 1.0;
      this->template evaluatePhi<D2>(q2, t_fixed, phi2);
      for (int r = 0; r < nc; ++r) out.J(r, j) = phi2[r].derivative.derivative;
      q2[j].value.derivative = 0.0;
    }
    // δ(∂φ/∂t): inner ε₁ in t, outer ε₂ = δq.
    this->template evaluatePhi<D2>(q2, D2(D1(t, 1.0), D1(0.0, 0.0)), phi2);
    for (int r = 0; r < nc; ++r) out.phi_t[r] = phi2[r].derivative.derivative;
    // δγ: γ's sweep of AutoDiffConstraints::constraintBias() (ε₁, ε₂ along the motion) over the
    // tangent dual (ε₃ along (δq, δq̇)): γ's ε₃ part.
    FixedCapacityVector<D3, MaxSize> q3(n), phi3(nc);
    for (int k = 0; k < n; ++k) {
      const D1 position(q[k], dq[k]), velocity(v[k], dv[k]);
      q3[k] = D3(D2(position, velocity), D2(velocity, D1(0.0, 0.0)));
    }
    const D3 t3(D2(D1(t, 0.0), D1(1.0, 0.0)), D2(D1(1.0, 0.0), D1(0.0, 0.0)));
    this->template evaluatePhi<D3>(q3, t3, phi3);
    for (int r = 0; r < nc; ++r) out.gamma[r] = phi3[r].derivative.derivative.derivative;
  }

  std::vector<std::string> names_;
  Vector p_;
};

}  // namespace kktdae
