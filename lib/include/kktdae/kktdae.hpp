#pragma once
/// @file
/// Umbrella header: the whole public API of kktdae.

#include "kktdae/core/checks.hpp"
#include "kktdae/core/state.hpp"
#include "kktdae/core/types.hpp"
#include "kktdae/integrators/acceleration_function.hpp"
#include "kktdae/integrators/fixed_steppers.hpp"
#include "kktdae/integrators/integrator.hpp"
#include "kktdae/kkt/kkt_options.hpp"
#include "kktdae/kkt/kkt_result.hpp"
#include "kktdae/kkt/kkt_workspace.hpp"
#include "kktdae/kkt/solve_accelerations.hpp"
#include "kktdae/metrics/chain_metrics.hpp"
#include "kktdae/metrics/energy_drift.hpp"
#include "kktdae/models/circle_mass.hpp"
#include "kktdae/models/pendulum_chain.hpp"
#include "kktdae/simulate/simulate.hpp"
#include "kktdae/simulate/summary.hpp"
#include "kktdae/stabilization/stabilization.hpp"
#include "kktdae/system/constrained_system.hpp"
#include "kktdae/system/derivative_check.hpp"
