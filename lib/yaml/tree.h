// The document tree every later stage reads: nodes in one arena per file, scalar text as
// string views (into the file buffer where the bytes are the value, else into an owned
// arena), and the source position of every node. Aliases share the anchored node instead of
// copying it, so the tree never grows with alias expansion.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pg::yaml {

enum class NodeKind : std::uint8_t { Scalar, Mapping, Sequence };

// Plain scalars are typed by their text (null, booleans, numbers); any other style, or an
// explicit !!str tag, makes a string.
enum class ScalarStyle : std::uint8_t { Plain, Quoted, Block };

struct Mark {
  std::uint32_t line = 0;    // 1-based; 0 means unknown
  std::uint32_t column = 0;  // 1-based, in Unicode code points
  bool operator==(const Mark&) const = default;
};

// 28 bytes: a 20,000-route repository has over two million nodes, and every byte of a node is
// about 2 MB of memory first touched (page faults) while loading. Scalar text is an offset
// and length rather than a string view for the same reason.
struct Node {
  Mark start;
  Mark end;
  // Scalars: where the value's bytes start, in the text (or in Tree::owned_ with kOwned);
  // containers: the index of the first child in Tree::children_.
  std::uint32_t first = 0;
  // Scalars: the value's length; containers: the number of children (mappings: key, value,
  // key, ...).
  std::uint32_t count = 0;
  NodeKind kind = NodeKind::Scalar;
  ScalarStyle style = ScalarStyle::Plain;
  std::uint8_t flags = 0;
  // A tree built from pieces of several files (an object as kustomize patched it): the file
  // the node came from, 1-based into Tree::origins_; 0 is the tree's own file.
  std::uint8_t origin = 0;

  static constexpr std::uint8_t kOwned = 1;  // the value's bytes are in Tree::owned_
  static constexpr std::uint8_t kOpen = 2;   // a container not closed yet (alias cycles)
  // Added after parsing (a schema default), not written in the file; placed at the mapping
  // it was added to.
  static constexpr std::uint8_t kSynthesized = 4;
  static constexpr std::uint8_t kAddedText = 8;  // the value's bytes are in Tree::added_
};
static_assert(sizeof(Node) == 28);

struct Document {
  std::uint32_t root = 0;  // node index
  Mark start;              // where the document begins (its first token)
};

class NodeRef;
struct EntryRange;
struct ItemRange;

// All documents of one file. Not copyable or movable: NodeRefs point at it.
class Tree {
 public:
  explicit Tree(std::string text) : text_(std::make_unique<std::string>(std::move(text))) {}
  Tree(const Tree&) = delete;
  Tree& operator=(const Tree&) = delete;

  std::string_view text() const { return *text_; }
  const std::vector<Document>& documents() const { return documents_; }
  NodeRef root(std::size_t document) const;
  std::size_t nodeCount() const { return nodes_.size(); }

  // Adds `key: value` to `map`, a mapping of this tree that has no such key, `value` being
  // copied whole from any tree (a schema default). The new nodes are synthesized
  // (NodeRef::synthesized) and placed at `map`'s start, so that a finding on one points at
  // the mapping it was added to. Returns the added value. For the schema stage, before any
  // later stage reads the tree: not thread-safe, and NodeRefs stay valid but string views of
  // the tree's text are not guaranteed to (only the bytes added here move).
  NodeRef addEntry(NodeRef map, std::string_view key, NodeRef value);

  // For documents parsed out of a block scalar of another file (kustomize's inline patches):
  // moves every position down `lines` lines and right `columns` columns, so that they are the
  // enclosing file's.
  void shiftMarks(std::uint32_t lines, std::uint32_t columns);

  // Where a node of a built tree (yaml/edit.h) came from: the path its piece was read from, or
  // empty when it is the file this tree is (every tree the parser made).
  std::string_view originOf(NodeRef node) const;

 private:
  friend class NodeRef;
  friend class EditBuilder;
  struct EntryRange;
  struct ItemRange;
  friend class TreeBuilder;
  std::string_view value(const Node& n) const {
    const char* bytes = (n.flags & Node::kOwned)       ? owned_.data()
                        : (n.flags & Node::kAddedText) ? added_.data()
                                                       : text_->data();
    return {bytes + n.first, n.count};
  }
  std::uint32_t addScalar(std::string_view text, ScalarStyle style, Mark at);
  std::uint32_t copyIn(NodeRef value, Mark at, unsigned depth);

  std::unique_ptr<std::string> text_;
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> children_;
  std::vector<Document> documents_;
  // Scalar bytes that are not the text's own (escapes, folded lines, files that are not
  // ASCII), addressed by offset so that growing it moves nothing a node refers to.
  std::string owned_;
  // The bytes of scalars addEntry added, apart from owned_ so that adding moves no view the
  // loader took of a value.
  std::string added_;
  std::vector<std::string> origins_;  // Node::origin - 1 indexes it
};

// A handle on one node. An empty NodeRef (a missing key, an index out of range) answers every
// question with "nothing", so lookups chain: `obj.get("metadata").get("name").str()`.
class NodeRef {
 public:
  NodeRef() = default;
  NodeRef(const Tree* tree, std::uint32_t index) : tree_(tree), index_(index) {}

  explicit operator bool() const { return tree_ != nullptr; }
  bool operator==(const NodeRef& other) const = default;

  const Tree* tree() const { return tree_; }
  std::uint32_t index() const { return index_; }

  bool isScalar() const { return tree_ && node().kind == NodeKind::Scalar; }
  bool isMapping() const { return tree_ && node().kind == NodeKind::Mapping; }
  bool isSequence() const { return tree_ && node().kind == NodeKind::Sequence; }
  // A plain `null`, `~` or empty scalar. A missing node is not null: check `operator bool`.
  bool isNull() const;
  // A scalar that YAML types as a string (not null, boolean or number).
  bool isString() const;
  ScalarStyle style() const { return tree_ ? node().style : ScalarStyle::Plain; }
  // Added after parsing (Tree::addEntry: a schema default), not written in the file.
  bool synthesized() const { return tree_ && (node().flags & Node::kSynthesized); }

  // The scalar's text; empty for anything else.
  std::string_view str() const { return isScalar() ? tree_->value(node()) : std::string_view(); }
  std::optional<bool> asBool() const;
  std::optional<std::int64_t> asInt() const;

  // Number of mapping entries or sequence items; 0 for scalars and missing nodes.
  std::size_t size() const;
  NodeRef get(std::string_view key) const;      // mapping value by key
  NodeRef keyNode(std::string_view key) const;  // the key node itself, for positions
  NodeRef at(std::size_t index) const;          // sequence item
  NodeRef keyAt(std::size_t entry) const;       // mapping entry's key
  NodeRef valueAt(std::size_t entry) const;     // mapping entry's value

  Mark start() const { return tree_ ? node().start : Mark{}; }
  Mark end() const { return tree_ ? node().end : Mark{}; }

  // `for (auto [key, value] : node.entries())`, `for (NodeRef item : node.items())`; empty
  // for nodes of the other kinds.
  EntryRange entries() const;
  ItemRange items() const;

 private:
  const Node& node() const { return tree_->nodes_[index_]; }
  // The position in Tree::children_ of the mapping's key equal to `key`, or kNoKey.
  static constexpr std::uint32_t kNoKey = ~std::uint32_t{0};
  std::uint32_t findKey(std::string_view key) const;
  NodeRef child(std::size_t i) const { return {tree_, tree_->children_[node().first + i]}; }

  const Tree* tree_ = nullptr;
  std::uint32_t index_ = 0;
};

// Whether a plain (unquoted) scalar with this text is a string in YAML's core schema, and
// not null, a boolean or a number.
bool plainIsString(std::string_view text);

struct Entry {
  NodeRef key;
  NodeRef value;
};

class EntryIterator {
 public:
  EntryIterator(NodeRef map, std::size_t i) : map_(map), i_(i) {}
  Entry operator*() const { return {map_.keyAt(i_), map_.valueAt(i_)}; }
  EntryIterator& operator++() {
    ++i_;
    return *this;
  }
  bool operator!=(const EntryIterator& other) const { return i_ != other.i_; }

 private:
  NodeRef map_;
  std::size_t i_;
};

class ItemIterator {
 public:
  ItemIterator(NodeRef seq, std::size_t i) : seq_(seq), i_(i) {}
  NodeRef operator*() const { return seq_.at(i_); }
  ItemIterator& operator++() {
    ++i_;
    return *this;
  }
  bool operator!=(const ItemIterator& other) const { return i_ != other.i_; }

 private:
  NodeRef seq_;
  std::size_t i_;
};

struct EntryRange {
  NodeRef map;
  EntryIterator begin() const { return {map, 0}; }
  EntryIterator end() const { return {map, map.size()}; }
};

struct ItemRange {
  NodeRef seq;
  ItemIterator begin() const { return {seq, 0}; }
  ItemIterator end() const { return {seq, seq.size()}; }
};

inline EntryRange NodeRef::entries() const {
  return {isMapping() ? *this : NodeRef()};
}
inline ItemRange NodeRef::items() const {
  return {isSequence() ? *this : NodeRef()};
}

// Whether two nodes hold the same value once parsed: scalars with the same text and type,
// mappings with the same keys (in any order) and values, sequences item by item. Comments,
// quoting that does not change the type, and layout do not count.
bool sameValue(NodeRef a, NodeRef b);

}  // namespace pg::yaml
