#pragma once
/// @file
/// Andrews' squeezing mechanism, problem "andrews" of the IVP Test Set (CWI 1999; Bari, Mazzia &
/// Magherini; Hairer & Wanner, Solving ODEs II, §VII.7): seven rigid bodies in a plane joined by
/// frictionless pins, driven by a constant torque on the crank and loaded by a stiff spring.
///
///     q = (β, Θ, γ, Φ, δ, Ω, ε)   seven angles [rad], nq = 7
///     φ(q) = 0                    six loop closures (x and y of three loops) [m], nc = 6
///
/// One degree of freedom; t ∈ [0, 0.03] s. M(q) is dense and configuration dependent.
///
/// The Test Set writes the equations of motion as M q̈ = f(q, q̇) − G(q)ᵀ λ_TS, g(q) = 0, with
/// G = ∂g/∂q. Ours are M q̈ + h = Sᵀu + Jᵀλ, so
///
///     φ = g,   J = G,   h = −f,   λ = −λ_TS,
///
/// and u is absent (nu = 0): the driving torque `mom` is part of f and so of h (h₁ contains −mom),
/// because it is a fixed part of the problem, not an input — through S every run would need a
/// Controller returning u = mom, and a run without one would silently solve another problem.
/// The torque is constant, hence conservative (V ∋ −mom β), and the spring is too: the total
/// energy ½ q̇ᵀ M q̇ + V is conserved.
///
/// Numbers (parameters, consistent initial values, reference solution) are the Test Set's, as
/// the public repository cran/deTestSet carries them (R/ex_andrews.R, src/Ex_andrews.f).

#include <string>

#include "kktdae/models/reference_solution.hpp"
#include "kktdae/system/constrained_system.hpp"

namespace kktdae {

/// The Test Set's 42 parameters under its own names (SI units: kg, m, kg m², N/m, N m). The
/// defaults are the published values; changing them makes another mechanism, for which the
/// consistent start and the reference below no longer hold. Each line of fields shares one
/// comment (a member group): the Test Set's figure of the mechanism says which length is which.
struct AndrewsSqueezerParams {
  ///@{
  double m1 = 0.04325, m2 = 0.00365, m3 = 0.02373, m4 = 0.00706, m5 = 0.07050, m6 = 0.00706, m7 = 0.05498;  ///< masses of bodies 1–7 [kg]
  ///@}
  ///@{
  double xa = -0.06934, ya = -0.00227;  ///< fixed point A [m]
  ///@}
  ///@{
  double xb = -0.03635, yb = 0.03273;   ///< fixed point B [m]
  ///@}
  ///@{
  double xc = 0.014, yc = 0.072;        ///< the spring's anchor C [m]
  ///@}
  double c0 = 4530.0;                   ///< spring stiffness [N/m]
  ///@{
  double i1 = 2.194e-6, i2 = 4.410e-7, i3 = 5.255e-6, i4 = 5.667e-7, i5 = 1.169e-5, i6 = 5.667e-7,
         i7 = 1.912e-5;  ///< moments of inertia of bodies 1–7 [kg m²]
  ///@}
  ///@{
  double d = 28e-3, da = 115e-4, e = 2e-2, ea = 1421e-5, rr = 7e-3, ra = 92e-5, l0 = 7785e-5;  ///< lengths [m]; l0 the spring's rest length
  ///@}
  ///@{
  double ss = 35e-3, sa = 1874e-5, sb = 1043e-5, sc = 18e-3, sd = 2e-2, ta = 2308e-5, tb = 916e-5;  ///< lengths [m]
  ///@}
  ///@{
  double u = 4e-2, ua = 1228e-5, ub = 449e-5, zf = 2e-2, zt = 4e-2, fa = 1421e-5;  ///< lengths [m]
  ///@}
  double mom = 33e-3;  ///< driving torque on the crank β [N m]

  /// Throws std::invalid_argument naming the field: masses, inertias, c0, l0 and the link lengths
  /// must be finite and > 0, mom and the fixed points finite.
  void validate() const;
};

/// Andrews' squeezer as a ConstrainedSystem (M, h, φ, J, γ hand-written from the Test Set's
/// definitions; γ derived here, since the Test Set's index-3 form needs none).
class AndrewsSqueezer final : public ConstrainedSystem {
 public:
  /// Throws std::invalid_argument if `params` is invalid.
  explicit AndrewsSqueezer(AndrewsSqueezerParams params = {});

  std::string name() const override { return "andrews_squeezer"; }
  int nq() const override { return 7; }
  int nc() const override { return 6; }
  MassStructure massStructure() const override { return MassStructure::General; }
  /// The Test Set's M(q): blocks (β, Θ), (γ), (Φ, δ), (Ω, ε). Sizes: q 7; M 7×7.
  void massMatrix(ConstVectorRef q, MatrixRef M) const override;
  /// h = −f: velocity-product terms of the q-dependent M, the spring force's generalized
  /// components, and −mom on β. Sizes: q, v 7; h 7.
  void bias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef h) const override;
  /// The Test Set's g(q): the three loops through B, A, A (x, y each). Sizes: phi 6.
  void constraint(ConstVectorRef q, double t, VectorRef phi) const override;
  /// G = ∂g/∂q. Sizes: J 6×7.
  void constraintJacobian(ConstVectorRef q, double t, MatrixRef J) const override;
  /// γ = Σᵢ (∂G/∂qᵢ) q̇ᵢ q̇ (g is scleronomic). Sizes: gamma 6.
  void constraintBias(ConstVectorRef q, ConstVectorRef v, double t, VectorRef gamma) const override;
  /// ½ q̇ᵀ M(q) q̇, without allocating.
  double kineticEnergy(ConstVectorRef q, ConstVectorRef v) const override;
  /// ½ c0 (ℓ − l0)² − mom β, ℓ the spring's length.
  double potentialEnergy(ConstVectorRef q, double t) const override;

  /// The parameters the mechanism was built with.
  const AndrewsSqueezerParams& params() const { return params_; }

 private:
  AndrewsSqueezerParams params_;
};

/// The Test Set's consistent initial values at t = 0: q from its yini, q̇ = 0, q̈ and λ (our sign,
/// λ = −λ_TS) as it gives them. Valid for the default parameters only.
ConsistentStart andrewsSqueezerStart();

/// The Test Set's reference at t = 0.03 s (PSIDE at rtol = atol = 1e-14 on a Cray C90,
/// src/Ex_andrews.f `andsoln`), λ in our sign (lambda_to_source = −1); scored on the 7 angles.
ReferenceSolution andrewsSqueezerReference();

}  // namespace kktdae
