// snarkd/cli: `--backend cpu|gpu|auto`, as the one-shot commands and benchmarks take it (the
// engine makes the backend).
#pragma once

#include <optional>
#include <string_view>

namespace snarkd::cli {

enum class BackendChoice { kAuto, kCpu, kGpu };

inline std::optional<BackendChoice> parse_backend(std::string_view name) {
  if (name == "auto") return BackendChoice::kAuto;
  if (name == "cpu") return BackendChoice::kCpu;
  if (name == "gpu") return BackendChoice::kGpu;
  return std::nullopt;
}

}  // namespace snarkd::cli
