#pragma once
/// @file
/// Argument checks that throw std::invalid_argument naming the field and the value.

#include <Eigen/Core>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "kktdae/core/eigen_abi.hpp"

namespace kktdae {

/// Throws std::invalid_argument("<what>: <detail>").
[[noreturn]] void throwInvalid(const std::string& what, const std::string& detail);

/// Throws unless `actual == expected`, e.g. "q: size 5, expected 6".
void requireSize(const char* name, Eigen::Index actual, Eigen::Index expected);

/// Throws unless `value` is finite and > 0, e.g. "dt: must be finite and > 0, got -0.1".
void requirePositive(const char* name, double value);

/// Throws unless `value` is finite and >= 0.
void requireNonNegative(const char* name, double value);

/// Throws unless every entry of `values` is finite.
void requireFinite(const char* name, const Eigen::Ref<const Eigen::VectorXd>& values);

/// Shortest text that reads back as the same double ("0.1", "9.41", "nan"), for messages.
std::string formatDouble(double value);

}  // namespace kktdae
