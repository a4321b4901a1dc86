// snarkd/engine: one budget for the engine's large host buffers (keys, witnesses, a/b/c).
// Every such buffer holds a Reservation for as long as it lives; work that does not fit waits
// (or fails when it could never fit) instead of overcommitting memory. Part of the budget is
// kept for CRITICAL work so bulk work can never take all of it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "base/status.h"

namespace snarkd::engine {

class MemoryBudget;

// "300 MiB", "2 GiB": sizes for messages.
std::string human_bytes(size_t bytes);

// Bytes held against a budget; released on destruction (or release()).
class Reservation {
 public:
  Reservation() = default;
  Reservation(Reservation&& o) noexcept { *this = std::move(o); }
  Reservation& operator=(Reservation&& o) noexcept;
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;
  ~Reservation() { release(); }

  size_t bytes() const { return bytes_; }
  void release();
  // Gives back bytes no longer needed (new_bytes <= bytes()).
  void shrink(size_t new_bytes);

 private:
  friend class MemoryBudget;

// "300 MiB", "2 GiB": sizes for messages.
std::string human_bytes(size_t bytes);
  Reservation(MemoryBudget* b, size_t bytes, bool critical) : budget_(b), bytes_(bytes), critical_(critical) {}
  MemoryBudget* budget_ = nullptr;
  size_t bytes_ = 0;
  bool critical_ = false;
};

class MemoryBudget {
 public:
  // critical_reserve bytes of `total` are usable only by CRITICAL reservations.
  MemoryBudget(size_t total, size_t critical_reserve);

  // Waits until `bytes` fit. `give_up` is polled while waiting (a cancelled job, shutdown);
  // when it returns true the call fails with kCancelled. A request larger than its class can
  // ever hold fails at once with kResourceExhausted naming `what`.
  Result<Reservation> reserve(size_t bytes, bool critical, std::string_view what,
                              const std::function<bool()>& give_up = {});
  // Without waiting; an empty Reservation (bytes() == 0 for bytes > 0) when it does not fit now.
  Result<Reservation> try_reserve(size_t bytes, bool critical, std::string_view what);

  // Counts memory that is already needed (a GPU backend's page-locked buffers): never waits,
  // refuses or reclaims (its caller may hold a backend's lock that evicting a key takes), so it
  // cannot deadlock against the work that holds the budget, but may take used() past total();
  // other reservations then wait, reclaiming idle keys, until enough is given back.
  Reservation charge(size_t bytes);

  // The hook a GPU backend takes (GpuBackendOptions::reserve_host): each call charges the
  // bytes, held until the returned handle is destroyed. The budget must outlive the handles.
  std::function<Result<std::shared_ptr<void>>(size_t bytes, const std::string& what)> host_hook();

  // Called (without the budget's lock) when a reservation does not fit, to free memory held
  // for caching (idle keys); returns whether it freed anything.
  void set_reclaimer(std::function<bool(size_t bytes_needed)> reclaim);

  size_t total() const { return total_; }
  size_t critical_reserve() const { return critical_reserve_; }
  // The most a reservation of this class can ever hold (total, or total minus the reserve).
  size_t limit(bool critical) const { return critical ? total_ : total_ - critical_reserve_; }
  // Bumped whenever bytes are given back: work that did not fit may fit now.
  uint64_t generation() const;
  // Counts a reservation that had to wait (callers that wait on their own, off the budget).
  void note_wait();
  size_t used() const;
  size_t peak() const;  // the most ever reserved at once
  uint64_t waits() const;  // reservations that had to wait

  // "auto": MemTotal of /proc/meminfo minus a margin (an eighth, at least 2 GiB), or 8 GiB
  // when /proc/meminfo cannot be read.
  static size_t auto_total();

 private:
  friend class Reservation;
  void give_back(size_t bytes);
  bool fits_locked(size_t bytes, bool critical) const;

  const size_t total_, critical_reserve_;
  mutable std::mutex mu_;
  std::condition_variable freed_;
  size_t used_ = 0, peak_ = 0;
  uint64_t waits_ = 0;
  uint64_t generation_ = 0;
  std::function<bool(size_t)> reclaim_;
};

}  // namespace snarkd::engine
