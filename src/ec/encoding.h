// snarkd/ec: point encodings.
//
//  * zcash / IETF (BLS12-381; bellperson, Filecoin, noble): big-endian coordinates, Fp2 written
//    c1 then c0; byte 0 carries flags 0x80 compressed, 0x40 infinity, 0x20 "y is the
//    lexicographically larger root" (compressed only).
//  * snarkjs binary (both curves): affine, each coordinate little-endian in Montgomery form with
//    R = 2^(64 * limbs) (exactly our internal limbs); Fp2 as c0 then c1; identity = all zeros.
//  * snarkjs decimal JSON (both curves): G1 ["x", "y", "1"], G2 [["x0","x1"],["y0","y1"],["1","0"]],
//    identity with z = 0 (["0", "1", "0"]).
//
// Decoding is a ladder with one error per rung: length, flags, coordinates < p, on curve, in
// subgroup. Errors name the group ("BLS12-381 G1 compressed point: ...").
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "ec/point.h"

namespace snarkd::ec {

namespace detail {

template <class F>
struct FieldCodec;  // specialised for Fp (one coordinate) and Fp2 (a pair)

template <class F>
concept Quadratic = requires(F f) { f.c1; };

// Lexicographic order of the canonical integers; for Fp2, c1 decides unless it is zero.
template <class F>
bool is_lexicographically_largest(const F& y) {
  if constexpr (Quadratic<F>) {
    if (!y.c1.is_zero()) return is_lexicographically_largest(y.c1);
    return is_lexicographically_largest(y.c0);
  } else {
    return y.to_canonical() > F::kModulusMinusOneHalf;
  }
}

template <class F>
void write_be(const F& v, std::span<uint8_t> out) {
  if constexpr (Quadratic<F>) {
    constexpr size_t half = F::kBytes / 2;
    v.c1.to_bytes_be(out.subspan(0, half));
    v.c0.to_bytes_be(out.subspan(half, half));
  } else {
    v.to_bytes_be(out);
  }
}

template <class F>
std::optional<F> read_be(std::span<const uint8_t> in) {
  if constexpr (Quadratic<F>) {
    constexpr size_t half = F::kBytes / 2;
    using B = decltype(F{}.c0);
    auto c1 = B::from_bytes_be(in.subspan(0, half));
    auto c0 = B::from_bytes_be(in.subspan(half, half));
    if (!c0 || !c1) return std::nullopt;
    return F{*c0, *c1};
  } else {
    return F::from_bytes_be(in);
  }
}

template <class F>
void write_montgomery_le(const F& v, std::span<uint8_t> out) {
  if constexpr (Quadratic<F>) {
    constexpr size_t half = F::kBytes / 2;
    write_montgomery_le(v.c0, out.subspan(0, half));
    write_montgomery_le(v.c1, out.subspan(half, half));
  } else {
    v.montgomery().to_bytes_le(out);
  }
}

template <class F>
std::optional<F> read_montgomery_le(std::span<const uint8_t> in) {
  if constexpr (Quadratic<F>) {
    constexpr size_t half = F::kBytes / 2;
    using B = decltype(F{}.c0);
    auto c0 = read_montgomery_le<B>(in.subspan(0, half));
    auto c1 = read_montgomery_le<B>(in.subspan(half, half));
    if (!c0 || !c1) return std::nullopt;
    return F{*c0, *c1};
  } else {
    auto raw = F::Int::from_bytes_le(in);
    if (!raw || *raw >= F::kModulus) return std::nullopt;  // Montgomery form is also < p
    return F::from_montgomery(*raw);
  }
}

template <class C>
Status error(std::string_view form, std::string_view what) {
  return invalid_argument(std::string(C::kName) + " " + std::string(form) + ": " +
                          std::string(what));
}

// The last two rungs of every decoding ladder.
template <class C>
Result<Affine<C>> check_point(const Affine<C>& p, std::string_view form) {
  if (!p.is_on_curve()) return error<C>(form, "point is not on the curve");
  if (!C::in_subgroup(Jacobian<C>::from_affine(p))) {
    return error<C>(form, "point is not in the prime-order subgroup");
  }
  return p;
}

}  // namespace detail

template <class C>
inline constexpr size_t kCompressedSize = C::Field::kBytes;
template <class C>
inline constexpr size_t kUncompressedSize = 2 * C::Field::kBytes;

// kOnCurveOnly skips the subgroup check: for the bulk of a proving key, where a bad point can
// only make an invalid proof (which the self-verification catches) and a subgroup check per
// point would cost more than the proof.
enum class PointCheck { kFull, kOnCurveOnly };

// ---- zcash / IETF (BLS12-381) ----

inline constexpr uint8_t kFlagCompressed = 0x80;
inline constexpr uint8_t kFlagInfinity = 0x40;
inline constexpr uint8_t kFlagLargestY = 0x20;

template <class C>
std::array<uint8_t, kCompressedSize<C>> encode_compressed(const Affine<C>& p) {
  std::array<uint8_t, kCompressedSize<C>> out{};
  if (p.infinity) {
    out[0] = kFlagCompressed | kFlagInfinity;
    return out;
  }
  detail::write_be(p.x, out);
  out[0] |= kFlagCompressed;
  if (detail::is_lexicographically_largest(p.y)) out[0] |= kFlagLargestY;
  return out;
}

template <class C>
std::array<uint8_t, kUncompressedSize<C>> encode_uncompressed(const Affine<C>& p) {
  std::array<uint8_t, kUncompressedSize<C>> out{};
  if (p.infinity) {
    out[0] = kFlagInfinity;
    return out;
  }
  constexpr size_t n = C::Field::kBytes;
  detail::write_be(p.x, std::span<uint8_t>(out).subspan(0, n));
  detail::write_be(p.y, std::span<uint8_t>(out).subspan(n, n));
  return out;
}

namespace detail {

// Shared flag rungs; returns the flag bits and whether this is a valid identity encoding.
template <class C>
Result<bool> check_flags(std::span<const uint8_t> in, bool compressed, std::string_view form) {
  uint8_t flags = in[0] & 0xe0;
  if (bool(flags & kFlagCompressed) != compressed) {
    return error<C>(form, compressed ? "compression flag (0x80) is not set"
                                     : "compression flag (0x80) is set on an uncompressed point");
  }
  if (!compressed && (flags & kFlagLargestY)) {
    return error<C>(form, "sort flag (0x20) is set on an uncompressed point");
  }
  if (flags & kFlagInfinity) {
    if (flags & kFlagLargestY) return error<C>(form, "infinity flag is set together with the sort flag");
    bool rest_zero = (in[0] & 0x1f) == 0;
    for (size_t i = 1; i < in.size(); ++i) rest_zero = rest_zero && in[i] == 0;
    if (!rest_zero) return error<C>(form, "infinity flag is set but the coordinates are not zero");
    return true;
  }
  return false;
}

}  // namespace detail

template <class C>
Result<Affine<C>> decode_compressed(std::span<const uint8_t> in) {
  using F = typename C::Field;
  constexpr std::string_view form = "compressed point";
  if (in.size() != kCompressedSize<C>) {
    return detail::error<C>(form, "expected " + std::to_string(kCompressedSize<C>) +
                                      " bytes, got " + std::to_string(in.size()));
  }
  ASSIGN_OR_RETURN(bool is_identity, detail::check_flags<C>(in, true, form));
  if (is_identity) return Affine<C>::identity();
  bool want_largest = in[0] & kFlagLargestY;
  std::array<uint8_t, kCompressedSize<C>> body;
  std::copy(in.begin(), in.end(), body.begin());
  body[0] &= 0x1f;
  auto x = detail::read_be<F>(body);
  if (!x) return detail::error<C>(form, "x coordinate is not canonical (>= p)");
  auto y = (x->square() * *x + C::b()).sqrt();
  if (!y) return detail::error<C>(form, "x is not the x-coordinate of a curve point");
  if (detail::is_lexicographically_largest(*y) != want_largest) *y = -*y;
  return detail::check_point(Affine<C>::from_xy(*x, *y), form);
}

template <class C>
Result<Affine<C>> decode_uncompressed(std::span<const uint8_t> in,
                                      PointCheck check = PointCheck::kFull) {
  using F = typename C::Field;
  constexpr std::string_view form = "uncompressed point";
  if (in.size() != kUncompressedSize<C>) {
    return detail::error<C>(form, "expected " + std::to_string(kUncompressedSize<C>) +
                                      " bytes, got " + std::to_string(in.size()));
  }
  ASSIGN_OR_RETURN(bool is_identity, detail::check_flags<C>(in, false, form));
  if (is_identity) return Affine<C>::identity();
  constexpr size_t n = F::kBytes;
  std::array<uint8_t, kUncompressedSize<C>> body;
  std::copy(in.begin(), in.end(), body.begin());
  body[0] &= 0x1f;
  auto x = detail::read_be<F>(std::span<const uint8_t>(body).subspan(0, n));
  if (!x) return detail::error<C>(form, "x coordinate is not canonical (>= p)");
  auto y = detail::read_be<F>(std::span<const uint8_t>(body).subspan(n, n));
  if (!y) return detail::error<C>(form, "y coordinate is not canonical (>= p)");
  auto p = Affine<C>::from_xy(*x, *y);
  if (check == PointCheck::kOnCurveOnly) {
    if (!p.is_on_curve()) return detail::error<C>(form, "point is not on the curve");
    return p;
  }
  return detail::check_point(p, form);
}

// ---- snarkjs binary: little-endian Montgomery affine ----

template <class C>
inline constexpr size_t kSnarkjsSize = 2 * C::Field::kBytes;

template <class C>
std::array<uint8_t, kSnarkjsSize<C>> encode_snarkjs(const Affine<C>& p) {
  std::array<uint8_t, kSnarkjsSize<C>> out{};
  if (p.infinity) return out;
  constexpr size_t n = C::Field::kBytes;
  detail::write_montgomery_le(p.x, std::span<uint8_t>(out).subspan(0, n));
  detail::write_montgomery_le(p.y, std::span<uint8_t>(out).subspan(n, n));
  return out;
}

template <class C>
Result<Affine<C>> decode_snarkjs(std::span<const uint8_t> in, PointCheck check = PointCheck::kFull) {
  using F = typename C::Field;
  constexpr std::string_view form = "snarkjs point";
  if (in.size() != kSnarkjsSize<C>) {
    return detail::error<C>(form, "expected " + std::to_string(kSnarkjsSize<C>) + " bytes, got " +
                                      std::to_string(in.size()));
  }
  bool all_zero = true;
  for (uint8_t b : in) all_zero = all_zero && b == 0;
  if (all_zero) return Affine<C>::identity();
  constexpr size_t n = F::kBytes;
  auto x = detail::read_montgomery_le<F>(in.subspan(0, n));
  if (!x) return detail::error<C>(form, "x coordinate is not canonical (>= p)");
  auto y = detail::read_montgomery_le<F>(in.subspan(n, n));
  if (!y) return detail::error<C>(form, "y coordinate is not canonical (>= p)");
  auto p = Affine<C>::from_xy(*x, *y);
  if (check == PointCheck::kOnCurveOnly) {
    if (!p.is_on_curve()) return detail::error<C>(form, "point is not on the curve");
    return p;
  }
  return detail::check_point(p, form);
}

// ---- snarkjs decimal JSON ----

namespace detail {

template <class F>
nlohmann::json field_to_json(const F& v) {
  if constexpr (Quadratic<F>) {
    return nlohmann::json::array({v.c0.to_decimal(), v.c1.to_decimal()});
  } else {
    return v.to_decimal();
  }
}

template <class F>
Result<F> field_from_json(const nlohmann::json& j, std::string_view form, std::string_view what) {
  if constexpr (Quadratic<F>) {
    using B = decltype(F{}.c0);
    if (!j.is_array() || j.size() != 2) {
      return invalid_argument(std::string(form) + ": " + std::string(what) +
                              " must be an array of two decimal strings");
    }
    ASSIGN_OR_RETURN(B c0, field_from_json<B>(j[0], form, what));
    ASSIGN_OR_RETURN(B c1, field_from_json<B>(j[1], form, what));
    return F{c0, c1};
  } else {
    if (!j.is_string()) {
      return invalid_argument(std::string(form) + ": " + std::string(what) +
                              " must be a decimal string");
    }
    auto v = F::from_decimal(j.get<std::string>());
    if (!v.ok()) return v.status().with_context(std::string(form) + ": " + std::string(what));
    return *v;
  }
}

}  // namespace detail

template <class C>
nlohmann::json to_snarkjs_json(const Affine<C>& p) {
  using F = typename C::Field;
  if (p.infinity) {
    return nlohmann::json::array({detail::field_to_json(F::zero()), detail::field_to_json(F::one()),
                                  detail::field_to_json(F::zero())});
  }
  return nlohmann::json::array(
      {detail::field_to_json(p.x), detail::field_to_json(p.y), detail::field_to_json(F::one())});
}

// Accepts z = 1 (affine) or z = 0 (the identity, whatever x and y are, as snarkjs treats it).
template <class C>
Result<Affine<C>> from_snarkjs_json(const nlohmann::json& j) {
  using F = typename C::Field;
  const std::string form = std::string(C::kName) + " JSON point";
  if (!j.is_array() || j.size() != 3) {
    return invalid_argument(form + ": expected an array [x, y, z]");
  }
  ASSIGN_OR_RETURN(F x, detail::field_from_json<F>(j[0], form, "x"));
  ASSIGN_OR_RETURN(F y, detail::field_from_json<F>(j[1], form, "y"));
  ASSIGN_OR_RETURN(F z, detail::field_from_json<F>(j[2], form, "z"));
  if (z.is_zero()) return Affine<C>::identity();
  if (!z.is_one()) return invalid_argument(form + ": z must be 1 (affine) or 0 (identity)");
  return detail::check_point(Affine<C>::from_xy(x, y), "JSON point");
}

}  // namespace snarkd::ec
