// peak_rss_bytes against getrusage's ru_maxrss (the kernel's other report of the same peak), and
// it grows when the process touches more memory than it ever had resident.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sys/resource.h>

#include <cstring>
#include <memory>

#include "base/process_memory.h"

namespace snarkd {
namespace {

size_t rusage_peak_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return size_t(u.ru_maxrss) << 10;  // KiB on Linux
}

TEST(ProcessMemoryTest, PeakRssAgreesWithGetrusageAndGrows) {
  const size_t before = peak_rss_bytes();
  ASSERT_GT(before, 0u);
  const size_t extra = size_t(256) << 20;  // well past any peak a test binary reached so far
  auto block = std::make_unique<unsigned char[]>(before + extra);
  std::memset(block.get(), 0x5a, before + extra);  // touched, so resident
  const size_t after = peak_rss_bytes();
  EXPECT_GE(after, before + extra);
  // Both read the same high-water mark; allow a page-table's worth of drift between the reads.
  const size_t other = rusage_peak_bytes();
  EXPECT_NEAR(double(after), double(other), double(size_t(8) << 20));
  EXPECT_EQ(block[before + extra - 1], 0x5a);
}

// rss_bytes against /proc/self/statm (resident pages), the kernel's other report of it.
TEST(ProcessMemoryTest, RssMatchesStatmAndFollowsAllocations) {
  auto statm = [] {
    std::ifstream f("/proc/self/statm");
    size_t size = 0, resident = 0;
    f >> size >> resident;
    return resident * size_t(sysconf(_SC_PAGESIZE));
  };
  const size_t before = rss_bytes();
  ASSERT_GT(before, 0u);
  const size_t extra = size_t(64) << 20;
  auto block = std::make_unique<unsigned char[]>(extra);
  std::memset(block.get(), 0x3c, extra);  // touched, so resident
  const size_t rss = rss_bytes();
  EXPECT_NEAR(double(rss), double(statm()), double(size_t(4) << 20));
  // (Not "freed pages leave": AddressSanitizer keeps freed memory in quarantine.)
  EXPECT_GE(rss, before + extra - (size_t(4) << 20)) << "the touched block is resident";
  EXPECT_EQ(block[extra - 1], 0x3c);
}

}  // namespace
}  // namespace snarkd
