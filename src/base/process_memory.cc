#include "base/process_memory.h"

#include <fstream>
#include <sstream>
#include <string>

namespace snarkd {

namespace {
// A "Name:   123 kB" line of /proc/self/status, in bytes.
size_t status_kib_line(const std::string& name) {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind(name, 0) == 0) {
      std::istringstream in(line.substr(name.size()));
      size_t kib = 0;
      in >> kib;
      return kib << 10;
    }
  }
  return 0;
}
}  // namespace

size_t peak_rss_bytes() { return status_kib_line("VmHWM:"); }
size_t rss_bytes() { return status_kib_line("VmRSS:"); }

bool reset_peak_rss() {
  std::ofstream f("/proc/self/clear_refs");
  if (!f) return false;
  f << "5";
  f.flush();
  return bool(f);
}

}  // namespace snarkd
