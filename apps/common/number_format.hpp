#pragma once
// Number formatting that matches what the seed's Python prints and writes, so the apps' output
// can be diffed against the chapter's.

#include <string>

namespace kktdae::apps {

/// Python's repr(float): shortest round-trip digits, fixed notation for 1e-4 <= |x| < 1e16
/// (with a trailing ".0" for integral values), else d.ddde±XX; "nan", "inf", "-inf".
std::string pythonRepr(double value);

/// Python's round(value, decimals): the double nearest to the value rounded to `decimals`
/// decimal places (exact decimal arithmetic, ties to even), as json metrics use it.
double roundDecimals(double value, int decimals);

/// Shortest round-trip text of a double (std::to_chars), for CSV files.
std::string shortest(double value);

/// A CSV field: shortest(value) when finite, else empty. A CSV never holds nan or inf; the row's
/// status column says why a value is missing.
std::string csvNumber(double value);

/// A CSV text field, always quoted, inner quotes doubled (RFC 4180), so free text such as a
/// run's message never splits a row.
std::string csvQuoted(const std::string& text);

}  // namespace kktdae::apps
