#include "kktdae/simulate/event_condition.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "kktdae/core/checks.hpp"
#include "kktdae/simulate/event_helpers.hpp"

namespace kktdae {
namespace {

std::string trim(const std::string& text) {
  std::size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

/// "name[i]" → i, or −1 when `quantity` is not of that form; an index of more than nine digits
/// comes back as LONG_MAX, for the caller's range check. Throws std::invalid_argument naming
/// `field` when the index is not a whole number ("q[1e0]", "q[-1]").
long bracketIndex(const std::string& field, const std::string& condition, const std::string& quantity,
                  const std::string& name) {
  if (quantity.size() < name.size() + 2 || quantity.compare(0, name.size() + 1, name + "[") != 0 ||
      quantity.back() != ']') {
    return -1;
  }
  const std::string digits = trim(quantity.substr(name.size() + 1, quantity.size() - name.size() - 2));
  const bool whole = !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
  if (!whole) throwInvalid(field, "'" + condition + "': the index '" + digits + "' is not an integer >= 0");
  return digits.size() > 9 ? std::numeric_limits<long>::max() : std::stol(digits);
}

}  // namespace

Event parseChainCondition(const std::string& field, const std::string& condition, const PendulumChain& chain) {
  const std::string grammar = " (expected q[i], x, y or tension[k], then < or >, then a number, e.g. 'tension[0]<0')";
  const std::size_t op = condition.find_first_of("<>");
  if (op == std::string::npos || condition.find_first_of("<>", op + 1) != std::string::npos) {
    throwInvalid(field, "'" + condition + "' needs exactly one < or >" + grammar);
  }
  const std::string quantity = trim(condition.substr(0, op));
  const std::string number = trim(condition.substr(op + 1));
  char* end = nullptr;
  const double value = number.empty() ? 0.0 : std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(value)) {
    throwInvalid(field, "'" + condition + "': '" + number + "' is not a finite number" + grammar);
  }
  const EventDirection direction = condition[op] == '<' ? EventDirection::Falling : EventDirection::Rising;
  const int links = chain.links();
  if (quantity == "x" || quantity == "y") {
    return pointCrossing(condition, [&chain](ConstVectorRef q) { return chain.tip(q); }, quantity == "x" ? 0 : 1,
                         value, direction);
  }
  if (const long i = bracketIndex(field, condition, quantity, "q"); i != -1) {
    if (i >= 3L * links) {
      throwInvalid(field, "'" + condition + "': q index must be in 0.." + std::to_string(3 * links - 1) +
                              " for a " + std::to_string(links) + "-link chain");
    }
    return coordinateCrossing(condition, static_cast<int>(i), value, direction);
  }
  if (const long k = bracketIndex(field, condition, quantity, "tension"); k != -1) {
    if (k >= links) {
      throwInvalid(field, "'" + condition + "': link index must be in 0.." + std::to_string(links - 1) + " for a " +
                              std::to_string(links) + "-link chain");
    }
    return linkTension(condition, chain, static_cast<int>(k), value, direction);
  }
  throwInvalid(field, "'" + condition + "': unknown quantity '" + quantity + "'" + grammar);
}

}  // namespace kktdae
