#include "kktdae/simulate/events.hpp"

#include <set>

#include "kktdae/core/checks.hpp"

namespace kktdae {

std::string_view toString(EventDirection direction) {
  switch (direction) {
    case EventDirection::Rising: return "rising";
    case EventDirection::Falling: return "falling";
    case EventDirection::Either: return "either";
  }
  return "unknown";
}

std::string_view toString(EventAction action) {
  switch (action) {
    case EventAction::Record: return "record";
    case EventAction::Stop: return "stop";
    case EventAction::Callback: return "callback";
  }
  return "unknown";
}

void Event::validate(const std::string& field) const {
  if (name.empty()) throwInvalid(field + ".name", "must not be empty");
  if (size < 1) throwInvalid(field + ".size", "must be >= 1, got " + std::to_string(size) + " (event '" + name + "')");
  if (!g) throwInvalid(field + ".g", "is empty (event '" + name + "'): give the function to watch");
  if (direction != EventDirection::Rising && direction != EventDirection::Falling &&
      direction != EventDirection::Either) {
    throwInvalid(field + ".direction", "is not an EventDirection value (" + std::to_string(static_cast<int>(direction)) + ")");
  }
  if (action != EventAction::Record && action != EventAction::Stop && action != EventAction::Callback) {
    throwInvalid(field + ".action", "is not an EventAction value (" + std::to_string(static_cast<int>(action)) + ")");
  }
  if (action == EventAction::Callback && !callback) {
    throwInvalid(field + ".callback", "is empty, but the action is callback (event '" + name + "')");
  }
  if (!(time_tolerance > 0.0) || !std::isfinite(time_tolerance)) {
    throwInvalid(field + ".time_tolerance", "must be finite and > 0, got " + formatDouble(time_tolerance) +
                                                " (event '" + name + "')");
  }
}

void validateEvents(const std::vector<Event>& events) {
  std::set<std::string> names;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const std::string field = "events[" + std::to_string(i) + "]";
    events[i].validate(field);
    if (!names.insert(events[i].name).second) {
      throwInvalid(field + ".name", "'" + events[i].name + "' is used by an earlier event: names must be unique");
    }
  }
}

}  // namespace kktdae
