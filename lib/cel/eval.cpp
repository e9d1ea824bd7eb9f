// Evaluation of a compiled expression: operators, field selection, indexing, macros. Functions
// are in functions.cpp.

#include <array>
#include <cmath>

#include "lib/cel/context.h"
#include "lib/cel/heap.h"

namespace pg::cel {

using detail::BinaryOp;
using detail::Context;
using detail::IdentKind;
using detail::Macro;
using detail::Node;
using detail::NodeKind;
using K = Value::Kind;

namespace {

class Evaluator {
 public:
  Evaluator(const Bindings& bindings, Context& ctx) : bindings_(bindings), ctx_(ctx) {}

  Value eval(const Node& n) {
    if (ctx_.failed || !ctx_.charge(1)) return Value();
    switch (n.kind) {
      case NodeKind::Literal:
        return n.value;
      case NodeKind::Ident:
      case NodeKind::Select:
      case NodeKind::Index: {
        Value tmp;
        const Value* v = ref(n, tmp);
        if (!v) return Value();
        return v == &tmp ? std::move(tmp) : *v;
      }
      case NodeKind::Has:
        return has(n);
      case NodeKind::Call:
        return call(n);
      case NodeKind::List:
        return list(n);
      case NodeKind::Map:
        return map(n);
      case NodeKind::Not: {
        Value v = eval(*n.children[0]);
        if (ctx_.failed) return Value();
        if (v.kind() != K::Bool) return noOverload("!_", {&v, 1});
        return Value::boolean(!v.asBool());
      }
      case NodeKind::Neg:
        return negate(eval(*n.children[0]));
      case NodeKind::And:
        return logical(n, false);
      case NodeKind::Or:
        return logical(n, true);
      case NodeKind::Conditional: {
        Value c = eval(*n.children[0]);
        if (ctx_.failed) return Value();
        if (c.kind() != K::Bool) return noOverload("_?_:_", {&c, 1});
        return eval(*n.children[c.asBool() ? 1 : 2]);
      }
      case NodeKind::Binary:
        return binary(n);
      case NodeKind::Comprehension:
        return comprehension(n);
    }
    return ctx_.fail("unknown expression");
  }

 private:
  Value noOverload(std::string_view fn, std::span<const Value> args) {
    return detail::noOverload(ctx_, fn, args);
  }

  // The value of an identifier, selection or index without copying it when it lives in the
  // bindings (or in `tmp`, which the caller keeps alive). Null after an error.
  const Value* ref(const Node& n, Value& tmp) {
    if (ctx_.failed) return nullptr;
    switch (n.kind) {
      case NodeKind::Ident:
        switch (n.ident) {
          case IdentKind::Self:
            if (!bindings_.self) return fail("no value bound to 'self'");
            return bindings_.self;
          case IdentKind::OldSelf:
            if (!bindings_.oldSelf) return fail("no value bound to 'oldSelf'");
            return bindings_.oldSelf;
          case IdentKind::Var:
            return slots_[static_cast<std::size_t>(n.slot)];
          case IdentKind::Type:
            return &n.value;
        }
        return nullptr;
      case NodeKind::Select: {
        if (!ctx_.charge(1)) return nullptr;
        const Value* base = ref(*n.children[0], tmp);
        if (!base) return nullptr;
        return select(n, *base, tmp);
      }
      case NodeKind::Index: {
        if (!ctx_.charge(1)) return nullptr;
        const Value* base = ref(*n.children[0], tmp);
        if (!base) return nullptr;
        Value key = eval(*n.children[1]);
        if (ctx_.failed) return nullptr;
        return index(n, *base, key, tmp);
      }
      default:
        tmp = eval(n);
        return ctx_.failed ? nullptr : &tmp;
    }
  }

  const Value* fail(std::string message) {
    ctx_.fail(std::move(message));
    return nullptr;
  }

  // `base` may point into `tmp`; the result is written to `tmp` only after `base` is used.
  const Value* select(const Node& n, const Value& base, Value& tmp) {
    if (base.kind() == K::Optional) {
      // Selection on an optional yields an optional: none stays none.
      if (!base.hasValue()) {
        if (&base != &tmp) tmp = base;
        return &tmp;
      }
      const Value& inner = base.optionalValue();
      const Value* v = inner.kind() == K::Map ? inner.field(n.name) : nullptr;
      if (!v && inner.kind() != K::Map) {
        return fail("type '" + std::string(inner.typeName()) + "' has no field '" + n.name + "'");
      }
      tmp = Value::optional(v);
      return &tmp;
    }
    if (base.kind() != K::Map) {
      return fail("type '" + std::string(base.typeName()) + "' has no field '" + n.name + "'");
    }
    const Value* v = base.field(n.name);
    if (n.optional) {
      tmp = Value::optional(v);
      return &tmp;
    }
    if (!v) return fail("no such key: '" + n.name + "'");
    return v;
  }

  const Value* index(const Node& n, const Value& base, const Value& key, Value& tmp) {
    if (base.kind() == K::Optional && !n.optional) {
      if (!base.hasValue()) {
        if (&base != &tmp) tmp = base;
        return &tmp;
      }
      Value inner = base.optionalValue();
      const Value* v = lookup(inner, key);
      if (ctx_.failed) return nullptr;
      tmp = Value::optional(v);
      return &tmp;
    }
    const Value* v = lookup(base, key);
    if (ctx_.failed) return nullptr;
    if (n.optional) {
      tmp = Value::optional(v);
      return &tmp;
    }
    if (!v) {
      if (base.kind() == K::List) return fail("index out of bounds: " + key.debugString());
      return fail("no such key: " + key.debugString());
    }
    return v;
  }

  // The element of a list or map, or null when absent (an error when the types do not fit).
  const Value* lookup(const Value& base, const Value& key) {
    if (base.kind() == K::Map) {
      if (key.kind() != K::String && key.kind() != K::Int && key.kind() != K::Uint &&
          key.kind() != K::Bool && key.kind() != K::Double) {
        return fail("unsupported key type: " + std::string(key.typeName()));
      }
      return base.find(key);
    }
    if (base.kind() == K::List) {
      std::int64_t i;
      if (key.kind() == K::Int) {
        i = key.asInt();
      } else if (key.kind() == K::Uint) {
        i = key.asUint() > static_cast<std::uint64_t>(INT64_MAX)
                ? -1
                : static_cast<std::int64_t>(key.asUint());
      } else if (key.kind() == K::Double && key.asDouble() >= -9.2e18 && key.asDouble() <= 9.2e18 &&
                 key.asDouble() == std::trunc(key.asDouble())) {
        i = static_cast<std::int64_t>(key.asDouble());
      } else {
        return fail("unsupported index type '" + std::string(key.typeName()) + "' for a list");
      }
      auto items = base.asList();
      if (i < 0 || static_cast<std::uint64_t>(i) >= items.size()) return nullptr;
      return &items[static_cast<std::size_t>(i)];
    }
    return fail("type '" + std::string(base.typeName()) + "' does not support indexing");
  }

  Value has(const Node& n) {
    Value tmp;
    const Value* base = ref(*n.children[0], tmp);
    if (!base) return Value();
    if (base->kind() == K::Map) return Value::boolean(base->field(n.name) != nullptr);
    if (base->kind() == K::Optional) {
      if (!base->hasValue()) return Value::boolean(false);
      const Value& inner = base->optionalValue();
      if (inner.kind() == K::Map) return Value::boolean(inner.field(n.name) != nullptr);
    }
    return ctx_.fail("has() on type '" + std::string(base->typeName()) + "', which has no fields");
  }

  Value call(const Node& n) {
    std::array<Value, 4> args;
    std::size_t count = n.children.size();
    if (count > args.size()) return ctx_.fail("too many arguments");
    for (std::size_t i = 0; i < count; ++i) {
      args[i] = eval(*n.children[i]);
      if (ctx_.failed) return Value();
    }
    return detail::callFunction(n, {args.data(), count}, ctx_);
  }

  Value list(const Node& n) {
    std::vector<Value> items;
    items.reserve(n.children.size());
    for (std::size_t i = 0; i < n.children.size(); ++i) {
      Value v = eval(*n.children[i]);
      if (ctx_.failed) return Value();
      if (n.optionalItems[i]) {
        if (v.kind() != K::Optional) return noOverload("optional list element", {&v, 1});
        if (v.hasValue()) items.push_back(v.optionalValue());
        continue;
      }
      items.push_back(std::move(v));
    }
    return Value::list(std::move(items));
  }

  Value map(const Node& n) {
    std::vector<MapEntry> entries;
    entries.reserve(n.children.size() / 2);
    for (std::size_t i = 0; i + 1 < n.children.size(); i += 2) {
      Value key = eval(*n.children[i]);
      if (ctx_.failed) return Value();
      if (key.kind() != K::String && key.kind() != K::Int && key.kind() != K::Uint &&
          key.kind() != K::Bool) {
        return ctx_.fail("unsupported key type: " + std::string(key.typeName()));
      }
      Value v = eval(*n.children[i + 1]);
      if (ctx_.failed) return Value();
      if (n.optionalItems[i / 2]) {
        if (v.kind() != K::Optional) return noOverload("optional map entry", {&v, 1});
        if (!v.hasValue()) continue;
        v = v.optionalValue();
      }
      for (const MapEntry& e : entries) {
        if (e.first == key) return ctx_.fail("duplicate map key: " + key.debugString());
      }
      if (!ctx_.charge(entries.size())) return Value();
      entries.emplace_back(std::move(key), std::move(v));
    }
    return Value::map(std::move(entries));
  }

  Value negate(const Value& v) {
    if (ctx_.failed) return Value();
    if (v.kind() == K::Int) {
      if (v.asInt() == INT64_MIN) return ctx_.fail("integer overflow");
      return Value::integer(-v.asInt());
    }
    if (v.kind() == K::Double) return Value::real(-v.asDouble());
    if (v.kind() == K::Duration) {
      if (v.asInt() == INT64_MIN) return ctx_.fail("duration overflow");
      return Value::duration(-v.asInt());
    }
    return noOverload("-_", {&v, 1});
  }

  // `&&` and `||` are commutative in CEL: a deciding operand (false for &&, true for ||) wins
  // over an error on the other side.
  Value logical(const Node& n, bool isOr) {
    const char* name = isOr ? "_||_" : "_&&_";
    Value l = eval(*n.children[0]);
    std::string leftError;
    bool leftFailed = false;
    if (ctx_.failed) {
      if (ctx_.exhausted) return Value();
      leftFailed = true;
      leftError = std::move(ctx_.error);
      ctx_.failed = false;
      ctx_.error.clear();
    } else if (l.kind() != K::Bool) {
      leftFailed = true;
      noOverload(name, {&l, 1});
      leftError = std::move(ctx_.error);
      ctx_.failed = false;
      ctx_.error.clear();
    } else if (l.asBool() == isOr) {
      return l;
    }
    Value r = eval(*n.children[1]);
    if (ctx_.failed) {
      if (leftFailed && !ctx_.exhausted) ctx_.error = std::move(leftError);
      return Value();
    }
    if (r.kind() != K::Bool) {
      if (leftFailed) return ctx_.fail(std::move(leftError));
      return noOverload(name, {&r, 1});
    }
    if (r.asBool() == isOr) return r;
    if (leftFailed) return ctx_.fail(std::move(leftError));
    return r;
  }

  Value binary(const Node& n) {
    Value l = eval(*n.children[0]);
    if (ctx_.failed) return Value();
    Value r = eval(*n.children[1]);
    if (ctx_.failed) return Value();
    switch (n.op) {
      case BinaryOp::Eq:
        return Value::boolean(l == r);
      case BinaryOp::Ne:
        return Value::boolean(!(l == r));
      case BinaryOp::Lt:
      case BinaryOp::Le:
      case BinaryOp::Gt:
      case BinaryOp::Ge:
        return compare(n.op, l, r);
      case BinaryOp::In:
        return in(l, r);
      case BinaryOp::Add:
        return detail::add(ctx_, l, r);
      case BinaryOp::Sub:
        return detail::subtract(ctx_, l, r);
      case BinaryOp::Mul:
      case BinaryOp::Div:
      case BinaryOp::Mod:
        return detail::multiplicative(ctx_, n.op, l, r);
    }
    return Value();
  }

  Value compare(BinaryOp op, const Value& l, const Value& r) {
    static constexpr const char* names[] = {"", "", "_<_", "_<=_", "_>_", "_>=_"};
    std::optional<int> c;
    bool comparable = true;
    if (detail::isNumber(l) && detail::isNumber(r)) {
      c = detail::compareNumbers(l, r);
    } else if (l.kind() != r.kind()) {
      comparable = false;
    } else {
      switch (l.kind()) {
        case K::String:
        case K::Bytes: {
          if (!ctx_.charge(std::min(l.asString().size(), r.asString().size()) / 64)) return Value();
          int x = l.asString().compare(r.asString());
          c = x < 0 ? -1 : (x > 0 ? 1 : 0);
          break;
        }
        case K::Bool:
          c = static_cast<int>(l.asBool()) - static_cast<int>(r.asBool());
          break;
        case K::Duration:
        case K::Timestamp:
          c = l.asInt() < r.asInt() ? -1 : (l.asInt() > r.asInt() ? 1 : 0);
          break;
        default:
          comparable = false;
      }
    }
    if (!comparable) {
      std::array<Value, 2> args{l, r};
      return noOverload(names[static_cast<int>(op)], args);
    }
    if (!c) return Value::boolean(false);  // NaN compares false
    switch (op) {
      case BinaryOp::Lt:
        return Value::boolean(*c < 0);
      case BinaryOp::Le:
        return Value::boolean(*c <= 0);
      case BinaryOp::Gt:
        return Value::boolean(*c > 0);
      default:
        return Value::boolean(*c >= 0);
    }
  }

  Value in(const Value& l, const Value& r) {
    if (r.kind() == K::List) {
      auto items = r.asList();
      if (!ctx_.charge(items.size())) return Value();
      for (const Value& item : items) {
        if (item == l) return Value::boolean(true);
      }
      return Value::boolean(false);
    }
    if (r.kind() == K::Map) {
      if (!ctx_.charge(r.asMap().size())) return Value();
      return Value::boolean(r.find(l) != nullptr);
    }
    std::array<Value, 2> args{l, r};
    return noOverload("@in", args);
  }

  // A predicate's result: a bool, else an error.
  std::optional<bool> predicate(const Node& n) {
    Value v = eval(n);
    if (ctx_.failed) return std::nullopt;
    if (v.kind() != K::Bool) {
      noOverload("predicate", {&v, 1});
      return std::nullopt;
    }
    return v.asBool();
  }

  Value comprehension(const Node& n) {
    Value range = eval(*n.children[0]);
    if (ctx_.failed) return Value();
    bool twoVars = !n.name2.empty();
    std::size_t slot = static_cast<std::size_t>(n.slot);
    std::size_t count;
    if (range.kind() == K::List) {
      count = range.asList().size();
    } else if (range.kind() == K::Map) {
      count = range.asMap().size();
    } else {
      return ctx_.fail("comprehension over type '" + std::string(range.typeName()) +
                       "' (a list or map is needed)");
    }
    std::vector<Value> out;
    std::size_t matched = 0;
    std::string deferred;  // all/exists: the first error, unless a deciding element follows
    bool haveDeferred = false;
    for (std::size_t i = 0; i < count; ++i) {
      if (!ctx_.charge(1)) return Value();
      Value indexValue;
      if (range.kind() == K::List) {
        const Value& item = range.asList()[i];
        if (twoVars) {
          indexValue = Value::integer(static_cast<std::int64_t>(i));
          slots_[slot] = &indexValue;
          slots_[slot + 1] = &item;
        } else {
          slots_[slot] = &item;
        }
      } else {
        const MapEntry& e = range.asMap()[i];
        slots_[slot] = &e.first;
        if (twoVars) slots_[slot + 1] = &e.second;
      }
      switch (n.macro) {
        case Macro::All:
        case Macro::Exists: {
          bool decider = n.macro == Macro::Exists;
          auto p = predicate(*n.children[1]);
          if (!p) {
            if (ctx_.exhausted) return Value();
            if (!haveDeferred) {
              haveDeferred = true;
              deferred = std::move(ctx_.error);
            }
            ctx_.failed = false;
            ctx_.error.clear();
            continue;
          }
          if (*p == decider) return Value::boolean(decider);
          break;
        }
        case Macro::ExistsOne: {
          auto p = predicate(*n.children[1]);
          if (!p) return Value();
          if (*p) ++matched;
          break;
        }
        case Macro::Map: {
          Value v = eval(*n.children[1]);
          if (ctx_.failed) return Value();
          out.push_back(std::move(v));
          break;
        }
        case Macro::MapFilter: {
          auto p = predicate(*n.children[1]);
          if (!p) return Value();
          if (!*p) break;
          Value v = eval(*n.children[2]);
          if (ctx_.failed) return Value();
          out.push_back(std::move(v));
          break;
        }
        case Macro::Filter: {
          auto p = predicate(*n.children[1]);
          if (!p) return Value();
          if (*p) out.push_back(*slots_[slot]);
          break;
        }
      }
    }
    switch (n.macro) {
      case Macro::All:
      case Macro::Exists:
        if (haveDeferred) return ctx_.fail(std::move(deferred));
        return Value::boolean(n.macro == Macro::All);
      case Macro::ExistsOne:
        return Value::boolean(matched == 1);
      default:
        return Value::list(std::move(out));
    }
  }

  const Bindings& bindings_;
  Context& ctx_;
  std::array<const Value*, 2 * kMaxNesting + 2> slots_;
};

}  // namespace

Outcome evaluate(const Program& program, const Bindings& bindings, std::uint64_t costLimit) {
  Outcome out;
  if (!detail::Access::compiled(program)) {
    out.error = "empty program";
    return out;
  }
  Context ctx;
  ctx.limit = costLimit;
  Evaluator ev(bindings, ctx);
  Value v = ev.eval(detail::Access::root(program));
  if (ctx.failed) {
    out.kind = Outcome::Error;
    out.error = std::move(ctx.error);
    out.costExceeded = ctx.exhausted;
    return out;
  }
  out.kind = Outcome::Value_;
  out.value = std::move(v);
  return out;
}

Outcome evaluate(const Program& program, const Bindings& bindings) {
  return evaluate(program, bindings, kDefaultCostLimit);
}

}  // namespace pg::cel
