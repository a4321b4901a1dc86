// The registry: one line per family.
#include "registry/registry.h"

#include "circuits/families.h"
#include "filecoin/families.h"

namespace snarkd::registry {

using circuits::CircuitFamily;
using namespace circuits;

const std::vector<const CircuitFamily*>& families() {
  static const std::vector<const CircuitFamily*> all = {
      &chain_family(),
      &partition_family(),
      &sha256_family(),
      &poseidon_family(),
      &por_family(),
      &filecoin::porep_family(),
      &filecoin::stacked_family(),
  };
  return all;
}

Result<std::unique_ptr<circuits::Circuit>> parse_circuit(std::string_view spec) {
  std::string_view s = spec;
  if (s.rfind("builtin:", 0) == 0) s.remove_prefix(8);
  const auto colon = s.find(':');
  const std::string_view name = s.substr(0, colon);
  for (const CircuitFamily* f : families()) {
    if (f->name() == name) return f->parse(colon == std::string_view::npos ? "" : s.substr(colon + 1), spec);
  }
  std::string known;
  for (const CircuitFamily* f : families()) known += (known.empty() ? "" : ", ") + std::string(f->name());
  return invalid_argument("circuit '" + std::string(spec) + "': unknown family '" + std::string(name) +
                          "' (known: " + known + ")");
}

}  // namespace snarkd::registry
