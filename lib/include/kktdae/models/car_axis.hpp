#pragma once
/// @file
/// The car axis, problem "caraxis" of the IVP Test Set (CWI 1999; Bari, Mazzia & Magherini): a
/// massless axis of length L whose two wheel centres carry point masses, each on a spring of rest
/// length L0; the left spring is anchored at the origin, the right one at the road point
/// B(t) = (x_b(t), y_b(t)), y_b = r sin(ωt), x_b = √(L² − y_b²), which bumps up and down.
///
///     q = (x_l, y_l, x_r, y_r) [m], nq = 4;   t ∈ [0, 3] s
///     φ₁(q, t) = x_b(t) x_l + y_b(t) y_l      (the left wheel stays perpendicular to OB) [m²]
///     φ₂(q)    = (x_l − x_r)² + (y_l − y_r)² − L²   (the axis keeps its length) [m²]
///
/// Every coordinate has the mass k = M ε²/2 (ε = 1e-2 makes the problem stiff: the springs'
/// period 2π√k is 0.14 s on a 3 s run). The Test Set writes k q̈ = f(q, t) + G(q, t)ᵀ λ_TS with
/// G = ∂g/∂q — its f₅…f₈ contain +λ₁ ∂g₁/∂q + λ₂ ∂g₂/∂q — so here
///
///     φ = g,   J = G,   h = −f (the spring forces and gravity −k g on each y),   λ = +λ_TS:
///
/// unlike Andrews' squeezer, the car axis' multipliers keep their sign. φ₁ depends on t, so
/// ∂φ/∂t = ẋ_b x_l + ẏ_b y_l and γ₁ = 2 (ẋ_b ẋ_l + ẏ_b ẏ_l) + ẍ_b x_l + ÿ_b y_l (the 2 (∂J/∂t) q̇
/// and ∂²φ/∂t² terms; J₁ does not depend on q), γ₂ = 2 |q̇_l − q̇_r|². h depends on t too (the
/// right spring's anchor moves), so the energy is not conserved.
///
/// Numbers from the public repository cran/deTestSet (R/ex_caraxis.R, src/Ex_car.f,
/// R/ex_reference.R).

#include <string>

#include "kktdae/models/reference_solution.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

/// The Test Set's seven parameters under its own names.
struct CarAxisParams {
  double eps = 1e-2;   ///< ε > 0: the masses are M ε²/2
  double M = 10.0;     ///< M > 0 [kg]
  double L = 1.0;      ///< axis length L > 0 [m]
  double L0 = 0.5;     ///< springs' rest length L0 > 0 [m]
  double r = 0.1;      ///< bump amplitude 0 ≤ r < L [m]
  double w = 10.0;     ///< bump angular frequency ω [rad/s], finite
  double g = 1.0;      ///< gravity g ≥ 0 [m/s²], along −y

  /// The mass of each coordinate, k = M ε²/2 [kg].
  double coordinateMass() const { return M * eps * eps / 2.0; }
  /// Throws std::invalid_argument naming the field and value.
  void validate() const;
};

/// The car axis as a ConstrainedSystem (MassStructure::ConstantDiagonal).
class CarAxis final : public ConstrainedSystem {
 public:
  /// Throws std::invalid_argument if `params` is invalid.
  explicit CarAxis(CarAxisParams params = {});

  std::string name() const override { return "car_axis"; }
  int nq() const override { return 4; }
  int nc() const override { return 2; }
  MassStructure massStructure() const override { return MassStructure::ConstantDiagonal; }
  /// k on every coordinate. Sizes: d 4.
  void massDiagonal(ConstVectorRef q, VectorRef d) const override;
  /// h = −f: −(L0 − ℓ_l) (x_l, y_l)/ℓ_l and −(L0 − ℓ_r) (q_r − B(t))/ℓ_r, plus k g on each y.
  /// Sizes: q, v 4; h 4.
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override;
  /// φ(q, t) above. Sizes: phi 2.
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override;
  /// J = [x_b y_b 0 0; 2Δx 2Δy −2Δx −2Δy], Δ = q_l − q_r. Sizes: J 2×4.
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override;
  /// (ẋ_b x_l + ẏ_b y_l, 0). Sizes: phi_t 2.
  void constraintTimeDerivative(ConstVectorRef q, double t, VectorRef phi_t) const override;
  /// γ above, with its explicit-time terms. Sizes: gamma 2.
  void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const override;
  bool isTimeDependent() const override { return true; }
  /// ½ k |q̇|².
  double kineticEnergy(ConstVectorRef q, ConstVectorRef v) const override;
  /// ½ (ℓ_l − L0)² + ½ (ℓ_r(t) − L0)² + k g (y_l + y_r): the springs have unit stiffness.
  double potentialEnergy(ConstVectorRef q, double t) const override;

  const CarAxisParams& params() const { return params_; }  ///< the parameters it was built with

 private:
  /// B(t) and its first two time derivatives.
  struct RoadPoint {
    double x = 0.0, y = 0.0, x_dot = 0.0, y_dot = 0.0, x_ddot = 0.0, y_ddot = 0.0;
  };
  RoadPoint roadPoint(double t) const;

  CarAxisParams params_;
};

/// The Test Set's consistent start at t = 0: q = (0, L0, L, L0), q̇ = (−L0/L, 0, −L0/L, 0), λ = 0
/// and q̈ = f/k (springs at rest length: (0, −g, 0, −g)). Uses `params` (any valid one).
ConsistentStart carAxisStart(const CarAxisParams& params = {});

/// The Test Set's reference at t = 3 s (computed in quad precision, R/ex_reference.R; its λ is
/// reliable to about 7e-8 only), our sign = the Test Set's; scored on the 4 positions. Valid for
/// the default parameters only.
ReferenceSolution carAxisReference();

}  // namespace kktdae
