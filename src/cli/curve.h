// snarkd/cli: curve selection on the command line (names and dispatch live in ec/curve_id.h).
#pragma once

#include "ec/curve_id.h"

namespace snarkd::cli {

using Curve = ec::CurveId;
using ec::with_engine;

inline std::optional<Curve> parse_curve(std::string_view name) { return ec::parse_curve_name(name); }
inline const char* curve_name(Curve c) { return ec::curve_display_name(c); }

}  // namespace snarkd::cli
