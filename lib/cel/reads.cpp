// What an expression reads of `self`, found by following `self` through the compiled tree:
// a value that lies inside `self` (a field of it, an item of a list of it, a comprehension
// variable over one of its lists) is a path; what consumes a path says what is read of it.
// Selection, has(), indexing and macros read part of a value; size() reads its size; anything
// else (a comparison, a string function, an argument) reads the whole of it.

#include "lib/cel/reads.h"

#include "lib/cel/ast.h"

namespace pg::cel {

using detail::IdentKind;
using detail::Node;
using detail::NodeKind;

Reads& Reads::field(std::string_view name) {
  for (auto& [n, r] : fields)
    if (n == name) return *r;
  fields.emplace_back(std::string(name), std::make_unique<Reads>());
  return *fields.back().second;
}

Reads& Reads::item() {
  if (!items) items = std::make_unique<Reads>();
  return *items;
}

void Reads::merge(const Reads& other) {
  size = size || other.size;
  whole = whole || other.whole;
  for (const auto& [name, r] : other.fields) field(name).merge(*r);
  if (other.items) item().merge(*other.items);
}

namespace {

class Analysis {
 public:
  explicit Analysis(Reads& root) : root_(root) {}

  // The node `n` denotes when its value lies inside `self`, else null; what `n` reads on the
  // way is recorded.
  Reads* path(const Node& n) {
    switch (n.kind) {
      case NodeKind::Literal:
        return nullptr;
      case NodeKind::Ident:
        switch (n.ident) {
          case IdentKind::Self:
            return &root_;
          case IdentKind::Var:
            return n.slot >= 0 && static_cast<std::size_t>(n.slot) < slots_.size()
                       ? slots_[static_cast<std::size_t>(n.slot)]
                       : nullptr;
          case IdentKind::Type:
            return nullptr;
          case IdentKind::OldSelf:
            ok = false;
            return nullptr;
        }
        return nullptr;
      case NodeKind::Select: {
        Reads* base = path(*n.children[0]);
        return base ? &base->field(n.name) : nullptr;
      }
      case NodeKind::Has:
        if (Reads* base = path(*n.children[0])) base->field(n.name);
        return nullptr;
      case NodeKind::Index: {
        Reads* base = path(*n.children[0]);
        use(*n.children[1]);
        return base ? &base->item() : nullptr;
      }
      case NodeKind::Call:
        if (n.fn == detail::Fn::Size && n.children.size() == 1) {
          if (Reads* r = path(*n.children[0])) r->size = true;
          return nullptr;
        }
        useAll(n);
        return nullptr;
      case NodeKind::List:
      case NodeKind::Map:
      case NodeKind::Not:
      case NodeKind::Neg:
      case NodeKind::And:
      case NodeKind::Or:
      case NodeKind::Conditional:
      case NodeKind::Binary:
        useAll(n);
        return nullptr;
      case NodeKind::Comprehension:
        comprehension(n);
        return nullptr;
    }
    ok = false;
    return nullptr;
  }

  // `n`'s value is used as a whole.
  void use(const Node& n) {
    if (Reads* r = path(n)) r->whole = true;
  }

  bool ok = true;

 private:
  void useAll(const Node& n) {
    for (const auto& c : n.children) use(*c);
  }

  void comprehension(const Node& n) {
    Reads* range = path(*n.children[0]);
    if (range) range->size = true;
    const auto first = static_cast<std::size_t>(n.slot < 0 ? 0 : n.slot);
    const std::size_t count = n.name2.empty() ? 1 : 2;
    if (slots_.size() < first + count) slots_.resize(first + count, nullptr);
    std::vector<Reads*> saved(slots_.begin() + static_cast<std::ptrdiff_t>(first),
                              slots_.begin() + static_cast<std::ptrdiff_t>(first + count));
    if (count == 1) {
      // One variable: an item of a list, a key of a map (a map's items are read whole).
      slots_[first] = range ? &range->item() : nullptr;
    } else {
      // Index and item, or key and value: the range is read whole.
      if (range) range->whole = true;
      slots_[first] = slots_[first + 1] = nullptr;
    }
    for (std::size_t i = 1; i < n.children.size(); ++i) use(*n.children[i]);
    std::copy(saved.begin(), saved.end(), slots_.begin() + static_cast<std::ptrdiff_t>(first));
  }

  Reads& root_;
  std::vector<Reads*> slots_;  // a comprehension variable's node, by slot
};

}  // namespace

bool readsOf(const Program& program, Reads& out) {
  if (!detail::Access::compiled(program)) return false;
  Reads reads;
  Analysis analysis(reads);
  analysis.use(detail::Access::root(program));
  if (!analysis.ok) return false;
  out.merge(reads);
  return true;
}

}  // namespace pg::cel
