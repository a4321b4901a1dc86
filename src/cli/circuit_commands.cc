#include "cli/circuit_commands.h"

#include <chrono>
#include <iomanip>
#include <nlohmann/json.hpp>

#include "circuits/circuit.h"
#include "registry/registry.h"

namespace snarkd::cli {

int run_circuit_list(std::ostream& out) {
  for (const circuits::CircuitFamily* f : registry::families()) {
    out << f->syntax() << "\n    " << f->summary() << "\n";
  }
  return 0;
}

int run_circuit_stats(const std::string& spec, bool json, std::ostream& out, std::ostream& err) {
  auto circuit = registry::parse_circuit(spec);
  if (!circuit.ok()) {
    err << "snarkd circuit stats: " << circuit.status().message() << "\n";
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  const r1cs::ShapeStats s = (*circuit)->shape();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::pair<const char*, uint64_t> rows[] = {
      {"inputs", s.inputs},
      {"aux", s.aux},
      {"constraints", s.constraints},
      {"nnz_a", s.nnz_a},
      {"nnz_b", s.nnz_b},
      {"nnz_c", s.nnz_c},
      {"a_aux_density", s.a_aux_density},
      {"b_input_density", s.b_input_density},
      {"b_aux_density", s.b_aux_density},
  };
  char digest[17];
  std::snprintf(digest, sizeof digest, "%016llx", static_cast<unsigned long long>(s.digest));
  if (json) {
    nlohmann::ordered_json j;
    j["circuit"] = (*circuit)->spec();
    j["curve"] = ec::curve_display_name((*circuit)->curve());
    for (const auto& [name, value] : rows) j[name] = value;
    j["constraints_with_input_rows"] = s.total_constraints();
    j["row_digest"] = digest;
    out << j.dump(2) << "\n";
    return 0;
  }
  out << std::left << std::setw(28) << "circuit" << (*circuit)->spec() << "\n";
  out << std::setw(28) << "curve" << ec::curve_display_name((*circuit)->curve()) << "\n";
  for (const auto& [name, value] : rows) out << std::setw(28) << name << value << "\n";
  out << std::setw(28) << "constraints_with_input_rows" << s.total_constraints() << "\n";
  out << std::setw(28) << "row_digest" << digest << "\n";
  err << "counted in " << std::fixed << std::setprecision(2) << seconds << " s (shape mode)\n";
  return 0;
}

}  // namespace snarkd::cli
