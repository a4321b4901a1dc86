#include "engine/memory_budget.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace snarkd::engine {

std::string human_bytes(size_t b) {
  if (b >= (size_t(10) << 30)) return std::to_string(b >> 30) + " GiB";
  if (b >= (size_t(10) << 20)) return std::to_string(b >> 20) + " MiB";
  if (b >= (size_t(10) << 10)) return std::to_string(b >> 10) + " KiB";
  return std::to_string(b) + " bytes";
}

Reservation& Reservation::operator=(Reservation&& o) noexcept {
  if (this != &o) {
    release();
    budget_ = o.budget_;
    bytes_ = o.bytes_;
    critical_ = o.critical_;
    o.budget_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}

void Reservation::release() {
  if (budget_ && bytes_) budget_->give_back(bytes_);
  budget_ = nullptr;
  bytes_ = 0;
}

void Reservation::shrink(size_t new_bytes) {
  if (!budget_ || new_bytes >= bytes_) return;
  budget_->give_back(bytes_ - new_bytes);
  bytes_ = new_bytes;
}

MemoryBudget::MemoryBudget(size_t total, size_t critical_reserve)
    : total_(total), critical_reserve_(std::min(critical_reserve, total)) {}

bool MemoryBudget::fits_locked(size_t bytes, bool critical) const {
  const size_t limit = critical ? total_ : total_ - critical_reserve_;
  return used_ <= limit && bytes <= limit - used_;
}

Result<Reservation> MemoryBudget::try_reserve(size_t bytes, bool critical, std::string_view what) {
  const size_t limit = this->limit(critical);
  if (bytes > limit) {
    return Status(StatusCode::kResourceExhausted,
                  std::string(what) + " needs " + human_bytes(bytes) + " but the memory budget allows " +
                      human_bytes(limit) + (critical ? "" : " for non-critical work"));
  }
  std::lock_guard lock(mu_);
  if (!fits_locked(bytes, critical)) return Reservation();
  used_ += bytes;
  peak_ = std::max(peak_, used_);
  return Reservation(this, bytes, critical);
}

Result<Reservation> MemoryBudget::reserve(size_t bytes, bool critical, std::string_view what,
                                          const std::function<bool()>& give_up) {
  bool waited = false;
  for (;;) {
    ASSIGN_OR_RETURN(Reservation r, try_reserve(bytes, critical, what));
    if (r.bytes() == bytes) {
      if (waited) {
        std::lock_guard lock(mu_);
        ++waits_;
      }
      return r;
    }
    std::function<bool(size_t)> reclaim;
    {
      std::lock_guard lock(mu_);
      reclaim = reclaim_;
    }
    if (reclaim && reclaim(bytes)) continue;
    if (give_up && give_up()) return Status(StatusCode::kCancelled, std::string(what) + ": gave up waiting for memory");
    waited = true;
    std::unique_lock lock(mu_);
    if (!fits_locked(bytes, critical)) freed_.wait_for(lock, std::chrono::milliseconds(20));
  }
}

Reservation MemoryBudget::charge(size_t bytes) {
  std::lock_guard lock(mu_);
  used_ += bytes;
  peak_ = std::max(peak_, used_);
  return Reservation(this, bytes, true);
}

std::function<Result<std::shared_ptr<void>>(size_t, const std::string&)> MemoryBudget::host_hook() {
  return [this](size_t bytes, const std::string&) -> Result<std::shared_ptr<void>> {
    return std::shared_ptr<void>(std::make_shared<Reservation>(charge(bytes)));
  };
}

void MemoryBudget::set_reclaimer(std::function<bool(size_t)> reclaim) {
  std::lock_guard lock(mu_);
  reclaim_ = std::move(reclaim);
}

void MemoryBudget::give_back(size_t bytes) {
  {
    std::lock_guard lock(mu_);
    used_ -= std::min(bytes, used_);
    ++generation_;
  }
  freed_.notify_all();
}

size_t MemoryBudget::used() const {
  std::lock_guard lock(mu_);
  return used_;
}
size_t MemoryBudget::peak() const {
  std::lock_guard lock(mu_);
  return peak_;
}
uint64_t MemoryBudget::generation() const {
  std::lock_guard lock(mu_);
  return generation_;
}
void MemoryBudget::note_wait() {
  std::lock_guard lock(mu_);
  ++waits_;
}
uint64_t MemoryBudget::waits() const {
  std::lock_guard lock(mu_);
  return waits_;
}

size_t MemoryBudget::auto_total() {
  std::ifstream f("/proc/meminfo");
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream in(line);
    std::string key;
    size_t kib = 0;
    if (in >> key >> kib && key == "MemTotal:") {
      const size_t total = kib << 10;
      const size_t margin = std::max(total / 8, size_t(2) << 30);
      return total > margin ? total - margin : total / 2;
    }
  }
  return size_t(8) << 30;
}

}  // namespace snarkd::engine
