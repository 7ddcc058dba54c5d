#include "sweep/strict_json.hpp"

#include <set>
#include <stdexcept>
#include <vector>

namespace kktdae::apps {
namespace {

using Ordered = nlohmann::ordered_json;

/// Where the parser is: one level per open object or array, with the key or element index
/// being read in it.
class PathTracker {
 public:
  explicit PathTracker(std::string source) : source_(std::move(source)) {}

  bool onEvent(nlohmann::json::parse_event_t event, const Ordered& parsed) {
    using Event = nlohmann::json::parse_event_t;
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        if (levels_.size() >= static_cast<std::size_t>(kMaxSweepFileDepth)) {
          refuse("nested deeper than " + std::to_string(kMaxSweepFileDepth) + " levels");
        }
        levels_.push_back({event == Event::object_start, {}, 0, {}});
        break;
      case Event::key: {
        Level& level = levels_.back();
        level.key = parsed.get<std::string>();
        if (!level.keys.insert(level.key).second) refuse("given twice in one object (the last would silently win)");
        break;
      }
      case Event::object_end:
      case Event::array_end:
        levels_.pop_back();
        nextElement();
        break;
      case Event::value: nextElement(); break;
    }
    return true;
  }

  /// "fixed.links", "runs[3].dt"; "the top level" outside any object.
  std::string path() const {
    std::string text;
    for (const Level& level : levels_) {
      if (level.object) {
        if (!level.keys.empty()) text += (text.empty() ? "" : ".") + level.key;
      } else {
        text += "[" + std::to_string(level.index) + "]";
      }
    }
    return text.empty() ? "the top level" : text;
  }

  [[noreturn]] void refuse(const std::string& why) const { throw std::invalid_argument(source_ + ": " + path() + ": " + why); }

 private:
  struct Level {
    bool object = true;
    std::string key;             ///< objects: the key whose value is being read
    std::size_t index = 0;       ///< arrays: the element being read
    std::set<std::string> keys;  ///< objects: the keys read so far
  };

  /// An element of an array ended: the next one is being read.
  void nextElement() {
    if (!levels_.empty() && !levels_.back().object) ++levels_.back().index;
  }

  std::string source_;
  std::vector<Level> levels_;
};

/// nlohmann's message without its "[json.exception.…] " prefix.
std::string withoutPrefix(const std::string& text) {
  const std::size_t end = text.rfind("] ", text.find(' '));
  return text.rfind("[json.exception.", 0) == 0 && end != std::string::npos ? text.substr(end + 2) : text;
}

}  // namespace

Ordered parseStrictJson(const std::string& text, const std::string& source) {
  PathTracker tracker(source);
  try {
    return Ordered::parse(text, [&](int, nlohmann::json::parse_event_t event, Ordered& parsed) {
      return tracker.onEvent(event, parsed);
    });
  } catch (const nlohmann::json::exception& error) {
    // A syntax error or a number out of range (1e999): nlohmann says what, the tracker where.
    tracker.refuse("not valid JSON: " + withoutPrefix(error.what()));
  }
}

}  // namespace kktdae::apps
