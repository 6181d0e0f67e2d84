#include "src/backends/cpu/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>

#include "glint/engine.h"
#include "glint/error.h"

namespace glint::cpu {

namespace {

thread_local bool tInsideTask = false;  // nested parallelFor runs inline

/// Spins up to about `micros` until done() holds; says whether it did.
template <class Done>
bool spinUntil(Done done, int micros) {
  auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(micros);
  for (int i = 0;; ++i) {
    if (done()) return true;
    if (i % 64 == 63 && std::chrono::steady_clock::now() > until) return false;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
}

// How long an idle worker stays awake for the next job, and a caller waits
// for the workers' last tasks, before each falls back to sleeping.
constexpr int kWorkerSpinMicros = 100;
constexpr int kCallerSpinMicros = 50;

}  // namespace

struct ThreadPool::Job {
  const std::function<void(int64_t)>* task;
  int64_t tasks;
  std::atomic<int64_t> next{0};
  std::atomic<int> refs{0};  // workers inside runTasks (changed under mutex_)
  int maxWorkers = 0;        // workers that may join (setThreads), and
  int joined = 0;            // ... those that did (under mutex_)
  std::mutex errorMutex;
  std::exception_ptr error;
};

ThreadPool::ThreadPool(int workers) {
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  workers = 0;  // no threads to start: every job runs inline
#endif
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { workerLoop(); });
  limit_ = static_cast<int>(workers_.size()) + 1;
}

void ThreadPool::setThreads(int n) {
  if (n < 1) n = 1;
#if defined(__EMSCRIPTEN__)
  // Workers come from Emscripten's preallocated pool (pthreads build) or do
  // not exist (single-threaded build): no more than were started.
  std::lock_guard<std::mutex> lock(mutex_);
  limit_ = std::min(n, static_cast<int>(workers_.size()) + 1);
#else
  std::lock_guard<std::mutex> lock(mutex_);
  while (static_cast<int>(workers_.size()) < n - 1 && !stop_)
    workers_.emplace_back([this] { workerLoop(); });
  limit_ = n;
#endif
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

ThreadPool& ThreadPool::shared() {
  static ThreadPool pool(sharedThreads() - 1);
  return pool;
}

int ThreadPool::sharedThreads() {
  // GLINT_NUM_THREADS caps it, like OMP_NUM_THREADS: for machines shared with
  // other jobs, and for measuring one thread.
  int n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (const char* env = std::getenv("GLINT_NUM_THREADS")) {
    int want = std::atoi(env);
    if (want >= 1) n = std::min(n, want);
  }
  return n;
}

void ThreadPool::runTasks(Job& job) {
  bool outer = tInsideTask;
  tInsideTask = true;
  for (int64_t i; (i = job.next.fetch_add(1)) < job.tasks;) {
    try {
      (*job.task)(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(job.errorMutex);
      if (!job.error) job.error = std::current_exception();
    }
  }
  tInsideTask = outer;
}

void ThreadPool::workerLoop() {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    lock.unlock();
    spinUntil([&] { return stop_ || generation_ != seen; }, kWorkerSpinMicros);
    lock.lock();
    wake_.wait(lock, [&] { return stop_ || (job_ && generation_ != seen); });
    if (stop_) return;
    seen = generation_;
    Job* job = job_;
    if (job->joined >= job->maxWorkers) continue;  // fewer threads asked for
    ++job->joined;
    ++job->refs;
    lock.unlock();
    runTasks(*job);
    lock.lock();
    if (--job->refs == 0) done_.notify_all();
  }
}

void ThreadPool::parallelFor(int64_t tasks, const std::function<void(int64_t)>& task) {
  if (tasks <= 0) return;
  std::unique_lock<std::mutex> busy(busy_, std::defer_lock);
  const int maxWorkers = threads() - 1;
  if (tasks == 1 || maxWorkers <= 0 || tInsideTask || !busy.try_lock()) {
    for (int64_t i = 0; i < tasks; ++i) task(i);
    return;
  }
  Job job;
  job.task = &task;
  job.tasks = tasks;
  job.maxWorkers = maxWorkers;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &job;
    ++generation_;
  }
  wake_.notify_all();
  runTasks(job);
  {
    // Every task is claimed now: let no late worker join (job lives on this
    // stack), then wait for those still running theirs.
    std::unique_lock<std::mutex> lock(mutex_);
    job_ = nullptr;
    lock.unlock();
    if (!spinUntil([&] { return job.refs == 0; }, kCallerSpinMicros)) {
      lock.lock();
      done_.wait(lock, [&] { return job.refs == 0; });
    }
  }
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace glint::cpu

namespace glint {

void setNumThreads(int n) {
  check(n >= 1, "setNumThreads", "n must be at least 1, got ", n);
  cpu::ThreadPool::shared().setThreads(n);
}

int numThreads() { return cpu::ThreadPool::shared().threads(); }

}  // namespace glint
