#include "runner/base/cpu_affinity.hpp"

#include <sched.h>
#include <unistd.h>

#include <cstddef>
#include <vector>

namespace runner {

namespace {

// The CPUs of this thread's affinity mask, each (when `list`) or their count; 0 when it cannot be
// read. The mask is sized for the kernel's CPU count (a fixed cpu_set_t holds 1024, and larger
// machines exist).
int cpus_in_mask(std::vector<int>* list = nullptr) {
  for (int n = 1024; n <= (1 << 16); n *= 2) {
    cpu_set_t* set = CPU_ALLOC(n);
    if (!set) return 0;
    const std::size_t size = CPU_ALLOC_SIZE(n);
    CPU_ZERO_S(size, set);
    const int got = ::sched_getaffinity(0, size, set);
    const int count = got == 0 ? CPU_COUNT_S(size, set) : 0;
    if (got == 0 && list)
      for (int c = 0; c < n; ++c)
        if (CPU_ISSET_S(c, size, set)) list->push_back(c);
    CPU_FREE(set);
    if (got == 0) return count;
  }
  return 0;
}

// The mask at start, as a bitmap in static storage: the .preinit_array entry runs before any
// constructor, so nothing here may need one (a std::vector's would run after it and could clear
// it).
constexpr int kMaxCpusAtStart = 1 << 16;
unsigned char g_mask_at_start[kMaxCpusAtStart / 8];
int g_cpus_at_start = 0;

void read_mask_before_anything(int, char**, char**) {
  std::vector<int> cpus;  // (a local: constructed here, unlike a global)
  g_cpus_at_start = cpus_in_mask(&cpus);
  for (int c : cpus)
    if (c < kMaxCpusAtStart) g_mask_at_start[c / 8] |= static_cast<unsigned char>(1u << (c % 8));
}

[[gnu::section(".preinit_array"),
  gnu::used]] void (*const kReadMaskEarly)(int, char**, char**) = read_mask_before_anything;

}  // namespace

int usable_cpus() {
  if (g_cpus_at_start > 0) return g_cpus_at_start;
  if (const int now = cpus_in_mask(); now > 0) return now;
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<int>(online) : 1;
}

std::vector<int> affinity_cpus() {
  std::vector<int> cpus;
  cpus_in_mask(&cpus);
  return cpus;
}

std::vector<int> cpus_at_start() {
  if (g_cpus_at_start <= 0) return affinity_cpus();
  std::vector<int> cpus;
  for (int c = 0; c < kMaxCpusAtStart; ++c)
    if (g_mask_at_start[c / 8] & (1u << (c % 8))) cpus.push_back(c);
  return cpus;
}

}  // namespace runner
