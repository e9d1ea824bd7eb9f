#pragma once

// Direct evaluation with a memo: what one rule read of a source, the next rules on the same
// values reuse (the schema validator evaluates every rule of an object with one memo).

#include <memory>
#include <optional>

#include "lib/cel/cel.h"

namespace pg::cel {

// What evaluateDirect() read from a source (fields, list sizes), kept so that the next rules
// on the same values read them once. The source must not change while the memo is in use:
// call clear() when it may have (before each object, say). One memo per thread.
class DirectMemo {
 public:
  DirectMemo();
  ~DirectMemo();
  DirectMemo(const DirectMemo&) = delete;
  DirectMemo& operator=(const DirectMemo&) = delete;
  void clear();  // O(1)

  struct Impl;

 private:
  friend std::optional<bool> evaluateDirect(const Program&, const Source&, Source::Ref,
                                            DirectMemo&);
  std::unique_ptr<Impl> impl_;
};
std::optional<bool> evaluateDirect(const Program& program, const Source& source, Source::Ref self,
                                   DirectMemo& memo);

}  // namespace pg::cel
