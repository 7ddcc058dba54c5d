#pragma once
// Counts heap allocations, and the bytes they ask for, while an AllocationCounter lives. The
// counting malloc, calloc, realloc and operator new are defined once, in allocation_test.cpp, for
// the whole allocation binary (they replace glibc's; the sanitizers interpose malloc themselves,
// so the binary is not built under them).

#include <atomic>

namespace kktdae::testing {

extern std::atomic<bool> counting_allocations;
extern std::atomic<long> allocation_count;
/// Bytes asked for by the counted allocations (a realloc counts its new size).
extern std::atomic<long long> allocation_bytes;

class AllocationCounter {
 public:
  AllocationCounter() {
    allocation_count = 0;
    allocation_bytes = 0;
    counting_allocations = true;
  }
  ~AllocationCounter() { counting_allocations = false; }
  AllocationCounter(const AllocationCounter&) = delete;
  AllocationCounter& operator=(const AllocationCounter&) = delete;
  long count() const { return allocation_count.load(); }
  long long bytes() const { return allocation_bytes.load(); }
};

}  // namespace kktdae::testing
