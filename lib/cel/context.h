#pragma once

// What an evaluation carries besides the values (internal to lib/cel): the first error and the
// work done so far.

#include <span>
#include <string>

#include "lib/cel/ast.h"

namespace pg::cel::detail {

struct Context {
  std::uint64_t cost = 0;
  std::uint64_t limit = kDefaultCostLimit;
  bool failed = false;
  bool exhausted = false;  // past the cost limit: no operator may absorb this error
  std::string error;

  // Records the error (the first one wins) and returns a null placeholder.
  Value fail(std::string message) {
    if (!failed) {
      failed = true;
      error = std::move(message);
    }
    return Value();
  }

  // Counts `units` of work; false (and an error) past the limit.
  bool charge(std::uint64_t units) {
    cost += units;
    if (cost > limit) {
      fail("evaluation cost limit exceeded");
      exhausted = true;
      return false;
    }
    return true;
  }
};

// Calls a resolved function; `args` holds the receiver first when the call has one.
Value callFunction(const Node& call, std::span<const Value> args, Context& ctx);

// The arithmetic operators (arithmetic.cpp).
Value add(Context& ctx, const Value& l, const Value& r);
Value subtract(Context& ctx, const Value& l, const Value& r);
Value multiplicative(Context& ctx, BinaryOp op, const Value& l, const Value& r);

// "no such overload" with the argument types, as CEL words it.
Value noOverload(Context& ctx, std::string_view function, std::span<const Value> args);

}  // namespace pg::cel::detail
