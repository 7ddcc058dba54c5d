#pragma once
/// @file
/// The parameters a Mechanism declares (docs/sensitivities.md): the numbers of its description
/// that enter M and h — masses, inertias, gravity, the springs' and rotational springs'
/// coefficients — as a ParametricSystem for forward sensitivities.
///
/// Each parameter is one entry of the built mechanism, named after the element it belongs to:
///
///   kind                  name                       enters
///   BodyMass              "<body>.mass"              M (translation), gravity
///   BodyInertia           "<body>.inertia"           planar I;
///                         "<body>.inertia[k]"        spatial, pivoted: principal moment Jₖ, k = 0, 1, 2
///   Gravity               "gravity.x", ".y", ".z"    h (z only with a spatial or pivoted body)
///   SpringStiffness       "<spring>.stiffness"       h
///   SpringDamping         "<spring>.damping"         h
///   SpringRestLength      "<spring>.rest_length"     h
///   RotationalStiffness   "<spring>.stiffness"       h (a rotational spring)
///   RotationalDamping     "<spring>.damping"         h
///   RotationalRestAngle   "<spring>.rest_angle"      h
///   RotationalTorque      "<spring>.torque"          h (its constant torque τ₀)
///
/// A principal moment Jₖ is about the centre of mass (spatial body) or the pivot (pivoted), along
/// the principal axis k the builder chose: the directors' inertias are J̄ᵢ = ½ ΣJ − Jᵢ. A pivoted
/// body's mass enters its weight only; its inertia about the pivot is its "inertia[k]".
/// Joint geometry and driver amplitudes enter φ and are not declared yet; a kind for each, with
/// constraintParameterJacobian() and constraintParameterTangent(), is how they would join.

#include <memory>
#include <string>
#include <vector>

#include "kktdae/multibody/mechanism.hpp"
#include "kktdae/sensitivity/parametric_system.hpp"

namespace kktdae::multibody {

/// What a mechanism parameter is (the file comment's table).
enum class MechanismParameterKind {
  BodyMass,             ///< a body's mass m [kg]
  BodyInertia,          ///< a planar body's I, or a principal moment Jₖ of a spatial or pivoted body [kg m²]
  Gravity,              ///< one component of gravity [m/s²]
  SpringStiffness,      ///< a spring's k [N/m]
  SpringDamping,        ///< a spring's c [N s/m]
  SpringRestLength,     ///< a spring's ℓ₀ [m]
  RotationalStiffness,  ///< a rotational spring's k [N m/rad]
  RotationalDamping,    ///< a rotational spring's c [N m s/rad]
  RotationalRestAngle,  ///< a rotational spring's θ₀ [rad]
  RotationalTorque,     ///< a rotational spring's constant torque τ₀ [N m]
};

/// One declared parameter: its name, kind, element and value.
struct MechanismParameter {
  std::string name;  ///< "<element>.<field>" (file comment)
  MechanismParameterKind kind = MechanismParameterKind::BodyMass;  ///< what it is
  int element = -1;  ///< the body, spring or rotational spring (its index in the order added); −1 for gravity
  int component = 0;  ///< Jₖ's k, or gravity's axis (0 x, 1 y, 2 z); 0 otherwise
  double value = 0.0;  ///< its value in the mechanism
};

/// Every parameter the mechanism declares, in this order: per body (as added) its mass and
/// inertia, gravity, per spring its stiffness, damping and rest length, per rotational spring
/// its stiffness, damping, rest angle and torque.
std::vector<MechanismParameter> declaredParameters(const Mechanism& mechanism);

/// A Mechanism with a chosen set of its declared parameters p: the same terms (every
/// ConstrainedSystem method is the mechanism's, bit for bit), plus ∂(M a + h)/∂p by hand and the
/// exact tangent of h, J, γ and ∂φ/∂t from Dual numbers through the mechanism's own formulas.
class ParametricMechanism final : public ParametricSystem {
 public:
  /// The mechanism with the declared parameters named in `names` (in that order), or all of them
  /// when `names` is empty. Throws std::invalid_argument for a name it does not declare (listing
  /// the names) or a repeated name. (An actuated mechanism is accepted here; computeSensitivities()
  /// refuses models with inputs.)
  explicit ParametricMechanism(const Mechanism& mechanism, const std::vector<std::string>& names = {});

  /// The mechanism at the current parameter values.
  const Mechanism& mechanism() const { return mechanism_; }
  /// The chosen parameters, in the order of p.
  const std::vector<MechanismParameter>& parameters() const { return parameters_; }

  /// @name ConstrainedSystem: the mechanism's
  ///@{
  /// As Mechanism's.
  std::string name() const override { return mechanism_.name(); }
  int nq() const override { return mechanism_.nq(); }
  int nc() const override { return mechanism_.nc(); }
  int nu() const override { return mechanism_.nu(); }
  MassStructure massStructure() const override { return mechanism_.massStructure(); }
  void massDiagonal(ConstVectorRef q, VectorRef d) const override { mechanism_.massDiagonal(q, d); }
  void massMatrix(ConstVectorRef q, MatrixRef M) const override { mechanism_.massMatrix(q, M); }
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override { mechanism_.bias(q, v, t, h); }
  bool biasDependsOnState() const override { return mechanism_.biasDependsOnState(); }
  void inputMap(ConstVectorRef q, double t, MatrixRef S) const override { mechanism_.inputMap(q, t, S); }
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override { mechanism_.constraint(q, t, phi); }
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override {
    mechanism_.constraintJacobian(q, t, J);
  }
  void constraintTimeDerivative(ConstVectorRef q, double t, VectorRef phi_t) const override {
    mechanism_.constraintTimeDerivative(q, t, phi_t);
  }
  void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const override {
    mechanism_.constraintBias(q, v, t, gamma);
  }
  int jacobianNonZeros() const override { return mechanism_.jacobianNonZeros(); }
  void constraintJacobianPattern(IndexVectorRef rows, IndexVectorRef cols) const override {
    mechanism_.constraintJacobianPattern(rows, cols);
  }
  void constraintJacobianValues(ConstVectorRef q, double t, VectorRef values) const override {
    mechanism_.constraintJacobianValues(q, t, values);
  }
  bool isTimeDependent() const override { return mechanism_.isTimeDependent(); }
  bool isConservative() const override { return mechanism_.isConservative(); }
  double energyScale() const override { return mechanism_.energyScale(); }
  double kineticEnergy(ConstVectorRef q, ConstVectorRef v) const override { return mechanism_.kineticEnergy(q, v); }
  double potentialEnergy(ConstVectorRef q, double t) const override { return mechanism_.potentialEnergy(q, t); }
  ///@}

  /// The number of chosen parameters.
  int np() const override { return static_cast<int>(parameters_.size()); }
  /// parameters()[i].name; throws std::invalid_argument for i out of range.
  std::string parameterName(int i) const override;
  /// The chosen parameters' values.
  Vector parameterValues() const override;
  /// The mechanism with these values (size np). Throws std::invalid_argument naming the
  /// parameter for a mass, planar inertia or director inertia J̄ that would not be > 0 (≥ 0 for
  /// a flat body's), a negative stiffness, damping or rest length, or a non-finite value.
  std::unique_ptr<ParametricSystem> withParameterValues(ConstVectorRef p) const override;
  /// ∂(M a + h)/∂p by hand: M and h are linear in every parameter but a spring's rest length
  /// and a rotational spring's rest angle (affine). Sizes: q, v, a nq; D nq×np.
  void dynamicsParameterJacobian(ConstVectorRef q, ConstVectorRef v, ConstVectorRef a, double t,
                                 MatrixRef D) const override;
  /// δM = 0 (M is constant); δh, δJ, δγ, δ(∂φ/∂t) from one sweep of the mechanism's own
  /// formulas over Dual<double> seeded with (δq, δq̇).
  void termsTangent(ConstVectorRef q, ConstVectorRef v, double t, ConstVectorRef dq, ConstVectorRef dv,
                    ModelTermsTangent& out) const override;

 private:
  ParametricMechanism(std::vector<MechanismParameter> parameters, Mechanism mechanism);

  Mechanism mechanism_;
  std::vector<MechanismParameter> parameters_;
};

}  // namespace kktdae::multibody
