#include "common/interrupt.hpp"

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>

namespace kktdae::apps {
namespace {

// Lock-free atomics are async-signal-safe; the static_assert keeps it so.
std::atomic<bool> g_interrupted{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

extern "C" void onInterrupt(int signal_number) {
  int expected = 0;
  g_signal.compare_exchange_strong(expected, signal_number);
  g_interrupted.store(true);
}

long environmentNumber(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return -1;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  return *end == '\0' ? value : -1;
}

int testSignal() {
  const char* text = std::getenv("KKTDAE_TEST_SIGNAL");
  return text != nullptr && std::strcmp(text, "TERM") == 0 ? SIGTERM : SIGINT;
}

}  // namespace

void installInterruptHandlers() {
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: waitpid returns EINTR and the app forwards the signal
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

const std::atomic<bool>* interruptFlag() { return &g_interrupted; }

bool interrupted() { return g_interrupted.load(); }

int interruptSignal() { return g_signal.load(); }

int interruptExitCode() {
  const int signal_number = g_signal.load();
  return signal_number == 0 ? 0 : 128 + signal_number;
}

namespace {
long testSignalStep() {
  static const long at = environmentNumber("KKTDAE_TEST_SIGNAL_AT_STEP");
  return at;
}
}  // namespace

void testSignalAtStep(long step) {
  const long at = testSignalStep();
  if (at >= 0 && step == at) std::raise(testSignal());
}

bool testSignalAtStepRequested() { return testSignalStep() >= 0; }

void testSignalAtPlot() {
  static const long at = environmentNumber("KKTDAE_TEST_SIGNAL_AT_PLOT");
  static long spawned = 0;
  if (at > 0 && ++spawned == at) std::raise(testSignal());
}

}  // namespace kktdae::apps
