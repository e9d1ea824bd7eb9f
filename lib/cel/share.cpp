// Subexpressions that several programs compiled together have in common (detail::markShared):
// found by a canonical text of each subtree, so that evaluateDirect() can work each out once
// per value.

#include <algorithm>
#include <atomic>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/cel/ast.h"

namespace pg::cel::detail {
namespace {

// The kinds worth remembering: reading a field or testing one with has() is already
// remembered by the direct path's memo, and a literal costs nothing.
bool worthSharing(NodeKind kind) {
  switch (kind) {
    case NodeKind::Binary:
    case NodeKind::Call:
    case NodeKind::Conditional:
    case NodeKind::And:
    case NodeKind::Or:
    case NodeKind::Not:
    case NodeKind::Comprehension:
      return true;
    default:
      return false;
  }
}

void appendNumber(std::string& out, std::uint64_t n) {
  out += std::to_string(n);
  out += ',';
}

// A literal's canonical text; false for a kind not written here (then nothing above it is
// shared).
bool literalText(const Value& v, std::string& out) {
  appendNumber(out, static_cast<std::uint64_t>(v.kind()));
  switch (v.kind()) {
    case Value::Kind::Null:
      return true;
    case Value::Kind::Bool:
      appendNumber(out, v.asBool() ? 1 : 0);
      return true;
    case Value::Kind::Int:
    case Value::Kind::Duration:
    case Value::Kind::Timestamp:
      appendNumber(out, static_cast<std::uint64_t>(v.asInt()));
      return true;
    case Value::Kind::Uint:
      appendNumber(out, v.asUint());
      return true;
    case Value::Kind::String:
    case Value::Kind::Bytes:
    case Value::Kind::Type:
      appendNumber(out, v.asString().size());
      out += v.asString();
      return true;
    case Value::Kind::List:
      appendNumber(out, v.asList().size());
      for (const Value& item : v.asList())
        if (!literalText(item, out)) return false;
      return true;
    default:
      return false;
  }
}

struct Finder {
  std::unordered_map<std::string, std::vector<Node*>> byText;  // subtrees by canonical text
  // The comprehension variables in scope where the walk is, as the resolver counted them: a
  // variable's slot is the number of variables in scope where its comprehension binds it.
  int scope = 0;

  // What walk() found of a subtree.
  struct Found {
    bool writable = true;                              // every literal has a canonical text
    int lowestSlot = std::numeric_limits<int>::max();  // of the variables it reads
  };

  // Writes `n`'s canonical text to `out`, and records each subtree worth sharing under its
  // text when it can be shared: it reads no comprehension variable bound outside it (one whose
  // slot is below the scope at its root) and holds only literals written here.
  Found walk(Node& n, std::string& out) {
    const std::size_t start = out.size();
    const int scopeHere = scope;
    Found found;
    appendNumber(out, static_cast<std::uint64_t>(n.kind));
    switch (n.kind) {
      case NodeKind::Literal:
        found.writable = literalText(n.value, out);
        break;
      case NodeKind::Ident:
        appendNumber(out, static_cast<std::uint64_t>(n.ident));
        if (n.ident == IdentKind::Var) {
          appendNumber(out, static_cast<std::uint64_t>(n.slot));
          found.lowestSlot = n.slot;
        } else if (n.ident == IdentKind::Type) {
          out += n.name;
          out += ',';
        } else if (n.ident == IdentKind::OldSelf) {
          found.writable = false;  // never evaluated on the direct path
        }
        break;
      case NodeKind::Select:
      case NodeKind::Has:
        appendNumber(out, n.nameId);
        appendNumber(out, n.optional ? 1 : 0);
        break;
      case NodeKind::Index:
        appendNumber(out, n.optional ? 1 : 0);
        break;
      case NodeKind::Call:
        appendNumber(out, static_cast<std::uint64_t>(n.fn));
        appendNumber(out, n.receiver ? 1 : 0);
        break;
      case NodeKind::List:
      case NodeKind::Map:
        for (bool optional : n.optionalItems) appendNumber(out, optional ? 1 : 0);
        break;
      case NodeKind::Binary:
        appendNumber(out, static_cast<std::uint64_t>(n.op));
        break;
      case NodeKind::Comprehension:
        appendNumber(out, static_cast<std::uint64_t>(n.macro));
        appendNumber(out, static_cast<std::uint64_t>(n.slot));
        appendNumber(out, n.name2.empty() ? 1 : 2);
        break;
      default:
        break;
    }
    out += '(';
    for (std::size_t i = 0; i < n.children.size(); ++i) {
      // A comprehension's variables are in scope in everything but its range.
      if (n.kind == NodeKind::Comprehension && i == 1) scope += n.name2.empty() ? 1 : 2;
      Found child = walk(*n.children[i], out);
      found.writable = found.writable && child.writable;
      found.lowestSlot = std::min(found.lowestSlot, child.lowestSlot);
    }
    scope = scopeHere;
    out += ')';
    if (found.writable && found.lowestSlot >= scopeHere && worthSharing(n.kind))
      byText[out.substr(start)].push_back(&n);
    return found;
  }
};

}  // namespace

void markShared(std::span<Node* const> roots) {
  static std::atomic<std::uint32_t> next{1};
  Finder finder;
  std::string text;
  for (Node* root : roots) {
    text.clear();
    finder.walk(*root, text);
  }
  for (auto& [_, nodes] : finder.byText) {
    if (nodes.size() < 2) continue;
    const std::uint32_t id = next.fetch_add(1, std::memory_order_relaxed);
    for (Node* n : nodes) n->shareId = id;
  }
}

}  // namespace pg::cel::detail
