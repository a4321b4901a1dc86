// libFuzzer target for the C1 output readers (JSON, and bincode of a 2 KiB proof): any bytes give
// a C1 or an error naming the input (never a crash, abort, hang or huge allocation); a C1 that
// reads writes back to JSON that reads to the same C1, and its verification ends in a verdict.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "filecoin/c1.h"
#include "filecoin/c2.h"
#include "filecoin/porep.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace snarkd::filecoin;
  const SealProof& kib2 = seal_proofs()[5];
  // C2's reader: the C1 in either form, or Curio's/lotus-bench's Commit2In wrapper around it.
  auto in = read_c2_input(std::span<const uint8_t>(data, size), &kib2, "'fuzz'");
  if (!in.ok()) {
    if (in.status().message().rfind("'fuzz'", 0) != 0) std::abort();  // errors name the input
    return 0;
  }
  const C1Output* c1 = &in->c1;
  const std::string json = write_c1_json(*c1);
  auto again = read_c1_json(json, "'again'");
  if (!again.ok() || !(*again == *c1)) std::abort();
  const StackedGraph graph(*c1->registered_proof);
  (void)verify_c1(*c1, graph);
  return 0;
}
