#pragma once
/// @file
/// Constraint derivatives from φ alone: write φ(q, t) once over a template scalar and get
/// J = ∂φ/∂q, ∂φ/∂t and γ by forward-mode automatic differentiation (Dual, dual.hpp).
///
///     J(:, j) = d/ds φ(q + s eⱼ, t)            one first-order sweep per coordinate (nq sweeps)
///     ∂φ/∂t   = d/ds φ(q, t + s)               one first-order sweep
///     γ       = d²/ds² φ(q + s q̇, t + s)       one nested (second-order) sweep
///             = φ_qq[q̇, q̇] + 2 φ_qt q̇ + φ_tt   (the γ of docs/theory.md (1.2), J̇ at frozen t)
///
/// The per-step path allocates nothing: every dual buffer is an Eigen vector of fixed capacity
/// MaxSize on the stack of the call (FixedCapacityVector), so the model stays const, keeps no
/// mutable state and may be evaluated from several threads at once.

#include <Eigen/Core>
#include <type_traits>
#include <utility>

#include "kktdae/autodiff/dual.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

/// Capacity (largest nq and nc) of the AD adaptors unless a model asks for more. 64 duals of
/// the nested kind take 2 KiB of stack per buffer.
inline constexpr int kDefaultAutoDiffCapacity = 64;

/// A column vector over any scalar (double or a dual); the type user templates are written on.
template <typename Scalar>
using VectorOf = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
/// Read-only vector argument of a templated model function: binds any contiguous vector of
/// Scalar without a copy (a VectorOf, a FixedCapacityVector, a segment).
template <typename Scalar>
using ConstVectorRefOf = const Eigen::Ref<const VectorOf<Scalar>>&;
/// Output vector argument of a templated model function, already of the documented size.
template <typename Scalar>
using VectorRefOf = Eigen::Ref<VectorOf<Scalar>>;
/// Dynamic-size vector whose storage is a fixed array of MaxSize entries inside the object: the
/// AD adaptors' buffers, created on the stack without touching the heap.
template <typename Scalar, int MaxSize>
using FixedCapacityVector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1, Eigen::ColMajor, MaxSize, 1>;

namespace detail {

/// Whether D has `template <class S> void phi(ConstVectorRefOf<S>, const S&, VectorRefOf<S>) const`.
template <typename D, typename = void>
struct HasConstraintFunction : std::false_type {};
template <typename D>
struct HasConstraintFunction<D, std::void_t<decltype(std::declval<const D&>().template phi<double>(
                                    std::declval<ConstVectorRefOf<double>>(), std::declval<const double&>(),
                                    std::declval<VectorRefOf<double>>()))>> : std::true_type {};

/// Whether D has `template <class S> void phi(ConstVectorRefOf<S> q, const S& t, ConstVectorRefOf<S> p,
/// VectorRefOf<S> phi) const`: constraints that depend on parameters p (AutoDiffParametricSystem).
template <typename D, typename = void>
struct HasParametricConstraintFunction : std::false_type {};
template <typename D>
struct HasParametricConstraintFunction<D, std::void_t<decltype(std::declval<const D&>().template phi<double>(
                                              std::declval<ConstVectorRefOf<double>>(), std::declval<const double&>(),
                                              std::declval<ConstVectorRefOf<double>>(),
                                              std::declval<VectorRefOf<double>>()))>> : std::true_type {};

/// Whether D defines φ in either form.
template <typename D>
inline constexpr bool kHasAnyConstraintFunction =
    HasConstraintFunction<D>::value || HasParametricConstraintFunction<D>::value;

/// Throws std::invalid_argument unless 0 ≤ value ≤ max_size.
void requireAutoDiffSize(const char* what, int value, int max_size);
/// Throws std::invalid_argument: nc > 0 but the model defines no φ template.
[[noreturn]] void throwMissingConstraintFunction(int nc);

}  // namespace detail

/// CRTP base that turns a user's templated constraint function into the constraint half of
/// ConstrainedSystem. The user class `Derived : public AutoDiffConstraints<Derived>` defines
///
///     template <typename Scalar>
///     void phi(ConstVectorRefOf<Scalar> q, const Scalar& t, VectorRefOf<Scalar> phi) const;
///
/// (q of size nq, phi of size nc; only +, −, ×, ÷, the functions of dual.hpp and fixed-size
/// Eigen temporaries — a heap-allocating temporary inside φ would allocate on every call), or, in
/// an AutoDiffParametricSystem, the same with the parameters p as a third argument,
/// `phi(q, t, p, phi)`; plus, by hand, what the constraints do not determine: name(),
/// massStructure() and massMatrix() or massDiagonal(), bias(), potentialEnergy(),
/// kineticEnergy(), and nu()/inputMap() if actuated.
/// Any derived piece stays virtual and may be replaced by a hand-written one for speed.
///
/// Cost per call: constraint() one evaluation of φ in double; J nq evaluations on Dual<double>;
/// ∂φ/∂t one on Dual<double>; γ one on Dual<Dual<double>> (measured figures in
/// docs/defining-models-ad.md: J of a 10-link chain about 6× the hand-written one).
///
/// @tparam Derived the user's model (CRTP)
/// @tparam MaxSize capacity of the stack buffers: nq and nc must not exceed it
/// @tparam Base the interface derived from: ConstrainedSystem, or one derived from it such as
///         ParametricSystem (autodiff_parametric_system.hpp), default-constructible
template <typename Derived, int MaxSize = kDefaultAutoDiffCapacity, typename Base = ConstrainedSystem>
class AutoDiffConstraints : public Base {
  static_assert(std::is_base_of_v<ConstrainedSystem, Base>, "Base must be a ConstrainedSystem");
  static_assert(MaxSize > 0, "MaxSize is the capacity of the dual buffers: it must be positive");

 public:
  /// The capacity of every AD buffer (largest allowed nq and nc).
  static constexpr int kMaxSize = MaxSize;

  /// nq, fixed at construction.
  int nq() const final { return nq_; }
  /// nc, fixed at construction.
  int nc() const final { return nc_; }

  /// φ(q, t) from the user's φ in double. Sizes: q nq; phi nc.
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override {
    if constexpr (detail::kHasAnyConstraintFunction<Derived>) {
      evaluatePhi<double>(q, t, phi);
    }
  }

  /// J = ∂φ/∂q, column j from one first-order sweep seeded with eⱼ. Sizes: q nq; J nc×nq.
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override {
    if constexpr (detail::kHasAnyConstraintFunction<Derived>) {
      using D = Dual<double>;
      FixedCapacityVector<D, MaxSize> q_dual(nq_);
      FixedCapacityVector<D, MaxSize> phi_dual(nc_);
      for (int i = 0; i < nq_; ++i) q_dual[i] = D(q[i], 0.0);
      const D t_dual(t, 0.0);
      for (int j = 0; j < nq_; ++j) {
        q_dual[j].derivative = 1.0;  // seed eⱼ; reset below so the next sweep sees eⱼ₊₁ only
        evaluatePhi<D>(q_dual, t_dual, phi_dual);
        for (int k = 0; k < nc_; ++k) J(k, j) = phi_dual[k].derivative;
        q_dual[j].derivative = 0.0;
      }
    }
  }

  /// ∂φ/∂t from one sweep seeded in t; computed for every model (correctness must not depend on
  /// isTimeDependent(), see constrained_system.hpp). Sizes: q nq; phi_t nc.
  void constraintTimeDerivative(ConstVectorRef q, double t, VectorRef phi_t) const override {
    if constexpr (detail::kHasAnyConstraintFunction<Derived>) {
      using D = Dual<double>;
      FixedCapacityVector<D, MaxSize> q_dual(nq_);
      FixedCapacityVector<D, MaxSize> phi_dual(nc_);
      for (int i = 0; i < nq_; ++i) q_dual[i] = D(q[i], 0.0);
      evaluatePhi<D>(q_dual, D(t, 1.0), phi_dual);
      for (int k = 0; k < nc_; ++k) phi_t[k] = phi_dual[k].derivative;
    }
  }

  /// γ = d²/ds² φ(q + s q̇, t + s) at s = 0 = φ_qq[q̇, q̇] + 2 φ_qt q̇ + φ_tt, from one nested
  /// sweep: q = (q + q̇ ε₁) + (q̇ + 0 ε₁) ε₂ and t = (t + ε₁) + (1 + 0 ε₁) ε₂; γ is the ε₁ε₂
  /// coefficient. Sizes: q, v nq; gamma nc.
  void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const override {
    if constexpr (detail::kHasAnyConstraintFunction<Derived>) {
      using D = Dual<double>;
      using DD = Dual<D>;
      FixedCapacityVector<DD, MaxSize> q_dual(nq_);
      FixedCapacityVector<DD, MaxSize> phi_dual(nc_);
      for (int i = 0; i < nq_; ++i) q_dual[i] = DD(D(q[i], v[i]), D(v[i], 0.0));
      evaluatePhi<DD>(q_dual, DD(D(t, 1.0), D(1.0, 0.0)), phi_dual);
      for (int k = 0; k < nc_; ++k) gamma[k] = phi_dual[k].derivative.derivative;
    }
  }

 protected:
  /// Fixes the sizes. Throws std::invalid_argument unless 0 ≤ nq, nc ≤ MaxSize, and when nc > 0
  /// but Derived defines no `phi` template.
  AutoDiffConstraints(int nq, int nc) : nq_(nq), nc_(nc) {
    detail::requireAutoDiffSize("nq", nq, MaxSize);
    detail::requireAutoDiffSize("nc", nc, MaxSize);
    if constexpr (!detail::kHasAnyConstraintFunction<Derived>) {
      if (nc != 0) detail::throwMissingConstraintFunction(nc);
    }
  }

  /// The user's model (CRTP).
  const Derived& derived() const { return static_cast<const Derived&>(*this); }

  /// φ(q, t) over Scalar: the model's φ(q, t), or its φ(q, t, p) at the parameters the model holds
  /// (AutoDiffParametricSystem, whose parameters enter as constants).
  template <typename Scalar>
  void evaluatePhi(ConstVectorRefOf<Scalar> q, const Scalar& t, VectorRefOf<Scalar> phi) const {
    if constexpr (detail::HasParametricConstraintFunction<Derived>::value) {
      derived().template phiAtOwnParameters<Scalar>(q, t, phi);
    } else {
      derived().template phi<Scalar>(q, t, phi);
    }
  }

 private:
  int nq_;
  int nc_;
};

}  // namespace kktdae
