#include "lib/yaml/tree.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>

#include "lib/yaml/bytes.h"

namespace pg::yaml {

namespace {

// The integers kubectl reads that are not plain decimals: sigs.k8s.io/yaml resolves a plain
// scalar with go-yaml v2, which drops every `_` and parses with Go's strconv.ParseInt base 0:
// 0x1F (hex), 0o17 and 017 (octal), 0b101 (binary), 1_000. A leading-zero number with an 8 or
// 9 is not octal; go-yaml then reads it as a float, the decimal value (what the fast path
// below gives).
bool readPrefixedInteger(std::string_view v, std::int64_t& out) {
  std::string digits;
  for (char c : v)
    if (c != '_') digits += c;
  std::string_view d = digits;
  bool negative = false;
  if (!d.empty() && (d.front() == '+' || d.front() == '-')) {
    negative = d.front() == '-';
    d.remove_prefix(1);
  }
  int base = 10;
  if (d.size() > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) {
    base = 16;
    d.remove_prefix(2);
  } else if (d.size() > 2 && d[0] == '0' && (d[1] == 'o' || d[1] == 'O')) {
    base = 8;
    d.remove_prefix(2);
  } else if (d.size() > 2 && d[0] == '0' && (d[1] == 'b' || d[1] == 'B')) {
    base = 2;
    d.remove_prefix(2);
  } else if (d.size() > 1 && d[0] == '0' && d.find_first_of("89") == std::string_view::npos) {
    base = 8;
    d.remove_prefix(1);
  }
  if (d.empty()) return false;
  std::uint64_t magnitude = 0;
  auto [ptr, ec] = std::from_chars(d.data(), d.data() + d.size(), magnitude, base);
  if (ec != std::errc() || ptr != d.data() + d.size()) return false;
  const std::uint64_t limit = negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
  if (magnitude > limit) return false;
  out = negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
  return true;
}

// A plain scalar's int64: an optional '+', then what std::from_chars reads (an optional '-',
// then digits) in all of the rest, or one of the forms readPrefixedInteger reads. The numbers
// manifests hold (ports, weights, counts: up to 18 digits, which cannot overflow) are read by
// a plain loop: from_chars' generality cost 80 instructions a number, and every integer field
// of every object is read.
[[gnu::always_inline]] inline bool readInteger(std::string_view v, std::int64_t& out) {
  if (!v.empty() && v.front() == '+') v.remove_prefix(1);
  const char* p = v.data();
  const char* const end = p + v.size();
  const bool negative = p != end && *p == '-';
  if (negative) ++p;
  if (p == end) return false;
  if (end - p > 1 && *p == '0') return readPrefixedInteger(v, out);
  if (end - p > 18) {
    auto [ptr, ec] = std::from_chars(v.data(), end, out);
    if (ec == std::errc() && ptr == end) return true;
    return readPrefixedInteger(v, out);
  }
  std::int64_t value = 0;
  for (; p != end; ++p) {
    const unsigned digit = static_cast<unsigned char>(*p) - unsigned{'0'};
    if (digit > 9) return *p == '_' && readPrefixedInteger(v, out);
    value = value * 10 + digit;
  }
  out = negative ? -value : value;
  return true;
}

}  // namespace

void Tree::shiftMarks(std::uint32_t lines, std::uint32_t columns) {
  auto shift = [&](Mark& m) {
    if (m.line == 0) return;
    m.line += lines;
    m.column += columns;
  };
  for (Node& n : nodes_) {
    shift(n.start);
    shift(n.end);
  }
  for (Document& d : documents_) shift(d.start);
}

std::string_view Tree::originOf(NodeRef node) const {
  if (node.tree() != this) return {};
  const std::uint8_t origin = nodes_[node.index()].origin;
  return origin == 0 || origin > origins_.size() ? std::string_view() : origins_[origin - 1];
}

NodeRef Tree::root(std::size_t document) const {
  if (document >= documents_.size()) return {};
  return {this, documents_[document].root};
}

std::uint32_t Tree::addScalar(std::string_view text, ScalarStyle style, Mark at) {
  Node n;
  n.start = at;
  n.end = at;
  n.first = static_cast<std::uint32_t>(added_.size());
  n.count = static_cast<std::uint32_t>(text.size());
  n.kind = NodeKind::Scalar;
  n.style = style;
  n.flags = Node::kSynthesized | Node::kAddedText;
  added_.append(text);
  nodes_.push_back(n);
  return static_cast<std::uint32_t>(nodes_.size() - 1);
}

std::uint32_t Tree::copyIn(NodeRef value, Mark at, unsigned depth) {
  // Schema defaults are small; the bound only guards against a pathological schema.
  constexpr unsigned kMaxDepth = 64;
  if (value.isScalar() || !value || depth > kMaxDepth)
    return addScalar(value.str(), value ? value.style() : ScalarStyle::Plain, at);
  std::vector<std::uint32_t> children;
  children.reserve(value.isMapping() ? value.size() * 2 : value.size());
  if (value.isMapping()) {
    for (auto [k, v] : value.entries()) {
      children.push_back(copyIn(k, at, depth + 1));
      children.push_back(copyIn(v, at, depth + 1));
    }
  } else {
    for (NodeRef item : value.items()) children.push_back(copyIn(item, at, depth + 1));
  }
  Node n;
  n.start = at;
  n.end = at;
  n.first = static_cast<std::uint32_t>(children_.size());
  n.count = static_cast<std::uint32_t>(children.size());
  n.kind = value.isMapping() ? NodeKind::Mapping : NodeKind::Sequence;
  n.flags = Node::kSynthesized;
  children_.insert(children_.end(), children.begin(), children.end());
  nodes_.push_back(n);
  return static_cast<std::uint32_t>(nodes_.size() - 1);
}

NodeRef Tree::addEntry(NodeRef map, std::string_view key, NodeRef value) {
  if (map.tree() != this || !map.isMapping()) return {};
  const Mark at = map.start();
  const std::uint32_t k =
      addScalar(key, plainIsString(key) ? ScalarStyle::Plain : ScalarStyle::Quoted, at);
  const std::uint32_t v = copyIn(value, at, 0);
  // A mapping's children are contiguous: unless they end the list already, they move to its
  // end (the old range is left unused), then the new entry follows them.
  Node& m = nodes_[map.index()];
  const std::size_t needed = children_.size() + m.count + 2;
  if (needed > children_.capacity())  // growing by half at least: maps gain entry by entry
    children_.reserve(std::max(needed, children_.capacity() + children_.capacity() / 2));
  if (m.first + m.count != children_.size()) {
    const std::uint32_t first = static_cast<std::uint32_t>(children_.size());
    for (std::uint32_t i = 0; i < m.count; ++i) children_.push_back(children_[m.first + i]);
    m.first = first;
  }
  children_.push_back(k);
  children_.push_back(v);
  m.count += 2;
  return {this, v};
}

bool NodeRef::isNull() const {
  if (!isScalar() || node().style != ScalarStyle::Plain) return false;
  std::string_view v = tree_->value(node());
  return v.empty() || v == "~" || v == "null" || v == "Null" || v == "NULL";
}

std::optional<bool> NodeRef::asBool() const {
  if (!isScalar() || node().style != ScalarStyle::Plain) return std::nullopt;
  std::string_view v = tree_->value(node());
  if (v == "true" || v == "True" || v == "TRUE") return true;
  if (v == "false" || v == "False" || v == "FALSE") return false;
  return std::nullopt;
}

std::optional<std::int64_t> NodeRef::asInt() const {
  if (!isScalar() || node().style != ScalarStyle::Plain) return std::nullopt;
  std::int64_t out = 0;
  if (!readInteger(tree_->value(node()), out)) return std::nullopt;
  return out;
}

bool NodeRef::isString() const {
  if (!isScalar()) return false;
  return node().style != ScalarStyle::Plain || plainIsString(tree_->value(node()));
}

namespace {

// What the first byte of a plain scalar says of its type. Nulls and booleans start with one
// of n N t T f F ~, numbers with a digit, a sign or a dot (.inf, .nan): any other first byte
// makes a string, without the parses below. Most strings (names, hostnames, paths) take that
// way, and every string field of every object asks.
enum class FirstByte : std::uint8_t { String, Word, Number };
constexpr std::array<FirstByte, 256> kFirstByte = [] {
  std::array<FirstByte, 256> table{};
  for (unsigned char c : std::string_view("~tTfFnN")) table[c] = FirstByte::Word;
  for (unsigned char c : std::string_view("0123456789+-.")) table[c] = FirstByte::Number;
  return table;
}();

}  // namespace

bool plainIsString(std::string_view v) {
  if (v.empty()) return false;
  const FirstByte first = kFirstByte[static_cast<unsigned char>(v.front())];
  if (first == FirstByte::String) return true;
  if (v == "~" || v == "null" || v == "Null" || v == "NULL") return false;
  if (v == "true" || v == "True" || v == "TRUE" || v == "false" || v == "False" || v == "FALSE")
    return false;
  if (first == FirstByte::Word) return true;  // no number starts with ~ t T f F n N
  std::int64_t i = 0;
  if (readInteger(v, i)) return false;
  // Floats and the special values of the YAML 1.2 core schema.
  static constexpr std::string_view kSpecial[] = {".inf",  ".Inf",  ".INF", "-.inf", "-.Inf",
                                                  "-.INF", "+.inf", ".nan", ".NaN",  ".NAN"};
  if (std::find(std::begin(kSpecial), std::end(kSpecial), v) != std::end(kSpecial)) return false;
  // A float as go-yaml reads one: digits, a dot, an exponent; from_chars would also take
  // `inf`, `nan` and `infinity`, which are strings (a Namespace may be named `inf`).
  if (v.find_first_not_of("0123456789+-.eE") != std::string_view::npos) return true;
  double d = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
  return !(ec == std::errc() && ptr == v.data() + v.size());
}

std::size_t NodeRef::size() const {
  if (!tree_ || node().kind == NodeKind::Scalar) return 0;
  return node().kind == NodeKind::Mapping ? node().count / 2 : node().count;
}

// Called for every field any stage reads: compares lengths before bytes. Inlined into get()
// and keyNode() (its only callers, here): the call cost as much as scanning a short mapping.
[[gnu::always_inline]] inline std::uint32_t NodeRef::findKey(std::string_view key) const {
  const Node& n = node();
  const std::uint32_t* children = tree_->children_.data() + n.first;
  const Node* nodes = tree_->nodes_.data();
  const std::size_t size = key.size();
  for (std::uint32_t i = 0; i < n.count; i += 2) {
    const Node& k = nodes[children[i]];
    if (k.count != size || k.kind != NodeKind::Scalar) continue;
    if (size == 0) return n.first + i;
    const char* v = tree_->value(k).data();
    // Keys of one mapping mostly differ in their length or first byte.
    if (v[0] == key[0] && detail::sameShortBytes(v, key.data(), size)) return n.first + i;
  }
  return kNoKey;
}

NodeRef NodeRef::keyNode(std::string_view key) const {
  if (!isMapping()) return {};
  std::uint32_t at = findKey(key);
  return at == kNoKey ? NodeRef() : NodeRef(tree_, tree_->children_[at]);
}

NodeRef NodeRef::get(std::string_view key) const {
  if (!isMapping()) return {};
  std::uint32_t at = findKey(key);
  return at == kNoKey ? NodeRef() : NodeRef(tree_, tree_->children_[at + 1]);
}

NodeRef NodeRef::at(std::size_t index) const {
  if (!isSequence() || index >= node().count) return {};
  return child(index);
}

NodeRef NodeRef::keyAt(std::size_t entry) const {
  if (!isMapping() || entry * 2 >= node().count) return {};
  return child(entry * 2);
}

NodeRef NodeRef::valueAt(std::size_t entry) const {
  if (!isMapping() || entry * 2 >= node().count) return {};
  return child(entry * 2 + 1);
}

bool sameValue(NodeRef a, NodeRef b) {
  if (a.isScalar() && b.isScalar()) return a.str() == b.str() && a.isString() == b.isString();
  if (a.isSequence() && b.isSequence()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!sameValue(a.at(i), b.at(i))) return false;
    return true;
  }
  if (a.isMapping() && b.isMapping()) {
    if (a.size() != b.size()) return false;
    // A repeated key counts once, the first, on both sides.
    for (auto [k, v] : a.entries())
      if (!sameValue(a.get(k.str()), b.get(k.str()))) return false;
    return true;
  }
  return !a && !b;
}

}  // namespace pg::yaml
