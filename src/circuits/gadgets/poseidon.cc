#include "circuits/gadgets/poseidon.h"

#include <array>
#include <cassert>
#include <map>
#include <memory>
#include <mutex>

namespace snarkd::circuits {
namespace {

using F = PoseidonField;
using Matrix = PoseidonConstants::Matrix;

// Partial rounds for Strength::Standard, from neptune's round_numbers (its own test asserts
// these; computing them takes f32 arithmetic that is not worth reproducing).
unsigned partial_rounds(unsigned arity) {
  switch (arity) {
    case 2: return 55;
    case 4: return 56;
    case 8: return 57;
    case 11: return 57;
    case 16: return 59;
    case 24: return 59;
    case 36: return 60;
    default: return 0;
  }
}

// The Grain LFSR of the Poseidon paper (80-bit state, self-shrinking output).
class Grain {
 public:
  Grain(unsigned field_bits, unsigned width, unsigned full, unsigned partial) {
    auto append = [&](uint64_t value, unsigned bits) {
      for (unsigned i = bits; i-- > 0;) state_[len_++] = (value >> i) & 1;
    };
    append(1, 2);  // prime field
    append(1, 4);  // x^alpha S-box
    append(field_bits, 12);
    append(width, 12);
    append(full, 10);
    append(partial, 10);
    append((uint64_t(1) << 30) - 1, 30);
    assert(len_ == 80);
    for (int i = 0; i < 160; ++i) (void)step();
  }

  bool next_bit() {
    for (;;) {
      const bool first = step();
      const bool second = step();
      if (first) return second;
    }
  }

 private:
  bool step() {
    const bool bit = state_[(head_ + 62) % 80] ^ state_[(head_ + 51) % 80] ^ state_[(head_ + 38) % 80] ^
                     state_[(head_ + 23) % 80] ^ state_[(head_ + 13) % 80] ^ state_[head_];
    state_[head_] = bit;  // the oldest bit leaves, the new one enters at the end
    head_ = (head_ + 1) % 80;
    return bit;
  }
  std::array<bool, 80> state_{};
  unsigned len_ = 0, head_ = 0;
};

// The next field element: 255 output bits, most significant first; values >= r are drawn again.
F grain_field_element(Grain& g) {
  for (;;) {
    ff::BigInt<4> v;
    for (int bit = int(F::kModulusBits) - 1; bit >= 0; --bit) {
      if (g.next_bit()) v.limbs[size_t(bit) / 64] |= uint64_t(1) << (bit % 64);
    }
    if (auto x = F::from_canonical(v)) return *x;
  }
}

Matrix identity(size_t n) {
  Matrix m(n, std::vector<F>(n, F::zero()));
  for (size_t i = 0; i < n; ++i) m[i][i] = F::one();
  return m;
}

Matrix multiply(const Matrix& a, const Matrix& b) {
  const size_t n = a.size(), k = b.size(), p = b[0].size();
  Matrix r(n, std::vector<F>(p, F::zero()));
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < p; ++j) {
      F acc = F::zero();
      for (size_t x = 0; x < k; ++x) acc += a[i][x] * b[x][j];
      r[i][j] = acc;
    }
  }
  return r;
}

// Gauss-Jordan; the matrices here are invertible (Cauchy matrices and their minors' products).
Matrix invert(Matrix m) {
  const size_t n = m.size();
  Matrix inv = identity(n);
  for (size_t col = 0; col < n; ++col) {
    size_t pivot = col;
    while (pivot < n && m[pivot][col].is_zero()) ++pivot;
    assert(pivot < n && "singular matrix");
    std::swap(m[pivot], m[col]);
    std::swap(inv[pivot], inv[col]);
    const F scale = m[col][col].inverse();
    for (size_t j = 0; j < n; ++j) {
      m[col][j] *= scale;
      inv[col][j] *= scale;
    }
    for (size_t row = 0; row < n; ++row) {
      if (row == col || m[row][col].is_zero()) continue;
      const F f = m[row][col];
      for (size_t j = 0; j < n; ++j) {
        m[row][j] -= f * m[col][j];
        inv[row][j] -= f * inv[col][j];
      }
    }
  }
  return inv;
}

// v * m (row vector on the left).
std::vector<F> row_times(const Matrix& m, std::span<const F> v) {
  std::vector<F> r(m[0].size(), F::zero());
  for (size_t i = 0; i < v.size(); ++i) {
    for (size_t j = 0; j < r.size(); ++j) r[j] += v[i] * m[i][j];
  }
  return r;
}

Matrix minor00(const Matrix& m) {
  Matrix r;
  for (size_t i = 1; i < m.size(); ++i) r.emplace_back(m[i].begin() + 1, m[i].end());
  return r;
}

std::unique_ptr<PoseidonConstants> generate(unsigned arity) {
  auto k = std::make_unique<PoseidonConstants>();
  k->arity = arity;
  const unsigned t = k->width = arity + 1;
  const unsigned rf = k->full_rounds, rp = k->partial_rounds = partial_rounds(arity);
  const unsigned h = rf / 2;
  k->domain_tag = F::from_u64((uint64_t(1) << arity) - 1);

  Grain grain(unsigned(F::kModulusBits), t, rf, rp);
  k->round_constants.resize(size_t(rf + rp) * t);
  for (auto& c : k->round_constants) c = grain_field_element(grain);

  // Cauchy MDS: M[i][j] = 1 / (x_i + y_j), x_i = i, y_j = t + j.
  k->mds.assign(t, std::vector<F>(t));
  for (unsigned i = 0; i < t; ++i) {
    for (unsigned j = 0; j < t; ++j) k->mds[i][j] = F::from_u64(i + j + t).inverse();
  }
  k->mds_inverse = invert(k->mds);

  // Compressed round constants: each round's keys moved through the following linear layer.
  auto rk = [&](unsigned round) { return std::span<const F>(k->round_constants).subspan(size_t(round) * t, t); };
  auto inv = [&](std::span<const F> x) { return row_times(k->mds_inverse, x); };
  auto& crc = k->compressed_round_constants;
  crc.insert(crc.end(), rk(0).begin(), rk(0).end());
  for (unsigned i = 0; i + 1 < h; ++i) {
    const auto v = inv(rk(i + 1));
    crc.insert(crc.end(), v.begin(), v.end());
  }
  std::vector<F> acc(rk(h + rp).begin(), rk(h + rp).end());
  std::vector<F> partial_keys;
  for (unsigned i = 0; i < rp; ++i) {
    auto tmp = inv(acc);
    partial_keys.push_back(tmp[0]);
    tmp[0] = F::zero();
    const auto prev = rk(h + rp - 1 - i);
    for (unsigned j = 0; j < t; ++j) acc[j] = prev[j] + tmp[j];
  }
  {
    const auto v = inv(acc);
    crc.insert(crc.end(), v.begin(), v.end());
  }
  crc.insert(crc.end(), partial_keys.rbegin(), partial_keys.rend());
  for (unsigned i = 1; i < h; ++i) {
    const auto v = inv(rk(h + rp + i));
    crc.insert(crc.end(), v.begin(), v.end());
  }
  assert(crc.size() == size_t(rf) * t + rp);

  // Sparse factorization: curr = M; each step splits curr into M' (identity on index 0, curr's
  // minor elsewhere) and M'' (sparse), then curr = M * M'. The last curr is the pre-sparse
  // matrix; the M''s are used in reverse order of their making.
  Matrix curr = k->mds;
  std::vector<PoseidonConstants::Sparse> made;
  for (unsigned r = 0; r < rp; ++r) {
    const Matrix m_hat_inv = invert(minor00(curr));
    Matrix prime = identity(t);
    for (unsigned i = 1; i < t; ++i) {
      for (unsigned j = 1; j < t; ++j) prime[i][j] = curr[i][j];
    }
    std::vector<F> w(t - 1);
    for (unsigned i = 1; i < t; ++i) w[i - 1] = curr[i][0];
    const auto w_hat = row_times(m_hat_inv, w);
    PoseidonConstants::Sparse s;
    s.w_hat.push_back(curr[0][0]);
    s.w_hat.insert(s.w_hat.end(), w_hat.begin(), w_hat.end());
    s.v_rest.assign(curr[0].begin() + 1, curr[0].end());
    made.push_back(std::move(s));
    curr = multiply(k->mds, prime);
  }
  k->pre_sparse = std::move(curr);
  k->sparse.assign(made.rbegin(), made.rend());
  return k;
}

}  // namespace

bool poseidon_arity_supported(unsigned arity) { return partial_rounds(arity) != 0; }

const PoseidonConstants& poseidon_constants(unsigned arity) {
  static std::mutex mu;
  static std::map<unsigned, std::unique_ptr<PoseidonConstants>> cache;
  assert(poseidon_arity_supported(arity));
  std::lock_guard lock(mu);
  auto& slot = cache[arity];
  if (!slot) slot = generate(arity);
  return *slot;
}

namespace {

F pow5(const F& x) { return x.square().square() * x; }

}  // namespace

F poseidon_hash(std::span<const F> input) {
  const PoseidonConstants& k = poseidon_constants(unsigned(input.size()));
  const unsigned t = k.width, h = k.half_full();
  const auto& c = k.compressed_round_constants;
  std::vector<F> s(t), tmp(t);
  s[0] = k.domain_tag;
  for (unsigned i = 1; i < t; ++i) s[i] = input[i - 1];
  for (unsigned i = 0; i < t; ++i) s[i] += c[i];
  size_t off = t;
  unsigned round = 0;
  auto mix = [&] {
    if (round > h - 1 && round < h + k.partial_rounds) {
      const auto& m = k.sparse[round - h];
      F first = F::zero();
      for (unsigned i = 0; i < t; ++i) first += m.w_hat[i] * s[i];
      for (unsigned j = 1; j < t; ++j) s[j] += m.v_rest[j - 1] * s[0];
      s[0] = first;
    } else {
      const auto& m = round == h - 1 ? k.pre_sparse : k.mds;
      for (unsigned j = 0; j < t; ++j) {
        F acc = F::zero();
        for (unsigned i = 0; i < t; ++i) acc += s[i] * m[i][j];
        tmp[j] = acc;
      }
      s.swap(tmp);
    }
    ++round;
  };
  auto full = [&](bool last) {
    for (unsigned i = 0; i < t; ++i) s[i] = last ? pow5(s[i]) : pow5(s[i]) + c[off + i];
    if (!last) off += t;
    mix();
  };
  for (unsigned r = 0; r < h; ++r) full(false);
  for (unsigned r = 0; r < k.partial_rounds; ++r) {
    s[0] = pow5(s[0]) + c[off++];
    mix();
  }
  for (unsigned r = 0; r + 1 < h; ++r) full(false);
  full(true);
  assert(off == c.size());
  return s[1];
}

F poseidon_hash_reference(std::span<const F> input) {
  const PoseidonConstants& k = poseidon_constants(unsigned(input.size()));
  const unsigned t = k.width, h = k.half_full();
  std::vector<F> s(t);
  s[0] = k.domain_tag;
  for (unsigned i = 1; i < t; ++i) s[i] = input[i - 1];
  size_t o = 0;
  auto round = [&](bool full) {
    for (unsigned i = 0; i < t; ++i) s[i] += k.round_constants[o + i];
    if (full) {
      for (auto& x : s) x = pow5(x);
    } else {
      s[0] = pow5(s[0]);
    }
    s = row_times(k.mds, s);
    o += t;
  };
  for (unsigned r = 0; r < h; ++r) round(true);
  for (unsigned r = 0; r < k.partial_rounds; ++r) round(false);
  for (unsigned r = 0; r < h; ++r) round(true);
  return s[1];
}

}  // namespace snarkd::circuits
