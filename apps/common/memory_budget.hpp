#pragma once
// Memory a run may use, checked before it starts: a run too large for the machine is a usage
// error naming the flag, not a std::bad_alloc halfway through.

#include <string>

#include "kktdae/core/available_memory.hpp"  // availableMemory(), formatBytes()
#include "kktdae/integrators/integrator.hpp"

namespace kktdae::apps {

/// Throws CLI::ValidationError naming `flags` (e.g. "--links 100000000 --steps 1") when
/// `estimate_bytes` exceeds the memory available; does nothing when that cannot be read.
/// The message gives the estimate and the memory available.
void requireMemory(const std::string& flags, double estimate_bytes);

/// One pendulum-chain run's peak memory without its recording [bytes], from the peak resident
/// sizes of 2-step kktdae-constraints runs at 10,000 and 40,000 links (docs/apps.md, "Memory"), per link
/// on the sparse path: explicit steppers, rattle and CVODE 1.2–2.8 kB (3 kB used); generalized-α
/// and HHT 4.9 kB, 5.7 kB in the block form (6 kB used); IDA 6.0–9.8 kB (10 kB used); and with
/// `dense` (the dense KKT path) 80 bytes per link² more.
double chainRunMemory(double links, bool dense, Integrator integrator);

/// "needs about X of memory, Y available (MemAvailable); ask for less": what requireMemory says
/// after the flags, and what a run that still runs out (std::bad_alloc) says.
std::string memoryShortfall(double estimate_bytes);

}  // namespace kktdae::apps
