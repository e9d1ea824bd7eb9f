// An editable copy of a document node, for the tools that change objects on their way to the
// cluster (kustomize's patches, labels and name references, Flux's substitutions). Every part
// remembers the node it came from, so the tree it is written back to (`build`) keeps each
// value's position, and the file each value came from (Tree::originOf).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lib/yaml/tree.h"

namespace pg::yaml {

struct EditNode {
  NodeKind kind = NodeKind::Scalar;
  // The node it was copied from; for a part made here, the node it is reported at (the
  // kustomization field that added it).
  NodeRef source;
  bool made = false;  // made here, not copied: synthesized in the built tree
  std::string text;   // a scalar's text
  ScalarStyle style = ScalarStyle::Plain;
  std::vector<EditNode> children;  // a mapping's key, value, key, value...; a sequence's items

  static EditNode copy(NodeRef node);
  static EditNode scalar(std::string text, NodeRef at, ScalarStyle style = ScalarStyle::Plain);
  static EditNode mapping(NodeRef at);
  static EditNode sequence(NodeRef at);

  bool isScalar() const { return kind == NodeKind::Scalar; }
  bool isMapping() const { return kind == NodeKind::Mapping; }
  bool isSequence() const { return kind == NodeKind::Sequence; }
  // A plain `null`, `~` or empty scalar.
  bool isNull() const;
  // Entries of a mapping, items of a sequence; 0 for a scalar.
  std::size_t size() const { return isMapping() ? children.size() / 2 : children.size(); }

  // A mapping's value by key; null when absent or not a mapping.
  EditNode* get(std::string_view key);
  const EditNode* get(std::string_view key) const;
  // Sets a mapping's value, adding the key (made at `value.source`) when absent.
  EditNode& set(std::string_view key, EditNode value);
  // Removes a mapping's entry; false when absent.
  bool erase(std::string_view key);
  // A mapping's value by key, made an empty mapping at `at` when absent (or not a mapping).
  EditNode& child(std::string_view key, NodeRef at);
};

// Writes `root` into a new tree of one document. `pathOf` names the file of each tree a part
// came from; an empty name is the file the object is reported in (Resource::file).
std::unique_ptr<Tree> build(const EditNode& root,
                            const std::function<std::string(const Tree*)>& pathOf);

}  // namespace pg::yaml
