#pragma once
// One row of φ with its gradient, γ and ∂φ/∂t (internal header).

#include <Eigen/Core>

#include "kktdae/core/types.hpp"
#include "mechanism_data.hpp"

namespace kktdae::multibody::detail {

using RowGradient = Eigen::Matrix<double, 1, Eigen::Dynamic, Eigen::RowMajor, 1, 12>;

/// φ, ∂φ/∂t, γ = φ̈ − J q̈ of a row and its gradient with respect to body A's and body B's
/// coordinates (empty for the ground).
struct RowEvaluation {
  double phi = 0.0, phi_t = 0.0, gamma = 0.0;
  RowGradient grad_a, grad_b;
};

/// Evaluates a joint or driver row at (q, v, t); v may be empty (γ is then not formed).
RowEvaluation evaluateRow(const MechanismData& data, const RowData& row, ConstVectorRef q, ConstVectorRef v, double t);

/// The six orthonormality rows of a spatial or pivoted body's directors (HeavyTop's order:
/// ½(d₁·d₁ − 1), ½(d₂·d₂ − 1), ½(d₃·d₃ − 1), d₁·d₂, d₁·d₃, d₂·d₃): φ into phi (6), their
/// gradients into grad (6×9, over the directors), γ into gamma (6) when v is not empty.
void evaluateOrthonormality(const BodyData& body, ConstVectorRef q, ConstVectorRef v, Eigen::Ref<Eigen::Matrix<double, 6, 1>> phi,
                            Eigen::Ref<Eigen::Matrix<double, 6, 9>> grad, Eigen::Ref<Eigen::Matrix<double, 6, 1>> gamma);

/// The pairs (i, j) of directors in rows 3, 4, 5 of the orthonormality rows.
inline constexpr int kDirectorPairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};

}  // namespace kktdae::multibody::detail
