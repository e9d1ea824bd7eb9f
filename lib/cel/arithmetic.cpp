// CEL's arithmetic: integers that overflow are errors, never wrap.

#include <array>

#include "lib/cel/context.h"
#include "lib/cel/heap.h"

namespace pg::cel::detail {

using K = Value::Kind;

namespace {

Value overflow(Context& ctx, const char* what) {
  return ctx.fail(std::string(what) + " overflow");
}

Value mismatch(Context& ctx, const char* op, const Value& l, const Value& r) {
  std::array<Value, 2> args{l, r};
  return noOverload(ctx, op, args);
}

Value concat(Context& ctx, const Value& l, const Value& r) {
  if (l.kind() == K::List) {
    auto a = l.asList(), b = r.asList();
    if (!ctx.charge(a.size() + b.size())) return Value();
    std::vector<Value> out;
    out.reserve(a.size() + b.size());
    out.insert(out.end(), a.begin(), a.end());
    out.insert(out.end(), b.begin(), b.end());
    return Value::list(std::move(out));
  }
  std::string_view a = l.asString(), b = r.asString();
  if (!ctx.charge((a.size() + b.size()) / 64 + 1)) return Value();
  std::string out;
  out.reserve(a.size() + b.size());
  out.append(a).append(b);
  return l.kind() == K::String ? Value::string(std::move(out)) : Value::bytes(std::move(out));
}

}  // namespace

Value add(Context& ctx, const Value& l, const Value& r) {
  std::int64_t i = 0;
  std::uint64_t u = 0;
  if (l.kind() == r.kind()) {
    switch (l.kind()) {
      case K::Int:
        if (__builtin_add_overflow(l.asInt(), r.asInt(), &i)) return overflow(ctx, "integer");
        return Value::integer(i);
      case K::Uint:
        if (__builtin_add_overflow(l.asUint(), r.asUint(), &u))
          return overflow(ctx, "unsigned integer");
        return Value::uinteger(u);
      case K::Double:
        return Value::real(l.asDouble() + r.asDouble());
      case K::String:
      case K::Bytes:
      case K::List:
        return concat(ctx, l, r);
      case K::Duration:
        if (__builtin_add_overflow(l.asInt(), r.asInt(), &i)) return overflow(ctx, "duration");
        return Value::duration(i);
      default:
        break;
    }
  }
  if ((l.kind() == K::Timestamp && r.kind() == K::Duration) ||
      (l.kind() == K::Duration && r.kind() == K::Timestamp)) {
    if (__builtin_add_overflow(l.asInt(), r.asInt(), &i)) return overflow(ctx, "timestamp");
    return Value::timestamp(i);
  }
  return mismatch(ctx, "_+_", l, r);
}

Value subtract(Context& ctx, const Value& l, const Value& r) {
  std::int64_t i = 0;
  std::uint64_t u = 0;
  if (l.kind() == r.kind()) {
    switch (l.kind()) {
      case K::Int:
        if (__builtin_sub_overflow(l.asInt(), r.asInt(), &i)) return overflow(ctx, "integer");
        return Value::integer(i);
      case K::Uint:
        if (__builtin_sub_overflow(l.asUint(), r.asUint(), &u))
          return overflow(ctx, "unsigned integer");
        return Value::uinteger(u);
      case K::Double:
        return Value::real(l.asDouble() - r.asDouble());
      case K::Duration:
      case K::Timestamp:
        if (__builtin_sub_overflow(l.asInt(), r.asInt(), &i)) return overflow(ctx, "duration");
        return Value::duration(i);
      default:
        break;
    }
  }
  if (l.kind() == K::Timestamp && r.kind() == K::Duration) {
    if (__builtin_sub_overflow(l.asInt(), r.asInt(), &i)) return overflow(ctx, "timestamp");
    return Value::timestamp(i);
  }
  return mismatch(ctx, "_-_", l, r);
}

Value multiplicative(Context& ctx, BinaryOp op, const Value& l, const Value& r) {
  const char* name = op == BinaryOp::Mul ? "_*_" : (op == BinaryOp::Div ? "_/_" : "_%_");
  if (l.kind() != r.kind()) return mismatch(ctx, name, l, r);
  if (l.kind() == K::Int) {
    std::int64_t a = l.asInt(), b = r.asInt(), out = 0;
    if (op == BinaryOp::Mul) {
      if (__builtin_mul_overflow(a, b, &out)) return overflow(ctx, "integer");
      return Value::integer(out);
    }
    if (b == 0) return ctx.fail(op == BinaryOp::Div ? "division by zero" : "modulus by zero");
    if (a == INT64_MIN && b == -1) return ctx.fail("integer overflow");
    return Value::integer(op == BinaryOp::Div ? a / b : a % b);
  }
  if (l.kind() == K::Uint) {
    std::uint64_t a = l.asUint(), b = r.asUint(), out = 0;
    if (op == BinaryOp::Mul) {
      if (__builtin_mul_overflow(a, b, &out)) return overflow(ctx, "unsigned integer");
      return Value::uinteger(out);
    }
    if (b == 0) return ctx.fail(op == BinaryOp::Div ? "division by zero" : "modulus by zero");
    return Value::uinteger(op == BinaryOp::Div ? a / b : a % b);
  }
  if (l.kind() == K::Double && op != BinaryOp::Mod) {
    return Value::real(op == BinaryOp::Mul ? l.asDouble() * r.asDouble()
                                           : l.asDouble() / r.asDouble());
  }
  return mismatch(ctx, name, l, r);
}

}  // namespace pg::cel::detail
