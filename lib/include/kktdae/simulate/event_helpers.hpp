#pragma once
/// @file
/// Ready-made events: a coordinate or a point crossing a value, a link's tension crossing zero,
/// the energy crossing a level. Each returns an Event with size 1 that the caller may adjust
/// (action, callback, tolerance) before putting it in SimulationOptions::events.

#include <functional>
#include <string>

#include "kktdae/models/circle_mass.hpp"
#include "kktdae/models/pendulum_chain.hpp"
#include "kktdae/simulate/events.hpp"

namespace kktdae {

/// A point of the model as a function of q (e.g. PendulumChain::tip), in metres.
using PointFunction = std::function<Eigen::Vector3d(ConstVectorRef q)>;

/// g = q[index] − value. Throws std::invalid_argument for index < 0 (the size is checked against
/// the model when the run calls g: a q too short ends it as ModelError).
Event coordinateCrossing(std::string name, int index, double value, EventDirection direction = EventDirection::Either,
                         EventAction action = EventAction::Record);

/// g = point(q)[axis] − value, axis 0 = x, 1 = y, 2 = z. Throws std::invalid_argument for an
/// empty point function or an axis outside 0..2.
Event pointCrossing(std::string name, PointFunction point, int axis, double value,
                    EventDirection direction = EventDirection::Either, EventAction action = EventAction::Record);

/// The tension of link k of a chain, T_k = −λ_k |d_k| [N] (pendulum_chain.hpp: λ_k < 0 pulls), as
/// g = T_k − value; value 0 with EventDirection::Falling is "the rope would go slack here". The
/// chain must outlive the run. Throws std::invalid_argument for k outside 0..links()−1.
Event linkTension(std::string name, const PendulumChain& chain, int link, double value = 0.0,
                  EventDirection direction = EventDirection::Falling, EventAction action = EventAction::Record);

/// The circle mass's rod tension T = −2λ|p| [N] (circle_mass.hpp: the force is 2λ(x, y)), as
/// g = T − value. A run of another model (nq ≠ 2 or nc ≠ 1) ends as ModelError at the first
/// evaluation.
Event circleTension(std::string name, double value = 0.0, EventDirection direction = EventDirection::Falling,
                    EventAction action = EventAction::Record);

/// g = E(t, q, q̇) − level, E = T + V of `system` [J]. The system must outlive the run.
Event energyCrossing(std::string name, const ConstrainedSystem& system, double level,
                     EventDirection direction = EventDirection::Either, EventAction action = EventAction::Record);

}  // namespace kktdae
