#include "lib/model/parallel.h"

#include <condition_variable>
#include <deque>
#include <thread>

namespace pg::model::detail {

namespace {

// Threads that wait for work and never exit: a run's stages call parallelFor hundreds of
// times (once per stage and unit), and a thread started and ended each time costs more than
// the work on small units (the allocator tears down the thread's heap at its exit).
class Pool {
 public:
  void run(unsigned workers, const std::function<void(unsigned)>& task) {
    Call call;
    call.task = &task;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      while (threads_ < workers - 1 && threads_ < 63) {
        std::thread(&Pool::loop, this).detach();
        ++threads_;
      }
      for (unsigned w = 1; w < workers; ++w) queue_.push_back({&call, w});
      call.pending = workers - 1;
    }
    wake_.notify_all();
    task(0);  // claims every item the others have not started on
    std::unique_lock<std::mutex> lock(mutex_);
    // The entries no thread took yet have nothing left to do: drop them.
    for (auto it = queue_.begin(); it != queue_.end();) {
      if (it->call == &call) {
        it = queue_.erase(it);
        --call.pending;
      } else {
        ++it;
      }
    }
    call.done.wait(lock, [&] { return call.pending == 0; });
  }

 private:
  struct Call {
    const std::function<void(unsigned)>* task = nullptr;
    unsigned pending = 0;  // entries queued or running, under the pool's mutex
    std::condition_variable done;
  };
  struct Entry {
    Call* call;
    unsigned worker;
  };

  void loop() {
    inPool() = true;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return !queue_.empty(); });
      Entry e = queue_.front();
      queue_.pop_front();
      lock.unlock();
      (*e.call->task)(e.worker);
      lock.lock();
      if (--e.call->pending == 0) e.call->done.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Entry> queue_;
  unsigned threads_ = 0;
};

}  // namespace

bool& inPool() {
  thread_local bool in = false;
  return in;
}

void runOnPool(unsigned workers, const std::function<void(unsigned)>& task) {
  static Pool* pool = new Pool();  // never destroyed: its threads outlive main's statics
  pool->run(workers, task);
}

}  // namespace pg::model::detail
