#pragma once
// A sweep file's JSON read strictly: nlohmann's parser lets the last of two equal keys win
// silently, nests as deep as the input asks (and dump(), which the error messages call, recurses
// that deep), and names no key in its errors. This parse refuses all three, naming the file and
// the key where it happened.

#include <string>

#include <nlohmann/json.hpp>

namespace kktdae::apps {

/// Deepest nesting a sweep file may use (it needs 4: file, "axes", a parameter, a range object).
constexpr int kMaxSweepFileDepth = 16;

/// Parses `text` (the file `source`, for messages). Throws std::invalid_argument
/// "<source>: <key path>: <why>" (the path as "fixed.links" or "runs[3].dt") for invalid JSON, a
/// number out of double's range, a key given twice in one object, or arrays and objects nested
/// deeper than kMaxSweepFileDepth.
nlohmann::ordered_json parseStrictJson(const std::string& text, const std::string& source);

}  // namespace kktdae::apps
