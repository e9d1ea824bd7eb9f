#include "lib/yaml/edit.h"

#include <map>
#include <string>

namespace pg::yaml {

EditNode EditNode::copy(NodeRef node) {
  EditNode out;
  out.source = node;
  if (!node || node.isScalar()) {
    out.text = std::string(node.str());
    out.style = node.style();
    return out;
  }
  out.kind = node.isMapping() ? NodeKind::Mapping : NodeKind::Sequence;
  if (node.isMapping()) {
    out.children.reserve(node.size() * 2);
    for (auto [k, v] : node.entries()) {
      out.children.push_back(copy(k));
      out.children.push_back(copy(v));
    }
  } else {
    out.children.reserve(node.size());
    for (NodeRef item : node.items()) out.children.push_back(copy(item));
  }
  return out;
}

EditNode EditNode::scalar(std::string text, NodeRef at, ScalarStyle style) {
  EditNode out;
  out.source = at;
  out.made = true;
  out.text = std::move(text);
  out.style = style;
  return out;
}

EditNode EditNode::mapping(NodeRef at) {
  EditNode out;
  out.kind = NodeKind::Mapping;
  out.source = at;
  out.made = true;
  return out;
}

EditNode EditNode::sequence(NodeRef at) {
  EditNode out = mapping(at);
  out.kind = NodeKind::Sequence;
  return out;
}

bool EditNode::isNull() const {
  return isScalar() && style == ScalarStyle::Plain &&
         (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL");
}

const EditNode* EditNode::get(std::string_view key) const {
  if (!isMapping()) return nullptr;
  for (std::size_t i = 0; i + 1 < children.size(); i += 2)
    if (children[i].isScalar() && children[i].text == key) return &children[i + 1];
  return nullptr;
}

EditNode* EditNode::get(std::string_view key) {
  return const_cast<EditNode*>(static_cast<const EditNode*>(this)->get(key));
}

EditNode& EditNode::set(std::string_view key, EditNode value) {
  if (EditNode* existing = get(key)) {
    *existing = std::move(value);
    return *existing;
  }
  NodeRef at = value.source;
  children.push_back(
      scalar(std::string(key), at, plainIsString(key) ? ScalarStyle::Plain : ScalarStyle::Quoted));
  children.push_back(std::move(value));
  return children.back();
}

bool EditNode::erase(std::string_view key) {
  if (!isMapping()) return false;
  for (std::size_t i = 0; i + 1 < children.size(); i += 2)
    if (children[i].isScalar() && children[i].text == key) {
      children.erase(children.begin() + static_cast<std::ptrdiff_t>(i),
                     children.begin() + static_cast<std::ptrdiff_t>(i) + 2);
      return true;
    }
  return false;
}

EditNode& EditNode::child(std::string_view key, NodeRef at) {
  EditNode* existing = get(key);
  if (existing && existing->isMapping()) return *existing;
  return set(key, mapping(at));
}

class EditBuilder {
 public:
  EditBuilder(Tree& tree, const std::function<std::string(const Tree*)>& pathOf)
      : tree_(tree), pathOf_(pathOf) {}

  std::uint32_t add(const EditNode& e) {
    Node n;
    n.start = e.source.start();
    n.end = e.made ? e.source.start() : e.source.end();
    n.kind = e.kind;
    n.style = e.style;
    n.origin = originOf(e.source);
    if (e.made) n.flags |= Node::kSynthesized;
    if (e.isScalar()) {
      n.first = static_cast<std::uint32_t>(tree_.added_.size());
      n.count = static_cast<std::uint32_t>(e.text.size());
      n.flags |= Node::kAddedText;
      tree_.added_.append(e.text);
    } else {
      std::vector<std::uint32_t> children;
      children.reserve(e.children.size());
      for (const EditNode& c : e.children) children.push_back(add(c));
      n.first = static_cast<std::uint32_t>(tree_.children_.size());
      n.count = static_cast<std::uint32_t>(children.size());
      tree_.children_.insert(tree_.children_.end(), children.begin(), children.end());
    }
    tree_.nodes_.push_back(n);
    return static_cast<std::uint32_t>(tree_.nodes_.size() - 1);
  }

  void finish(std::uint32_t root, Mark start) { tree_.documents_.push_back({root, start}); }

 private:
  // A piece of a tree built before (an object patched again by an overlay) keeps the file it
  // came from there; any other, its tree's file.
  std::uint8_t originOf(NodeRef source) {
    if (!source) return 0;
    std::string path(source.tree()->originOf(source));
    if (path.empty()) {
      auto [it, added] = treePaths_.try_emplace(source.tree());
      if (added) it->second = pathOf_(source.tree());
      path = it->second;
    }
    if (path.empty()) return 0;
    auto [it, added] = indexes_.try_emplace(path, 0);
    if (!added) return it->second;
    if (tree_.origins_.size() >= 255) return 0;
    tree_.origins_.push_back(path);
    return it->second = static_cast<std::uint8_t>(tree_.origins_.size());
  }

  Tree& tree_;
  const std::function<std::string(const Tree*)>& pathOf_;
  std::map<const Tree*, std::string> treePaths_;
  std::map<std::string, std::uint8_t> indexes_;
};

std::unique_ptr<Tree> build(const EditNode& root,
                            const std::function<std::string(const Tree*)>& pathOf) {
  auto tree = std::make_unique<Tree>(std::string());
  EditBuilder builder(*tree, pathOf);
  builder.finish(builder.add(root), root.source.start());
  return tree;
}

}  // namespace pg::yaml
