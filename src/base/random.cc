#include "base/random.h"

#include <sys/random.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace snarkd {

uint64_t OsRandom::next() {
  uint64_t v = 0;
  auto* p = reinterpret_cast<unsigned char*>(&v);
  size_t got = 0;
  while (got < sizeof(v)) {
    ssize_t r = getrandom(p + got, sizeof(v) - got, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      std::perror("snarkd: getrandom failed; refusing to continue without randomness");
      std::abort();
    }
    got += size_t(r);
  }
  return v;
}

}  // namespace snarkd
