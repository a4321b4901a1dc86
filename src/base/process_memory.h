// snarkd/base: the process's own memory, as Linux reports it.
#pragma once

#include <cstddef>

namespace snarkd {

// VmHWM of /proc/self/status: the peak resident set in bytes (0 where it cannot be read).
size_t peak_rss_bytes();
// VmRSS: the resident set now.
size_t rss_bytes();
// Starts VmHWM again from the resident set now (writes 5 to /proc/self/clear_refs, Linux 4.0+),
// so a later peak_rss_bytes() covers only what follows; false where the kernel refuses.
bool reset_peak_rss();

}  // namespace snarkd
