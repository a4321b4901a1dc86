// snarkd/base: Status and Result<T>, the error currency of every module boundary.
//
// Codes map one to one onto gRPC status codes so a failure deep in a parser becomes the right
// RPC status without translation tables. Messages name the object and the place ("G1 point:
// x coordinate is not canonical (>= p)"). Exceptions never cross module boundaries; functions
// that can fail return Status or Result<T>, both [[nodiscard]].
#pragma once

#include <cassert>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace snarkd {

// Values equal gRPC's status codes (grpc::StatusCode).
enum class StatusCode : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
};

std::string_view status_code_name(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok_status() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "INVALID_ARGUMENT: G1 point: not on the curve"
  std::string to_string() const;

  // Prepends context: status.with_context("reading key 'x'") -> "reading key 'x': <message>".
  Status with_context(std::string_view context) const&;
  Status with_context(std::string_view context) &&;

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status invalid_argument(std::string message) {
  return Status(StatusCode::kInvalidArgument, std::move(message));
}
inline Status out_of_range(std::string message) {
  return Status(StatusCode::kOutOfRange, std::move(message));
}
inline Status internal_error(std::string message) {
  return Status(StatusCode::kInternal, std::move(message));
}
inline Status unavailable(std::string message) {
  return Status(StatusCode::kUnavailable, std::move(message));
}

// Result<T> holds either a value or a non-OK Status.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : state_(std::move(status)) {  // NOLINT: implicit by design
    assert(!std::get<Status>(state_).ok() && "Result constructed from an OK status");
  }

  bool ok() const { return std::holds_alternative<T>(state_); }
  const Status& status() const& {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(state_);
  }
  Status status() && { return ok() ? Status() : std::move(std::get<Status>(state_)); }

  const T& value() const& { return std::get<T>(state_); }
  T& value() & { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  std::variant<T, Status> state_;
};

}  // namespace snarkd

#define SNARKD_CONCAT_INNER(a, b) a##b
#define SNARKD_CONCAT(a, b) SNARKD_CONCAT_INNER(a, b)

// Returns the status from the enclosing function if `expr` is not OK.
#define RETURN_IF_ERROR(expr)                         \
  do {                                                \
    ::snarkd::Status snarkd_status_ = (expr);         \
    if (!snarkd_status_.ok()) return snarkd_status_;  \
  } while (0)

// ASSIGN_OR_RETURN(auto x, make_x()); unwraps a Result or returns its status.
#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL(SNARKD_CONCAT(snarkd_result_, __LINE__), lhs, expr)
#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr)       \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return std::move(tmp).status();    \
  lhs = std::move(tmp).value()
