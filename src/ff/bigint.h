// snarkd/ff: fixed-width unsigned integers of N 64-bit limbs (little-endian limb order).
//
// BigInt is the canonical (non-Montgomery) integer form: moduli, exponents, scalars and the
// bytes we read and write. Everything here is constexpr so field parameters (R, R^2, -p^-1,
// (p-1)/2, ...) are derived from the modulus at compile time and cannot drift from it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace snarkd::ff {

using u128 = unsigned __int128;

template <size_t N>
struct BigInt {
  std::array<uint64_t, N> limbs{};  // limbs[0] is least significant

  static constexpr size_t kLimbs = N;
  static constexpr size_t kBits = 64 * N;

  constexpr uint64_t& operator[](size_t i) { return limbs[i]; }
  constexpr const uint64_t& operator[](size_t i) const { return limbs[i]; }

  static constexpr BigInt from_u64(uint64_t v) {
    BigInt r;
    r.limbs[0] = v;
    return r;
  }

  // Parses a big-endian hex literal (optional 0x). Used for constants, so it is constexpr and
  // asserts (by failing constant evaluation) on bad input.
  static constexpr BigInt from_hex(std::string_view hex) {
    if (hex.size() >= 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex.remove_prefix(2);
    BigInt r;
    size_t bit = 0;
    for (size_t k = hex.size(); k-- > 0;) {
      char c = hex[k];
      uint64_t v = c >= '0' && c <= '9'   ? uint64_t(c - '0')
                   : c >= 'a' && c <= 'f' ? uint64_t(c - 'a' + 10)
                   : c >= 'A' && c <= 'F' ? uint64_t(c - 'A' + 10)
                                          : throw "bad hex digit";
      if (bit >= kBits) {
        if (v != 0) throw "hex constant too large";
      } else {
        r.limbs[bit / 64] |= v << (bit % 64);
      }
      bit += 4;
    }
    return r;
  }

  constexpr bool is_zero() const {
    uint64_t acc = 0;
    for (size_t i = 0; i < N; ++i) acc |= limbs[i];
    return acc == 0;
  }
  constexpr bool bit(size_t i) const {
    return i < kBits && ((limbs[i / 64] >> (i % 64)) & 1) != 0;
  }
  constexpr bool is_odd() const { return (limbs[0] & 1) != 0; }

  // Index of the highest set bit plus one; 0 for zero.
  constexpr size_t num_bits() const {
    for (size_t i = N; i-- > 0;) {
      if (limbs[i] != 0) return 64 * i + 64 - size_t(__builtin_clzll(limbs[i]));
    }
    return 0;
  }

  friend constexpr bool operator==(const BigInt& a, const BigInt& b) = default;

  // -1, 0, 1
  friend constexpr int compare(const BigInt& a, const BigInt& b) {
    for (size_t i = N; i-- > 0;) {
      if (a.limbs[i] != b.limbs[i]) return a.limbs[i] < b.limbs[i] ? -1 : 1;
    }
    return 0;
  }
  friend constexpr bool operator<(const BigInt& a, const BigInt& b) { return compare(a, b) < 0; }
  friend constexpr bool operator>=(const BigInt& a, const BigInt& b) { return compare(a, b) >= 0; }
  friend constexpr bool operator>(const BigInt& a, const BigInt& b) { return compare(a, b) > 0; }
  friend constexpr bool operator<=(const BigInt& a, const BigInt& b) { return compare(a, b) <= 0; }

  // In-place add/sub returning the carry/borrow out.
  // The carry chains compile to ADC/SBB through the intrinsics; the portable loop is for
  // constant evaluation and other targets.
  constexpr uint64_t add_in_place(const BigInt& b) {
#if defined(__x86_64__)
    if (!std::is_constant_evaluated()) {
      unsigned char carry = 0;
      for (size_t i = 0; i < N; ++i) {
        unsigned long long out;
        carry = _addcarry_u64(carry, limbs[i], b.limbs[i], &out);
        limbs[i] = out;
      }
      return carry;
    }
#endif
    uint64_t carry = 0;
    for (size_t i = 0; i < N; ++i) {
      u128 t = u128(limbs[i]) + b.limbs[i] + carry;
      limbs[i] = uint64_t(t);
      carry = uint64_t(t >> 64);
    }
    return carry;
  }
  constexpr uint64_t sub_in_place(const BigInt& b) {
#if defined(__x86_64__)
    if (!std::is_constant_evaluated()) {
      unsigned char borrow = 0;
      for (size_t i = 0; i < N; ++i) {
        unsigned long long out;
        borrow = _subborrow_u64(borrow, limbs[i], b.limbs[i], &out);
        limbs[i] = out;
      }
      return borrow;
    }
#endif
    uint64_t borrow = 0;
    for (size_t i = 0; i < N; ++i) {
      u128 t = u128(limbs[i]) - b.limbs[i] - borrow;
      limbs[i] = uint64_t(t);
      borrow = uint64_t(t >> 64) & 1;
    }
    return borrow;
  }
  constexpr void shr1() {
    for (size_t i = 0; i < N; ++i) {
      limbs[i] = (limbs[i] >> 1) | (i + 1 < N ? limbs[i + 1] << 63 : 0);
    }
  }
  constexpr uint64_t shl1() {
    uint64_t out = limbs[N - 1] >> 63;
    for (size_t i = N; i-- > 0;) limbs[i] = (limbs[i] << 1) | (i > 0 ? limbs[i - 1] >> 63 : 0);
    return out;
  }
  // this = this * m + a; returns the limb that overflowed.
  constexpr uint64_t mul_add_small(uint64_t m, uint64_t a) {
    uint64_t carry = a;
    for (size_t i = 0; i < N; ++i) {
      u128 t = u128(limbs[i]) * m + carry;
      limbs[i] = uint64_t(t);
      carry = uint64_t(t >> 64);
    }
    return carry;
  }
  // this = this / d; returns the remainder.
  constexpr uint64_t div_small(uint64_t d) {
    u128 rem = 0;
    for (size_t i = N; i-- > 0;) {
      u128 cur = (rem << 64) | limbs[i];
      limbs[i] = uint64_t(cur / d);
      rem = cur % d;
    }
    return uint64_t(rem);
  }

  friend constexpr BigInt operator+(BigInt a, const BigInt& b) {
    a.add_in_place(b);
    return a;
  }
  friend constexpr BigInt operator-(BigInt a, const BigInt& b) {
    a.sub_in_place(b);
    return a;
  }

  // Decimal text, no leading zeros ("0" for zero).
  std::string to_decimal() const {
    BigInt t = *this;
    std::string digits;
    do {
      uint64_t chunk = t.div_small(10000000000000000000ull);  // 10^19
      for (int k = 0; k < 19; ++k) {
        digits.push_back(char('0' + chunk % 10));
        chunk /= 10;
        if (t.is_zero() && chunk == 0) break;
      }
    } while (!t.is_zero());
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    return std::string(digits.rbegin(), digits.rend());
  }

  // Parses decimal digits only (no sign, no spaces); nullopt when empty, non-digit or overflow.
  static std::optional<BigInt> from_decimal(std::string_view text) {
    if (text.empty()) return std::nullopt;
    BigInt r;
    for (char c : text) {
      if (c < '0' || c > '9') return std::nullopt;
      if (r.mul_add_small(10, uint64_t(c - '0')) != 0) return std::nullopt;
    }
    return r;
  }

  // Big/little-endian bytes, exactly 8*N long.
  void to_bytes_le(std::span<uint8_t> out) const {
    for (size_t i = 0; i < out.size(); ++i) out[i] = uint8_t(limbs[i / 8] >> (8 * (i % 8)));
  }
  void to_bytes_be(std::span<uint8_t> out) const {
    for (size_t i = 0; i < out.size(); ++i) {
      size_t j = out.size() - 1 - i;
      out[j] = uint8_t(limbs[i / 8] >> (8 * (i % 8)));
    }
  }
  // Reads up to 8*N bytes; longer input must have zero excess bytes (else nullopt).
  static std::optional<BigInt> from_bytes_le(std::span<const uint8_t> in) {
    BigInt r;
    for (size_t i = 0; i < in.size(); ++i) {
      if (i >= 8 * N) {
        if (in[i] != 0) return std::nullopt;
        continue;
      }
      r.limbs[i / 8] |= uint64_t(in[i]) << (8 * (i % 8));
    }
    return r;
  }
  static std::optional<BigInt> from_bytes_be(std::span<const uint8_t> in) {
    BigInt r;
    for (size_t i = 0; i < in.size(); ++i) {
      size_t k = in.size() - 1 - i;  // significance of in[k] is byte i
      if (i >= 8 * N) {
        if (in[k] != 0) return std::nullopt;
        continue;
      }
      r.limbs[i / 8] |= uint64_t(in[k]) << (8 * (i % 8));
    }
    return r;
  }
};

// Full product of two integers.
template <size_t N, size_t M>
constexpr BigInt<N + M> mul_wide(const BigInt<N>& a, const BigInt<M>& b) {
  BigInt<N + M> r;
  for (size_t i = 0; i < N; ++i) {
    uint64_t carry = 0;
    for (size_t j = 0; j < M; ++j) {
      u128 t = u128(a[i]) * b[j] + r[i + j] + carry;
      r[i + j] = uint64_t(t);
      carry = uint64_t(t >> 64);
    }
    r[i + M] = carry;
  }
  return r;
}

// Widens or narrows (narrowing drops high limbs; callers check they are zero).
template <size_t M, size_t N>
constexpr BigInt<M> resize(const BigInt<N>& a) {
  BigInt<M> r;
  for (size_t i = 0; i < (M < N ? M : N); ++i) r[i] = a[i];
  return r;
}

}  // namespace snarkd::ff
