#pragma once
/// @file
/// Eigen aliases used across the public API.

#include <Eigen/Core>

#include "kktdae/core/eigen_abi.hpp"

namespace kktdae {

using Vector = Eigen::VectorXd;  ///< A dynamic-size column vector of doubles.
using Matrix = Eigen::MatrixXd;  ///< A dynamic-size column-major matrix of doubles.
/// Read-only vector argument: accepts any contiguous double vector or column block without a copy.
using ConstVectorRef = const Eigen::Ref<const Eigen::VectorXd>&;
/// Read-only matrix argument.
using ConstMatrixRef = const Eigen::Ref<const Eigen::MatrixXd>&;
/// Output vector argument: must already have the documented size; filled in place.
using VectorRef = Eigen::Ref<Eigen::VectorXd>;
/// Output matrix argument: must already have the documented size; filled in place.
using MatrixRef = Eigen::Ref<Eigen::MatrixXd>;
/// Integer vector (sparsity patterns: row and column indices).
using IndexVector = Eigen::VectorXi;
/// Output integer vector argument: must already have the documented size; filled in place.
using IndexVectorRef = Eigen::Ref<Eigen::VectorXi>;

}  // namespace kktdae
