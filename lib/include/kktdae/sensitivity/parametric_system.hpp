#pragma once
/// @file
/// A constrained system with named parameters p, and the derivatives that forward
/// sensitivities s = ∂y/∂p need from it (docs/sensitivities.md):
///
///     r(q, v, a, p) = M(q, p) a + h(q, v, t, p) − Sᵀu        ∂r/∂p   (nq × np)
///     φ(q, t, p)                                              ∂φ/∂p   (nc × np)
///
/// the tangent of the model's terms along a direction (δq, δv) of the state — δM, δh, δJ, δγ,
/// δ(∂φ/∂t) — and, when φ depends on p, the derivatives of J, γ and ∂φ/∂t with respect to each
/// parameter at a fixed state, all exact (by hand, or with Dual numbers over a template scalar),
/// never a difference quotient: the sensitivity equations are the DAE differentiated along p,
/// and their residual is built from these pieces alone.

#include <memory>
#include <string>
#include <vector>

#include "kktdae/core/types.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

/// Where ParametricSystem::termsTangent() writes the directional derivatives of the model terms
/// along (δq, δv) at (q, v, t): views of caller-owned storage of the sizes below.
struct ModelTermsTangent {
  MatrixRef M;      ///< δM = Σᵢ ∂M/∂qᵢ δqᵢ, nq×nq (written zero by models with constant M)
  VectorRef h;      ///< δh = ∂h/∂q δq + ∂h/∂v δv, nq
  MatrixRef J;      ///< δJ = Σᵢ ∂J/∂qᵢ δqᵢ, nc×nq
  VectorRef gamma;  ///< δγ = ∂γ/∂q δq + ∂γ/∂v δv, nc
  VectorRef phi_t;  ///< δ(∂φ/∂t) = ∂²φ/∂t∂q δq, nc
};

/// Where ParametricSystem::constraintParameterTangent() writes the derivatives of the constraint
/// terms with respect to one parameter pᵢ at a fixed state (q, v, t): views of caller-owned
/// storage of the sizes below.
struct ConstraintParameterTangent {
  MatrixRef J;      ///< ∂J/∂pᵢ = ∂²φ/∂q∂pᵢ, nc×nq
  VectorRef gamma;  ///< ∂γ/∂pᵢ at fixed (q, v, t), nc
  VectorRef phi_t;  ///< ∂(∂φ/∂t)/∂pᵢ = ∂²φ/∂t∂pᵢ, nc
};

/// A ConstrainedSystem whose terms depend on np named parameters p (masses, lengths, stiffness,
/// damping, gains, input amplitudes). The parameters are part of the model (constant during a
/// run); withParameterValues() makes the same model at other values (for central differences).
class ParametricSystem : public ConstrainedSystem {
 public:
  /// Number of parameters np ≥ 1.
  virtual int np() const = 0;
  /// The name of parameter i (0 ≤ i < np), e.g. "k"; names are distinct.
  virtual std::string parameterName(int i) const = 0;
  /// The current values p, np.
  virtual Vector parameterValues() const = 0;
  /// The same model with the parameters p (np) instead. Throws std::invalid_argument for a
  /// wrong size or a value the model cannot take (naming the parameter and the value).
  virtual std::unique_ptr<ParametricSystem> withParameterValues(ConstVectorRef p) const = 0;
  /// D = ∂(M(q, p) a + h(q, v, t, p) − S(q, t, p)ᵀu)/∂p at fixed (q, v, a, t) and u = 0 (inputs
  /// are not differentiated: a model with a parameter in its input map has none here).
  /// Sizes: q, v, a nq; D nq×np.
  virtual void dynamicsParameterJacobian(ConstVectorRef q, ConstVectorRef v, ConstVectorRef a, double t,
                                         MatrixRef D) const = 0;
  /// Whether φ depends on p. The default, false, means ∂φ/∂p = 0 (and so ∂J/∂p = ∂γ/∂p = 0).
  /// A model that returns true overrides constraintParameterJacobian() and
  /// constraintParameterTangent() too.
  virtual bool constraintsDependOnParameters() const { return false; }
  /// P = ∂φ/∂p at (q, t). The default writes zeros when constraintsDependOnParameters() is false
  /// and throws std::invalid_argument (naming the model) when it is true. Sizes: q nq; P nc×np.
  virtual void constraintParameterJacobian(ConstVectorRef q, double t, MatrixRef P) const;
  /// ∂J/∂pᵢ, ∂γ/∂pᵢ and ∂(∂φ/∂t)/∂pᵢ at fixed (q, v, t) for the parameter `parameter` = i
  /// (0 ≤ i < np): with ∂φ/∂p, what the sensitivity equations need when φ depends on p (the
  /// constraint rows differentiated along pᵢ, and (∂J/∂pᵢ)ᵀλ in the dynamics). The default writes
  /// zeros when constraintsDependOnParameters() is false and throws std::invalid_argument (naming
  /// the model) when it is true. Sizes: q, v nq; the views of `out` as documented there.
  virtual void constraintParameterTangent(ConstVectorRef q, ConstVectorRef v, double t, int parameter,
                                          ConstraintParameterTangent& out) const;
  /// The tangent of M, h, J, γ and ∂φ/∂t along (δq, δv) at (q, v, t), exact to rounding.
  /// Sizes: q, v, dq, dv nq; the views of `out` as documented there.
  virtual void termsTangent(ConstVectorRef q, ConstVectorRef v, double t, ConstVectorRef dq, ConstVectorRef dv,
                            ModelTermsTangent& out) const = 0;

  /// All names, in order.
  std::vector<std::string> parameterNames() const;
  /// The index of the parameter called `name`; throws std::invalid_argument listing the names.
  int parameterIndex(const std::string& name) const;
};

/// How far a model's hand-written derivatives are from central differences of its own terms.
struct ParameterDerivativeCheck {
  double dynamics_parameter_error = 0.0;  ///< max |D − ΔD| / max(1, |D|) over all entries
  double constraint_parameter_error = 0.0;  ///< the same for ∂φ/∂p
  double tangent_error = 0.0;  ///< the same over δM, δh, δJ, δγ, δ(∂φ/∂t) along the given direction
  /// the same over ∂J/∂p, ∂γ/∂p and ∂(∂φ/∂t)/∂p (constraintParameterTangent()), every parameter
  double constraint_tangent_error = 0.0;
};

/// Compares dynamicsParameterJacobian(), constraintParameterJacobian(), constraintParameterTangent()
/// and termsTangent() at (q, v, a, t) (the last along (dq, dv)) with central differences of the
/// model's own terms (relative step `step` · max(1, |x|)); what a model author runs once (the
/// errors are O(step²) when right).
/// Throws std::invalid_argument for wrong sizes or a step that is not in (0, 0.1].
ParameterDerivativeCheck checkParameterDerivatives(const ParametricSystem& system, ConstVectorRef q,
                                                   ConstVectorRef v, ConstVectorRef a, double t, ConstVectorRef dq,
                                                   ConstVectorRef dv, double step = 1e-5);

}  // namespace kktdae
