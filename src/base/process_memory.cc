#include "base/process_memory.h"

#include <fstream>
#include <sstream>
#include <string>

namespace snarkd {

size_t peak_rss_bytes() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmHWM:", 0) == 0) {
      std::istringstream in(line.substr(6));
      size_t kib = 0;
      in >> kib;
      return kib << 10;
    }
  }
  return 0;
}

}  // namespace snarkd
