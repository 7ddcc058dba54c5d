#pragma once
/// @file
/// Andrews' squeezing mechanism built from its seven planar bodies, ten revolute joints, one
/// spring and the driving torque (the IVP Test Set's description; the hand-coded
/// AndrewsSqueezer in relative angles is the same mechanism in seven coordinates).

#include "kktdae/core/state.hpp"
#include "kktdae/models/andrews_squeezer.hpp"
#include "kktdae/multibody/mechanism.hpp"

namespace kktdae::multibody {

/// Bodies in the order K1 (crank, about O), K2 (the coupler from the crank pin to E), K3 (about
/// B), K5 (about A), K4 (hinged on K5), K7 (about A), K6 (hinged on K7): 21 coordinates, 20
/// rows, one degree of freedom. The driving torque acts on K1 about O.
Mechanism andrewsMechanism(const AndrewsSqueezerParams& params = {});

/// The body coordinates (q, q̇) of a state of the hand-coded model's seven angles
/// (β, Θ, γ, Φ, δ, Ω, ε) and their rates.
State andrewsBodyState(const AndrewsSqueezerParams& params, const State& angles);

/// The Test Set's seven angles (β, Θ, γ, Φ, δ, Ω, ε) of body coordinates: absolute angles of K1,
/// K3, K5, K7 and the relative angles K2 − K1, K4 − K5, K6 − K7. Sizes: q 21; result 7.
Vector andrewsAngles(const Mechanism& mechanism, ConstVectorRef q);

}  // namespace kktdae::multibody
