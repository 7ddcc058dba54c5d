#pragma once
// SIGINT and SIGTERM for the apps: the handler only records the signal in an atomic flag that the
// library polls (SimulationOptions::interrupt) and the app checks between files and while gnuplot
// runs; the app then publishes what it recorded and exits 128 + signal.

#include <atomic>
#include <string>
#include <type_traits>
#include <utility>

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

namespace detail {
template <typename Options, typename = void>
struct HasInterrupt : std::false_type {};
template <typename Options>
struct HasInterrupt<Options, std::void_t<decltype(std::declval<Options&>().interrupt)>> : std::true_type {};
}  // namespace detail

/// Points `options.interrupt` (SimulationOptions, issue 14) at interruptFlag(), so the library
/// stops the run at its next step once a signal arrived. Written against the member's presence
/// so the apps build before and after the library gains it; once it has, this is one assignment.
template <typename Options>
void connectInterrupt(Options& options) {
  if constexpr (detail::HasInterrupt<Options>::value) options.interrupt = interruptFlag();
}

/// Whether a run's failure is the library's answer to the interrupt ("interrupted at step k
/// (t = … s)"), rather than a failure of its own before the signal.
template <typename Summary>
bool stoppedByInterrupt(const Summary& summary) {
  return !summary.ok() && summary.message.rfind("interrupted", 0) == 0;
}

/// Test-only hooks, read from the environment once, so app tests can deliver a signal at a
/// deterministic point: KKTDAE_TEST_SIGNAL_AT_STEP=k raises the signal when the k-th state is
/// observed; KKTDAE_TEST_SIGNAL_AT_PLOT=n raises it just after the n-th gnuplot process (1-based)
/// has started. KKTDAE_TEST_SIGNAL=TERM raises SIGTERM instead of SIGINT. Without these variables
/// the hooks do nothing.
void testSignalAtStep(long step);
/// See testSignalAtStep; called by the gnuplot runner after each spawn.
void testSignalAtPlot();

}  // namespace kktdae::apps
