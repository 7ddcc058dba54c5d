#pragma once
// SIGINT and SIGTERM for the apps: the handler only records the signal in an atomic flag that the
// library polls (SimulationOptions::interrupt) and the app checks between files and while gnuplot
// runs; the app then publishes what it recorded and exits 128 + signal.

#include <atomic>
#include <string>
#include <utility>

#include "kktdae/simulate/simulate.hpp"

namespace kktdae::apps {

/// Installs the handlers for SIGINT and SIGTERM (without SA_RESTART, so a blocking waitpid
/// returns and the app can forward the signal to gnuplot). Call once, before the run.
void installInterruptHandlers();

/// The flag the handlers set; pass its address as SimulationOptions::interrupt.
const std::atomic<bool>* interruptFlag();

/// Whether a SIGINT or SIGTERM has arrived.
bool interrupted();

/// The signal that arrived first (SIGINT or SIGTERM), 0 if none.
int interruptSignal();

/// The exit code for the signal that arrived: 130 (SIGINT), 143 (SIGTERM), or 0 if none.
int interruptExitCode();

/// Points `options.interrupt` at interruptFlag(), so the library stops the run at its next step
/// once a signal arrived.
inline void connectInterrupt(kktdae::SimulationOptions& options) { options.interrupt = interruptFlag(); }

/// Whether a run ended as the library's answer to the interrupt, rather than a failure of its own
/// before the signal.
inline bool stoppedByInterrupt(const kktdae::Summary& summary) {
  return summary.status == kktdae::RunStatus::Interrupted;
}

/// Test-only hooks, read from the environment once, so app tests can deliver a signal at a
/// deterministic point: KKTDAE_TEST_SIGNAL_AT_STEP=k raises the signal when the k-th state is
/// observed; KKTDAE_TEST_SIGNAL_AT_PLOT=n raises it just after the n-th gnuplot process (1-based)
/// has started. KKTDAE_TEST_SIGNAL=TERM raises SIGTERM instead of SIGINT. Without these variables
/// the hooks do nothing.
void testSignalAtStep(long step);
/// True when KKTDAE_TEST_SIGNAL_AT_STEP is set: an app hands the library an observer for
/// testSignalAtStep only then, so that a normal run pays nothing for the hook.
bool testSignalAtStepRequested();
/// See testSignalAtStep; called by the gnuplot runner after each spawn.
void testSignalAtPlot();

}  // namespace kktdae::apps
