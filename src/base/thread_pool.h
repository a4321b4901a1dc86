// snarkd/base: a fixed pool of worker threads for data-parallel loops (NTT passes, MSM chunks,
// sparse matrix-vector products).
//
// parallel_for splits [0, n) into contiguous chunks, runs them on the pool and the calling
// thread, and returns when all are done. Calls from several threads are serialized; a
// parallel_for issued from inside a worker runs inline (no deadlock, no oversubscription).
// The callable must not throw.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace snarkd {

class ThreadPool {
 public:
  // threads = 0 means std::thread::hardware_concurrency().
  explicit ThreadPool(size_t threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Total threads taking part in a loop (workers + the caller).
  size_t size() const { return workers_.size() + 1; }

  // fn(begin, end) over chunks covering [0, n); at most `max_chunks` chunks (0 = size()).
  void parallel_for(size_t n, const std::function<void(size_t, size_t)>& fn,
                    size_t max_chunks = 0);

  // A process-wide pool sized to the machine (or SNARKD_THREADS when set).
  static ThreadPool& global();

 private:
  void worker_loop();

  std::vector<std::thread> workers_;
  std::mutex call_mutex_;  // one parallel_for at a time
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable work_done_;
  const std::function<void(size_t, size_t)>* task_ = nullptr;
  size_t task_n_ = 0;
  size_t chunks_ = 0;
  size_t next_chunk_ = 0;
  size_t pending_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

}  // namespace snarkd
