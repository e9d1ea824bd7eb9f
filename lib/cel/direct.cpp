// Direct evaluation: the common shapes of CRD rules (field tests, string tests, comparisons,
// macros over lists) evaluated with `self` read in place from a Source, so that validating an
// object does not convert it to Values first. It decides only what it is sure of, exactly as
// eval.cpp would; anything else (an error, a mixed-type comparison, an unsupported node) is
// left to evaluate(), which the caller then runs.

#include "lib/cel/direct.h"

#include <re2/re2.h>

#include <array>
#include <limits>

#include "lib/cel/ast.h"

namespace pg::cel {

using detail::BinaryOp;
using detail::Fn;
using detail::IdentKind;
using detail::Macro;
using detail::Node;
using detail::NodeKind;

namespace detail {

// A value on the direct path: a scalar, or a list or map still in the source. Absent (a
// field that is not there) and Undecided (anything else not read here) decide nothing.
// One of its members holds the value, as `kind` says: 32 bytes, returned and copied at every
// step of an evaluation.
struct DirectValue {
  DirectValue() : b(false) {}
  enum Kind : std::uint8_t { Undecided, Absent, Bool, Int, String, List, Map } kind = Undecided;
  union {
    bool b;
    std::int64_t i;    // Int
    std::string_view s;  // String
    Source::Ref ref;     // List, Map
  };
};
static_assert(sizeof(DirectValue) <= 32);

}  // namespace detail

struct DirectMemo::Impl {
  static constexpr std::uint32_t kSizeKey = 0;  // fieldId() is never 0
  // Or'ed with a shareId: the value of a shared subexpression (fieldIds stay far below).
  static constexpr std::uint32_t kSharedKey = 0x80000000U;
  struct Entry {
    const void* a = nullptr;
    const void* b = nullptr;
    std::uint32_t i = 0;
    std::uint32_t key = 0;
    std::uint32_t generation = 0;
    detail::DirectValue value;
  };
  std::array<Entry, 512> entries{};
  std::uint32_t generation = 1;
  std::array<detail::DirectValue, 16> slots{};  // Direct's comprehension variables

  Entry& slot(const Source::Ref& r, std::uint32_t key) {
    auto h = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(r.a) >> 4) ^
             (r.i * 0x9E3779B1U) ^ (key * 0x85EBCA6BU);
    h ^= h >> 15;
    return entries[h & (entries.size() - 1)];
  }
  bool holds(const Entry& e, const Source::Ref& r, std::uint32_t key) const {
    return e.generation == generation && e.key == key && e.i == r.i && e.a == r.a && e.b == r.b;
  }
  void store(Entry& e, const Source::Ref& r, std::uint32_t key, const detail::DirectValue& v) {
    e.a = r.a;
    e.b = r.b;
    e.i = r.i;
    e.key = key;
    e.generation = generation;
    e.value = v;
  }
};

DirectMemo::DirectMemo() : impl_(std::make_unique<Impl>()) {}
DirectMemo::~DirectMemo() = default;

void DirectMemo::clear() {
  if (++impl_->generation == 0) {
    for (Impl::Entry& e : impl_->entries) e.generation = 0;
    impl_->generation = 1;
  }
}

namespace {

bool supported(const Node& n) {
  switch (n.kind) {
    case NodeKind::Literal:
      return true;
    case NodeKind::Ident:
      return n.ident == IdentKind::Self || n.ident == IdentKind::Var;
    case NodeKind::Select:
    case NodeKind::Index:
      if (n.optional) return false;
      break;
    case NodeKind::Has:
    case NodeKind::Not:
    case NodeKind::And:
    case NodeKind::Or:
    case NodeKind::Conditional:
      break;
    case NodeKind::List:
      for (const auto& c : n.children)
        if (c->kind != NodeKind::Literal) return false;
      for (bool optional : n.optionalItems)
        if (optional) return false;
      return true;
    case NodeKind::Binary:
      if (n.op == BinaryOp::Sub || n.op == BinaryOp::Mul || n.op == BinaryOp::Div ||
          n.op == BinaryOp::Mod)
        return false;
      break;
    case NodeKind::Call:
      if (n.fn == Fn::Matches) {
        if (!n.regex) return false;
        break;
      }
      if (n.fn != Fn::StartsWith && n.fn != Fn::EndsWith && n.fn != Fn::Contains &&
          n.fn != Fn::Size)
        return false;
      break;
    case NodeKind::Comprehension:
      if (!n.name2.empty()) return false;
      if (n.macro != Macro::All && n.macro != Macro::Exists && n.macro != Macro::ExistsOne &&
          n.macro != Macro::Filter)
        return false;
      break;
    default:
      return false;
  }
  for (const auto& c : n.children)
    if (!supported(*c)) return false;
  return true;
}

constexpr std::size_t kSlots = 16;

using D = detail::DirectValue;

class Direct {
 public:
  Direct(const Source& source, Source::Ref self, DirectMemo::Impl* memo, D* slots)
      : source_(source), self_(self), memo_(memo), slots_(slots) {}

  D eval(const Node& n) {
    if (++steps_ > kDefaultCostLimit) return {};
    if (n.shareId != 0 && memo_ != nullptr) return shared(n);
    return evalNode(n);
  }

 private:
  // A subexpression other rules of this value have too: worked out once per value and memo.
  D shared(const Node& n) {
    const std::uint32_t key = DirectMemo::Impl::kSharedKey | n.shareId;
    if (const DirectMemo::Impl::Entry& e = memo_->slot(self_, key); memo_->holds(e, self_, key))
      return e.value;
    D d = evalNode(n);
    // The slot again: working `n` out may have stored other entries in it.
    memo_->store(memo_->slot(self_, key), self_, key, d);
    return d;
  }

  D evalNode(const Node& n) {
    switch (n.kind) {
      case NodeKind::Literal:
        return literal(n.value);
      case NodeKind::Ident:
        if (n.ident == IdentKind::Self) {
          if (!haveSelf_) {
            selfValue_ = fromSource(self_);
            haveSelf_ = true;
          }
          return selfValue_;
        }
        if (n.ident != IdentKind::Var || static_cast<std::size_t>(n.slot) >= kSlots) return {};
        return slots_[static_cast<std::size_t>(n.slot)];
      case NodeKind::Select: {
        if (n.optional) return {};
        D base = eval(*n.children[0]);
        if (base.kind != D::Map) return {};
        // An absent field (no such key: an error) decides nothing, as any shape not read here.
        return field(base.ref, n);
      }
      case NodeKind::Has: {
        D base = eval(*n.children[0]);
        if (base.kind != D::Map) return {};
        return boolean(field(base.ref, n).kind != D::Absent);
      }
      case NodeKind::Index: {
        if (n.optional) return {};
        D base = eval(*n.children[0]);
        D key = eval(*n.children[1]);
        if (base.kind == D::List && key.kind == D::Int) {
          std::size_t size = 0;
          if (!count(base.ref, size) || key.i < 0 || static_cast<std::uint64_t>(key.i) >= size)
            return {};
          return fromSource(source_.item(base.ref, static_cast<std::size_t>(key.i)));
        }
        if (base.kind == D::Map && key.kind == D::String)
          return fromSource(source_.field(base.ref, key.s));
        return {};
      }
      case NodeKind::Not: {
        D v = eval(*n.children[0]);
        return v.kind == D::Bool ? boolean(!v.b) : D{};
      }
      case NodeKind::And:
      case NodeKind::Or: {
        bool isOr = n.kind == NodeKind::Or;
        D l = eval(*n.children[0]);
        if (l.kind == D::Bool && l.b == isOr) return l;
        D r = eval(*n.children[1]);
        if (r.kind == D::Bool && r.b == isOr) return r;  // absorbs an undecided left side
        if (l.kind != D::Bool || r.kind != D::Bool) return {};
        return r;
      }
      case NodeKind::Conditional: {
        D c = eval(*n.children[0]);
        if (c.kind != D::Bool) return {};
        return eval(*n.children[c.b ? 1 : 2]);
      }
      case NodeKind::Binary:
        return binary(n);
      case NodeKind::Call:
        return call(n);
      case NodeKind::Comprehension:
        return comprehension(n);
      default:
        return {};
    }
  }

  static D boolean(bool b) {
    D d;
    d.kind = D::Bool;
    d.b = b;
    return d;
  }

  static D literal(const Value& v) {
    D d;
    switch (v.kind()) {
      case Value::Kind::Bool:
        d.kind = D::Bool;
        d.b = v.asBool();
        break;
      case Value::Kind::Int:
        d.kind = D::Int;
        d.i = v.asInt();
        break;
      case Value::Kind::String:
        d.kind = D::String;
        d.s = v.asString();
        break;
      default:
        break;
    }
    return d;
  }

  D field(const Source::Ref& map, const Node& n) {
    if (memo_ == nullptr) return fromSource(source_.field(map, n.name));
    DirectMemo::Impl::Entry& e = memo_->slot(map, n.nameId);
    if (memo_->holds(e, map, n.nameId)) return e.value;
    D d = fromSource(source_.field(map, n.name));
    memo_->store(e, map, n.nameId, d);
    return d;
  }

  // A list's size; false when the source cannot count it as a Value would be counted.
  bool count(const Source::Ref& list, std::size_t& n) {
    if (memo_ == nullptr) return source_.size(list, n);
    constexpr std::uint32_t key = DirectMemo::Impl::kSizeKey;
    DirectMemo::Impl::Entry& e = memo_->slot(list, key);
    if (!memo_->holds(e, list, key)) {
      D d;
      std::size_t counted = 0;
      if (source_.size(list, counted)) {
        d.kind = D::Int;
        d.i = static_cast<std::int64_t>(counted);
      }
      memo_->store(e, list, key, d);
    }
    if (e.value.kind != D::Int) return false;
    n = static_cast<std::size_t>(e.value.i);
    return true;
  }

  D fromSource(Source::Ref r) const {
    D d;
    switch (source_.shape(r)) {
      case Source::Shape::Absent:
        d.kind = D::Absent;
        break;
      case Source::Shape::Bool:
        d.kind = D::Bool;
        d.b = source_.boolean(r);
        break;
      case Source::Shape::Int:
        d.kind = D::Int;
        d.i = source_.integer(r);
        break;
      case Source::Shape::String:
        d.kind = D::String;
        d.s = source_.string(r);
        break;
      case Source::Shape::List:
        d.kind = D::List;
        d.ref = r;
        break;
      case Source::Shape::Map:
        d.kind = D::Map;
        d.ref = r;
        break;
      default:
        break;
    }
    return d;
  }

  // Equality of two scalars of one type; nothing for anything else (eval.cpp decides those).
  static std::optional<bool> equal(const D& a, const D& b) {
    if (a.kind != b.kind) return std::nullopt;
    switch (a.kind) {
      case D::Bool:
        return a.b == b.b;
      case D::Int:
        return a.i == b.i;
      case D::String:
        return a.s == b.s;
      default:
        return std::nullopt;
    }
  }

  D binary(const Node& n) {
    if (n.op == BinaryOp::In) return in(n);
    D l = eval(*n.children[0]);
    if (l.kind == D::Undecided || l.kind == D::Absent) return {};
    D r = eval(*n.children[1]);
    switch (n.op) {
      case BinaryOp::Eq:
      case BinaryOp::Ne: {
        std::optional<bool> e = equal(l, r);
        if (!e) return {};
        return boolean(n.op == BinaryOp::Eq ? *e : !*e);
      }
      case BinaryOp::Lt:
      case BinaryOp::Le:
      case BinaryOp::Gt:
      case BinaryOp::Ge: {
        int c = 0;
        if (l.kind == D::Int && r.kind == D::Int) {
          c = l.i < r.i ? -1 : l.i > r.i ? 1 : 0;
        } else if (l.kind == D::String && r.kind == D::String) {
          int cmp = l.s.compare(r.s);
          c = cmp < 0 ? -1 : cmp > 0 ? 1 : 0;
        } else {
          return {};
        }
        switch (n.op) {
          case BinaryOp::Lt:
            return boolean(c < 0);
          case BinaryOp::Le:
            return boolean(c <= 0);
          case BinaryOp::Gt:
            return boolean(c > 0);
          default:
            return boolean(c >= 0);
        }
      }
      case BinaryOp::Add: {
        if (l.kind != D::Int || r.kind != D::Int) return {};
        std::int64_t sum = 0;
        if (__builtin_add_overflow(l.i, r.i, &sum)) return {};
        D d;
        d.kind = D::Int;
        d.i = sum;
        return d;
      }
      default:
        return {};
    }
  }

  D in(const Node& n) {
    D needle = eval(*n.children[0]);
    if (needle.kind != D::Bool && needle.kind != D::Int && needle.kind != D::String) return {};
    const Node& haystack = *n.children[1];
    if (haystack.kind == NodeKind::List) {
      for (const auto& c : haystack.children) {
        std::optional<bool> e = equal(needle, literal(c->value));
        if (!e) return {};
        if (*e) return boolean(true);
      }
      return boolean(false);
    }
    if (haystack.kind == NodeKind::Literal && haystack.value.kind() == Value::Kind::List) {
      for (const Value& v : haystack.value.asList()) {
        std::optional<bool> e = equal(needle, literal(v));
        if (!e) return {};
        if (*e) return boolean(true);
      }
      return boolean(false);
    }
    D list = eval(haystack);
    if (list.kind != D::List) return {};
    std::size_t size = 0;
    if (!count(list.ref, size)) return {};
    for (std::size_t i = 0; i < size; ++i) {
      std::optional<bool> e = equal(needle, fromSource(source_.item(list.ref, i)));
      if (!e) return {};
      if (*e) return boolean(true);
    }
    return boolean(false);
  }

  D call(const Node& n) {
    if (n.fn == Fn::Size) {
      if (n.children.size() != 1) return {};
      const Node& arg = *n.children[0];
      if (arg.kind == NodeKind::Comprehension && arg.macro == Macro::Filter) {
        std::optional<std::size_t> kept = filtered(arg);
        if (!kept) return {};
        D d;
        d.kind = D::Int;
        d.i = static_cast<std::int64_t>(*kept);
        return d;
      }
      D v = eval(arg);
      std::size_t size = 0;
      if (v.kind == D::String) {
        for (unsigned char c : v.s)
          if ((c & 0xC0) != 0x80) ++size;
      } else if (v.kind != D::List || !count(v.ref, size)) {
        return {};
      }
      D d;
      d.kind = D::Int;
      d.i = static_cast<std::int64_t>(size);
      return d;
    }
    if (n.children.size() != 2) return {};
    D target = eval(*n.children[0]);
    if (target.kind != D::String) return {};
    if (n.fn == Fn::Matches) {
      if (!n.regex) return {};
      return boolean(
          RE2::PartialMatch(re2::StringPiece(target.s.data(), target.s.size()), *n.regex));
    }
    D arg = eval(*n.children[1]);
    if (arg.kind != D::String) return {};
    switch (n.fn) {
      case Fn::StartsWith:
        return boolean(target.s.starts_with(arg.s));
      case Fn::EndsWith:
        return boolean(target.s.ends_with(arg.s));
      case Fn::Contains:
        return boolean(target.s.find(arg.s) != std::string_view::npos);
      default:
        return {};
    }
  }

  // The items of a filter macro's range its predicate keeps.
  std::optional<std::size_t> filtered(const Node& n) {
    if (!n.name2.empty()) return std::nullopt;
    D range = eval(*n.children[0]);
    std::size_t size = 0;
    if (range.kind != D::List || !count(range.ref, size)) return {};
    auto slot = static_cast<std::size_t>(n.slot);
    if (slot >= kSlots) return {};
    std::size_t kept = 0;
    for (std::size_t i = 0; i < size; ++i) {
      slots_[slot] = fromSource(source_.item(range.ref, i));
      D p = eval(*n.children[1]);
      if (p.kind != D::Bool) return {};
      if (p.b) ++kept;
    }
    return kept;
  }

  D comprehension(const Node& n) {
    // A filter's list is decided only under size() (filtered()); two-variable forms and map
    // are left to eval.cpp.
    if (!n.name2.empty() ||
        (n.macro != Macro::All && n.macro != Macro::Exists && n.macro != Macro::ExistsOne))
      return {};
    D range = eval(*n.children[0]);
    std::size_t size = 0;
    if (range.kind != D::List || !count(range.ref, size)) return {};
    auto slot = static_cast<std::size_t>(n.slot);
    if (slot >= kSlots) return {};
    std::size_t matched = 0;
    bool undecided = false;
    for (std::size_t i = 0; i < size; ++i) {
      slots_[slot] = fromSource(source_.item(range.ref, i));
      D p = eval(*n.children[1]);
      if (p.kind != D::Bool) {
        if (n.macro == Macro::ExistsOne) return {};
        undecided = true;  // all/exists: a deciding item later still decides
        continue;
      }
      if (n.macro == Macro::All && !p.b) return boolean(false);
      if (n.macro == Macro::Exists && p.b) return boolean(true);
      if (p.b) ++matched;
    }
    if (undecided) return {};
    if (n.macro == Macro::ExistsOne) return boolean(matched == 1);
    return boolean(n.macro == Macro::All);
  }

  const Source& source_;
  Source::Ref self_;
  DirectMemo::Impl* memo_;
  D selfValue_;  // `self`, read once
  bool haveSelf_ = false;
  D* slots_;  // kSlots comprehension variables, each written before it is read
  std::uint64_t steps_ = 0;
};

}  // namespace

bool directlyEvaluable(const Program& program) {
  return detail::Access::compiled(program) && supported(detail::Access::root(program));
}

std::optional<bool> evaluateDirect(const Program& program, const Source& source, Source::Ref self) {
  if (!detail::Access::compiled(program)) return std::nullopt;
  std::array<D, kSlots> slots{};
  Direct direct(source, self, nullptr, slots.data());
  D result = direct.eval(detail::Access::root(program));
  if (result.kind != D::Bool) return std::nullopt;
  return result.b;
}

std::optional<bool> evaluateDirect(const Program& program, const Source& source, Source::Ref self,
                                   DirectMemo& memo) {
  if (!detail::Access::compiled(program)) return std::nullopt;
  static_assert(std::tuple_size_v<decltype(memo.impl_->slots)> == kSlots);
  Direct direct(source, self, memo.impl_.get(), memo.impl_->slots.data());
  D result = direct.eval(detail::Access::root(program));
  if (result.kind != D::Bool) return std::nullopt;
  return result.b;
}

}  // namespace pg::cel
