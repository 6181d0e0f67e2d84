#pragma once
// A small persistent pool of native threads with a parallel-for. Between jobs
// workers spin briefly (a training step's kernels come back to back), then
// sleep on a condition variable; they are joined when the pool is destroyed
// (the shared pool at process exit). In WebAssembly without
// pthreads the pool has no workers and every job runs inline.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace glint::cpu {

class ThreadPool {
 public:
  /// A pool with `workers` threads besides the caller (0: everything inline;
  /// always 0 in WebAssembly built without pthreads).
  explicit ThreadPool(int workers);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// The process-wide pool: sharedThreads() threads, the caller included
  /// (glint::setNumThreads changes it).
  static ThreadPool& shared();
  /// One per hardware thread, at most GLINT_NUM_THREADS when that is set.
  static int sharedThreads();

  /// Threads that can work on one job: the workers in use plus the caller.
  int threads() const { return limit_.load(std::memory_order_relaxed); }
  /// Uses `n` threads (the caller included) from the next job on, starting
  /// workers when there are too few; extra workers stay idle. n >= 1. Safe
  /// while other threads run jobs: a job keeps the count it started with.
  void setThreads(int n);

  /// Runs task(i) for every i in [0, tasks) and returns when all are done.
  /// Tasks are claimed one at a time by the caller and the workers, so any
  /// number of tasks is fine. A call from inside a task, or while another
  /// thread's job is running, runs inline. The first exception is rethrown.
  void parallelFor(int64_t tasks, const std::function<void(int64_t)>& task);

 private:
  struct Job;
  void workerLoop();
  static void runTasks(Job& job);

  std::vector<std::thread> workers_;  // changed under mutex_
  std::atomic<int> limit_{1};         // threads a job uses, the caller included
  std::mutex mutex_;                  // guards job_, stop_ and changes of generation_, Job::refs
  std::condition_variable wake_;      // a job was posted, or stop_
  std::condition_variable done_;      // a worker left a job
  std::mutex busy_;                   // held by the caller whose job is posted
  Job* job_ = nullptr;
  std::atomic<uint64_t> generation_{0};  // read unlocked while spinning
  std::atomic<bool> stop_{false};
};

}  // namespace glint::cpu
