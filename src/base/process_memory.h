// snarkd/base: the process's own memory, as Linux reports it.
#pragma once

#include <cstddef>

namespace snarkd {

// VmHWM of /proc/self/status: the peak resident set in bytes (0 where it cannot be read).
size_t peak_rss_bytes();
// VmRSS: the resident set now.
size_t rss_bytes();

}  // namespace snarkd
