#pragma once
/// @file
/// A small text grammar for the event helpers of a pendulum chain, for command lines:
///
///     condition := quantity ('<' | '>') number
///     quantity  := 'q[' i ']'         coordinate i of q (0-based)
///                | 'x' | 'y'          the tip's position [m]
///                | 'tension[' k ']'   link k's tension −λₖ|dₖ| [N], k = 0 the link at the pivot
///
/// "tension[0]<0" is the event "link 0 would go slack"; "x<0" the tip passing the vertical.
/// Spaces are allowed around the parts.

#include <string>

#include "kktdae/models/pendulum_chain.hpp"
#include "kktdae/simulate/events.hpp"

namespace kktdae {

/// The event that fires when `condition` becomes true: '<' is a Falling crossing of
/// quantity − number, '>' a Rising one. Named by the condition as given; EventAction::Record
/// (set the action to Stop for --stop-when). The chain must outlive the run. Throws
/// std::invalid_argument naming `field` and the text for anything outside the grammar, an index
/// outside the chain (q[i]: 0..3N−1, tension[k]: 0..N−1) or a number that is not finite.
Event parseChainCondition(const std::string& field, const std::string& condition, const PendulumChain& chain);

}  // namespace kktdae
