// Work on `--jobs` threads: every stage that splits its work into independent items (files,
// routes, objects, rules) hands them out here, so that the results never depend on the
// number of threads or on their timing.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

namespace pg::model {

namespace detail {
// Whether this thread is one of the pool's (a parallelFor inside a parallelFor runs inline).
bool& inPool();
// Runs task(w) for every w in [0, workers): task(0) on this thread, the others on the pool's
// threads, which start once and wait for work for the rest of the process. Returns when every
// one has returned; an entry no pool thread has started when task(0) returns is dropped (the
// tasks claim items from a shared counter, so task(0) has done its share).
void runOnPool(unsigned workers, const std::function<void(unsigned)>& task);
}  // namespace detail

// How many threads `parallelFor` uses for `n` items: `jobs` (at least 1, at most 64), but no
// more than there are items, and one when there are fewer than `minItems` (threads cost more
// than they save on small inputs).
inline unsigned workersFor(unsigned jobs, std::size_t n, std::size_t minItems = 1) {
  if (n < std::max<std::size_t>(minItems, 2)) return 1;
  return static_cast<unsigned>(std::min<std::size_t>({std::max(1u, jobs), 64, n}));
}

// Calls `fn(i, worker)` for every i in [0, n) on `workers` threads (the calling thread is one
// of them, the others a pool's, started once for the process); `worker` < `workers` names the
// thread, for state a thread keeps of its own. Items are handed out in index order, in small
// batches, so a slow item or a busy core does not hold the others back. `fn` may only write
// what belongs to item `i` or to `worker`; whoever merges per-worker state must do it so that
// the outcome does not depend on which worker saw which item.
//
// When items throw, no further item starts and the exception of the lowest item is rethrown
// once every thread has finished: the one a single thread would have stopped at.
template <typename Fn>
void parallelFor(unsigned workers, std::size_t n, Fn&& fn) {
  if (n == 0) return;
  workers = std::max(1u, workers);
  if (workers == 1 || detail::inPool()) {
    for (std::size_t i = 0; i < n; ++i) fn(i, 0u);
    return;
  }
  const std::size_t batch = std::clamp<std::size_t>(n / (std::size_t{workers} * 32), 1, 64);
  std::atomic<std::size_t> next{0};
  std::mutex failureMutex;
  std::exception_ptr failure;
  std::size_t failedAt = n;
  auto work = [&](unsigned worker) {
    for (;;) {
      std::size_t first = next.fetch_add(batch, std::memory_order_relaxed);
      if (first >= n) return;
      std::size_t last = std::min(n, first + batch);
      for (std::size_t i = first; i < last; ++i) {
        try {
          fn(i, worker);
        } catch (...) {
          std::lock_guard<std::mutex> lock(failureMutex);
          if (i < failedAt) {
            failedAt = i;
            failure = std::current_exception();
          }
          next.store(n, std::memory_order_relaxed);
          return;
        }
      }
    }
  };
  detail::runOnPool(workers, std::function<void(unsigned)>(work));
  if (failure) std::rethrow_exception(failure);
}

// Calls `fn(i)` for every i in [0, n) as parallelFor does; `fn` returns a std::optional.
// Returns the values given, each with its item, in item order: what a single thread would
// have collected, with no slot for the items that gave none.
template <typename Fn>
auto parallelCollect(unsigned workers, std::size_t n, Fn&& fn) {
  using Value = typename std::invoke_result_t<Fn&, std::size_t>::value_type;
  using Item = std::pair<std::size_t, Value>;
  workers = std::max(1u, workers);
  // Each thread takes its items in increasing order, so each list is sorted.
  std::vector<std::vector<Item>> found(workers);
  parallelFor(workers, n, [&](std::size_t i, unsigned worker) {
    if (auto value = fn(i)) found[worker].emplace_back(i, std::move(*value));
  });
  if (workers == 1) return std::move(found[0]);
  std::vector<Item> out;
  std::size_t total = 0;
  for (const std::vector<Item>& f : found) total += f.size();
  out.reserve(total);
  std::vector<std::size_t> next(workers, 0);
  for (;;) {
    unsigned best = workers;
    for (unsigned w = 0; w < workers; ++w)
      if (next[w] < found[w].size() &&
          (best == workers || found[w][next[w]].first < found[best][next[best]].first))
        best = w;
    if (best == workers) break;
    out.push_back(std::move(found[best][next[best]++]));
  }
  return out;
}

}  // namespace pg::model
