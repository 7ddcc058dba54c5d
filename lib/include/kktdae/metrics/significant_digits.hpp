#pragma once
/// @file
/// The IVP Test Set's accuracy scores of a computed end state against a reference solution
/// (Mazzia & Magherini, "Test Set for IVP Solvers", the sections on scd and mescd).

#include "kktdae/core/types.hpp"

namespace kktdae {

/// Significant correct digits, scd = −log₁₀ maxᵢ |yᵢ − refᵢ| / |refᵢ|: the number of correct
/// digits of the worst component. +∞ when y equals ref exactly. Sizes: y, ref equal; every refᵢ
/// must be non-zero. Throws std::invalid_argument on a size mismatch, an empty vector, a zero or
/// non-finite reference entry, or a non-finite y.
double significantCorrectDigits(ConstVectorRef y, ConstVectorRef ref);

/// Mixed-error significant digits, mescd = −log₁₀ maxᵢ |yᵢ − refᵢ| / (atol/rtol + |refᵢ|): like
/// scd, but a component smaller than atol/rtol is judged by its absolute error (the floor the
/// tolerances asked for). rtol, atol > 0. Throws std::invalid_argument as above, or for
/// tolerances that are not finite and > 0.
double mixedErrorSignificantDigits(ConstVectorRef y, ConstVectorRef ref, double rtol, double atol);

}  // namespace kktdae
