#include "sigint_bridge.hpp"

#include <csignal>
#include <mutex>

namespace kktdae::python {
namespace {

std::mutex g_mutex;       // guards the three below; never taken in the handler
int g_users = 0;          // bridges alive
bool g_installed = false; // the handler is ours
struct sigaction g_previous {};  // written before the handler is installed, read by it
std::atomic<bool> g_flag{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the handler may only touch lock-free atomics");

bool callsAFunction(const struct sigaction& action) {
  if ((action.sa_flags & SA_SIGINFO) != 0) return action.sa_sigaction != nullptr;
  return action.sa_handler != SIG_DFL && action.sa_handler != SIG_IGN;
}

void onSigint(int signal, siginfo_t* info, void* context) {
  g_flag.store(true, std::memory_order_relaxed);
  // Python's own handler (async-signal-safe): it notes the signal for the interpreter.
  if ((g_previous.sa_flags & SA_SIGINFO) != 0) {
    g_previous.sa_sigaction(signal, info, context);
  } else {
    g_previous.sa_handler(signal);
  }
}

bool ours(const struct sigaction& action) {
  return (action.sa_flags & SA_SIGINFO) != 0 && action.sa_sigaction == &onSigint;
}

}  // namespace

SigintBridge::SigintBridge() {
  const std::lock_guard<std::mutex> lock(g_mutex);
  if (g_users++ > 0) return;
  g_flag.store(false, std::memory_order_relaxed);
  struct sigaction current {};
  if (sigaction(SIGINT, nullptr, &current) != 0 || !callsAFunction(current) || ours(current)) return;
  g_previous = current;
  struct sigaction bridge = current;  // Python's mask and flags (SA_ONSTACK, no SA_RESTART)
  bridge.sa_flags |= SA_SIGINFO;
  bridge.sa_sigaction = &onSigint;
  g_installed = sigaction(SIGINT, &bridge, nullptr) == 0;
}

SigintBridge::~SigintBridge() {
  const std::lock_guard<std::mutex> lock(g_mutex);
  if (--g_users > 0) return;
  // Handled (raiseIfSignalled) or not, the signal belonged to the calls that have ended: a
  // Simulator, which holds the flag between calls, must not find it still set in its next step.
  g_flag.store(false, std::memory_order_relaxed);
  if (!g_installed) return;
  g_installed = false;
  // A handler installed during the run (signal.signal() from an observer) is left in place.
  struct sigaction current {};
  if (sigaction(SIGINT, nullptr, &current) == 0 && ours(current)) sigaction(SIGINT, &g_previous, nullptr);
}

const std::atomic<bool>* SigintBridge::flag() const { return &g_flag; }

bool SigintBridge::signalled() const { return g_flag.load(std::memory_order_relaxed); }

void SigintBridge::raiseIfSignalled(py::handle result) const {
  if (!signalled() || PyErr_CheckSignals() == 0) return;  // off the main thread, Python answers 0
  py::error_already_set raised;
  if (PyObject_SetAttrString(raised.value().ptr(), "result", result.ptr()) != 0) PyErr_Clear();
  throw raised;
}

}  // namespace kktdae::python
