// snarkd/ff: inverts many field elements with one inversion (Montgomery's trick). Zeros stay
// zero.
#pragma once

#include <span>
#include <vector>

namespace snarkd::ff {

template <class F>
void batch_inverse(std::span<F> values) {
  std::vector<F> prefix(values.size());
  F acc = F::one();
  for (size_t i = 0; i < values.size(); ++i) {
    prefix[i] = acc;
    if (!values[i].is_zero()) acc *= values[i];
  }
  F inv = acc.inverse();
  for (size_t i = values.size(); i-- > 0;) {
    if (values[i].is_zero()) continue;
    F v = values[i];
    values[i] = inv * prefix[i];
    inv *= v;
  }
}

}  // namespace snarkd::ff
