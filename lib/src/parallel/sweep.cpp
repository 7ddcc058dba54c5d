#include "kktdae/parallel/sweep.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <string>
#include <system_error>
#include <thread>

#include "kktdae/core/checks.hpp"

namespace kktdae {

void SweepOptions::validate() const {
  if (threads < 0 || threads > kMaxSweepThreads) {
    throwInvalid("threads", "must be 0 (all cores) to " + std::to_string(kMaxSweepThreads) + ", got " +
                                std::to_string(threads));
  }
}

int sweepThreadCount(std::size_t count, const SweepOptions& options) {
  options.validate();
  std::size_t threads = static_cast<std::size_t>(options.threads);
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<int>(std::max<std::size_t>(1, std::min(threads, count)));
}

void forEachIndex(std::size_t count, const std::function<void(std::size_t)>& body, const SweepOptions& options) {
  const int threads = sweepThreadCount(count, options);
  if (count == 0) return;
  if (threads == 1) {
    // The serial reference: inline, in index order, stopping at the first exception.
    for (std::size_t i = 0; i < count; ++i) body(i);
    return;
  }

  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  // One slot per index: written only by the thread that ran that index, read after the joins.
  std::vector<std::exception_ptr> errors(count);
  auto work = [&]() {
    while (!failed.load(std::memory_order_relaxed)) {
      const std::size_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= count) return;
      try {
        body(i);
      } catch (...) {
        errors[i] = std::current_exception();
        failed.store(true, std::memory_order_relaxed);
      }
    }
  };

  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(threads - 1));
  for (int t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error& error) {
      // Out of threads (a limit, a container): the ones running, and this one, do the rest.
      spdlog::debug("sweep: could not start thread {} of {} ({}); continuing with {}", t + 1, threads, error.what(),
                    pool.size() + 1);
      break;
    }
  }
  spdlog::debug("sweep: {} tasks on {} threads", count, pool.size() + 1);
  work();  // the calling thread works too
  for (std::thread& thread : pool) thread.join();

  // Every index below the lowest failing one was handed out before it and ran to completion, so
  // this is the exception the serial run would have thrown.
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace kktdae
