#include "base/thread_pool.h"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace snarkd {

namespace {
thread_local bool in_pool_worker = false;
}

ThreadPool::ThreadPool(size_t threads) {
  if (threads == 0) threads = std::max<size_t>(1, std::thread::hardware_concurrency());
  for (size_t i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  work_ready_.notify_all();
  for (auto& t : workers_) t.join();
}

ThreadPool& ThreadPool::global() {
  static ThreadPool pool([] {
    const char* env = std::getenv("SNARKD_THREADS");
    return env ? size_t(std::strtoul(env, nullptr, 10)) : size_t(0);
  }());
  return pool;
}

void ThreadPool::parallel_for(size_t n, const std::function<void(size_t, size_t)>& fn,
                              size_t max_chunks) {
  if (n == 0) return;
  size_t chunks = std::min(n, max_chunks ? max_chunks : size());
  if (chunks <= 1 || workers_.empty() || in_pool_worker) {
    fn(0, n);
    return;
  }
  std::lock_guard<std::mutex> call_lock(call_mutex_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    task_ = &fn;
    task_n_ = n;
    chunks_ = chunks;
    next_chunk_ = 0;
    pending_ = chunks;
    ++generation_;
  }
  work_ready_.notify_all();
  // The caller works too.
  for (;;) {
    size_t chunk;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (next_chunk_ >= chunks_) break;
      chunk = next_chunk_++;
    }
    fn(chunk * n / chunks, (chunk + 1) * n / chunks);
    std::lock_guard<std::mutex> lock(mutex_);
    if (--pending_ == 0) work_done_.notify_all();
  }
  std::unique_lock<std::mutex> lock(mutex_);
  work_done_.wait(lock, [this] { return pending_ == 0; });
  task_ = nullptr;
}

void ThreadPool::worker_loop() {
  in_pool_worker = true;
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    work_ready_.wait(lock, [&] { return stop_ || (generation_ != seen && next_chunk_ < chunks_); });
    if (stop_) return;
    seen = generation_;
    while (task_ && next_chunk_ < chunks_) {
      size_t chunk = next_chunk_++;
      const auto* fn = task_;
      size_t n = task_n_, chunks = chunks_;
      lock.unlock();
      (*fn)(chunk * n / chunks, (chunk + 1) * n / chunks);
      lock.lock();
      if (--pending_ == 0) work_done_.notify_all();
    }
  }
}

}  // namespace snarkd
