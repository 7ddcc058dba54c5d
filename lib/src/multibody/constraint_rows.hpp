#pragma once
// One row of φ with its gradient, γ and ∂φ/∂t (internal header).

#include <Eigen/Core>

#include "attachment_kinematics.hpp"
#include "kktdae/core/types.hpp"
#include "mechanism_data.hpp"

namespace kktdae::multibody::detail {

/// A row's gradient over one body's coordinates (at most 12), over the scalar S.
template <typename S>
using RowGradientOf = Eigen::Matrix<S, 1, Eigen::Dynamic, Eigen::RowMajor, 1, 12>;
/// The gradient in double.
using RowGradient = RowGradientOf<double>;

/// φ, ∂φ/∂t, γ = φ̈ − J q̈ of a row and its gradient with respect to body A's and body B's
/// coordinates (empty for the ground). Over S = Dual<double> seeded with (δq, δq̇), the
/// derivative parts are δφ, δ(∂φ/∂t), δγ and δJ's entries.
template <typename S>
struct RowEvaluationOf {
  S phi = S(0.0), phi_t = S(0.0), gamma = S(0.0);
  RowGradientOf<S> grad_a, grad_b;
};
/// The row in double.
using RowEvaluation = RowEvaluationOf<double>;

/// Evaluates a joint or driver row at (q, v, t); v may be empty (γ is then not formed). Defined
/// for S = double and S = Dual<double> (t is not differentiated).
template <typename S>
RowEvaluationOf<S> evaluateRowOf(const MechanismData& data, const RowData& row, ConstVectorRefOfS<S> q,
                                 ConstVectorRefOfS<S> v, double t);

/// evaluateRowOf<double>.
inline RowEvaluation evaluateRow(const MechanismData& data, const RowData& row, ConstVectorRef q, ConstVectorRef v,
                                 double t) {
  return evaluateRowOf<double>(data, row, q, v, t);
}

/// The six orthonormality rows of a spatial or pivoted body's directors (HeavyTop's order:
/// ½(d₁·d₁ − 1), ½(d₂·d₂ − 1), ½(d₃·d₃ − 1), d₁·d₂, d₁·d₃, d₂·d₃): φ into phi (6), their
/// gradients into grad (6×9, over the directors), γ into gamma (6) when v is not empty.
/// Defined for S = double and S = Dual<double>.
template <typename S>
void evaluateOrthonormalityOf(const BodyData& body, ConstVectorRefOfS<S> q, ConstVectorRefOfS<S> v,
                              Eigen::Ref<Eigen::Matrix<S, 6, 1>> phi, Eigen::Ref<Eigen::Matrix<S, 6, 9>> grad,
                              Eigen::Ref<Eigen::Matrix<S, 6, 1>> gamma);

/// evaluateOrthonormalityOf<double>.
inline void evaluateOrthonormality(const BodyData& body, ConstVectorRef q, ConstVectorRef v,
                                   Eigen::Ref<Eigen::Matrix<double, 6, 1>> phi,
                                   Eigen::Ref<Eigen::Matrix<double, 6, 9>> grad,
                                   Eigen::Ref<Eigen::Matrix<double, 6, 1>> gamma) {
  evaluateOrthonormalityOf<double>(body, q, v, phi, grad, gamma);
}

/// The pairs (i, j) of directors in rows 3, 4, 5 of the orthonormality rows.
inline constexpr int kDirectorPairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};

}  // namespace kktdae::multibody::detail
