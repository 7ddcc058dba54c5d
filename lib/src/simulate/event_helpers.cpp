#include "kktdae/simulate/event_helpers.hpp"

#include <stdexcept>
#include <string>

#include "kktdae/core/checks.hpp"

namespace kktdae {
namespace {

Event makeEvent(std::string name, EventDirection direction, EventAction action, EventFunction g) {
  Event event;
  event.name = std::move(name);
  event.direction = direction;
  event.action = action;
  event.g = std::move(g);
  return event;
}

}  // namespace

Event coordinateCrossing(std::string name, int index, double value, EventDirection direction, EventAction action) {
  if (index < 0) throwInvalid("index", "must be >= 0, got " + std::to_string(index));
  return makeEvent(std::move(name), direction, action,
                   [index, value](double, ConstVectorRef q, ConstVectorRef, ConstVectorRef, Vector& g) {
                     if (index >= q.size()) {
                       throw std::out_of_range("coordinate q[" + std::to_string(index) + "] of a model with nq = " +
                                               std::to_string(q.size()));
                     }
                     g[0] = q[index] - value;
                   });
}

Event pointCrossing(std::string name, PointFunction point, int axis, double value, EventDirection direction,
                    EventAction action) {
  if (!point) throwInvalid("point", "is empty: give the function of q whose position to watch");
  if (axis < 0 || axis > 2) throwInvalid("axis", "must be 0 (x), 1 (y) or 2 (z), got " + std::to_string(axis));
  return makeEvent(std::move(name), direction, action,
                   [point = std::move(point), axis, value](double, ConstVectorRef q, ConstVectorRef, ConstVectorRef,
                                                           Vector& g) { g[0] = point(q)[axis] - value; });
}

Event linkTension(std::string name, const PendulumChain& chain, int link, double value, EventDirection direction,
                  EventAction action) {
  if (link < 0 || link >= chain.links()) {
    throwInvalid("link", "must be in 0.." + std::to_string(chain.links() - 1) + ", got " + std::to_string(link));
  }
  const Eigen::Vector3d pivot = chain.params().pivot;
  return makeEvent(std::move(name), direction, action,
                   [link, value, pivot](double, ConstVectorRef q, ConstVectorRef, ConstVectorRef lambda, Vector& g) {
                     const Eigen::Vector3d p = q.segment<3>(3 * link);
                     const Eigen::Vector3d previous = link == 0 ? pivot : Eigen::Vector3d(q.segment<3>(3 * link - 3));
                     g[0] = -lambda[link] * (p - previous).norm() - value;
                   });
}

Event circleTension(std::string name, double value, EventDirection direction, EventAction action) {
  return makeEvent(std::move(name), direction, action,
                   [value](double, ConstVectorRef q, ConstVectorRef, ConstVectorRef lambda, Vector& g) {
                     // Another model's q and λ would give a number that means nothing (or read
                     // past a shorter one): refused at the first evaluation instead.
                     if (q.size() != 2 || lambda.size() != 1) {
                       throw std::runtime_error("circleTension watches the circle mass (nq = 2, nc = 1), not a "
                                                   "model with nq = " + std::to_string(q.size()) + ", nc = " +
                                                   std::to_string(lambda.size()));
                     }
                     g[0] = -2.0 * lambda[0] * q.head<2>().norm() - value;
                   });
}

Event energyCrossing(std::string name, const ConstrainedSystem& system, double level, EventDirection direction,
                     EventAction action) {
  return makeEvent(std::move(name), direction, action,
                   [&system, level](double t, ConstVectorRef q, ConstVectorRef v, ConstVectorRef, Vector& g) {
                     g[0] = system.kineticEnergy(q, v) + system.potentialEnergy(q, t) - level;
                   });
}

}  // namespace kktdae
