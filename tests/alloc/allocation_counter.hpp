#pragma once
// Counts heap allocations while an AllocationCounter lives. The counting malloc, calloc, realloc
// and operator new are defined once, in allocation_test.cpp, for the whole allocation binary
// (they replace glibc's; the sanitizers interpose malloc themselves, so the binary is not built
// under them).

#include <atomic>

namespace kktdae::testing {

extern std::atomic<bool> counting_allocations;
extern std::atomic<long> allocation_count;

class AllocationCounter {
 public:
  AllocationCounter() {
    allocation_count = 0;
    counting_allocations = true;
  }
  ~AllocationCounter() { counting_allocations = false; }
  AllocationCounter(const AllocationCounter&) = delete;
  AllocationCounter& operator=(const AllocationCounter&) = delete;
  long count() const { return allocation_count.load(); }
};

}  // namespace kktdae::testing
