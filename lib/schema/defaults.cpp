#include "lib/schema/defaults.h"

#include <unordered_map>

#include "lib/model/parallel.h"

namespace pg::schema {

namespace {

// Deeper than any schema policygraph bundles; bounds a schema that refers to itself.
constexpr unsigned kMaxDepth = 64;

std::size_t fill(yaml::Tree& tree, yaml::NodeRef value, const Node& s, unsigned depth) {
  if (!s.hasDefaults || depth > kMaxDepth) return 0;
  std::size_t added = 0;
  if (value.isMapping()) {
    for (const auto& [name, property] : s.properties) {
      if (property->defaultValue && !value.keyNode(name)) {
        tree.addEntry(value, name, property->defaultValue);
        ++added;
      }
    }
    // Every entry, the added ones included: a default gets the defaults of its fields.
    const std::size_t entries = value.size();
    for (std::size_t i = 0; i < entries; ++i) {
      const Node* p = s.property(value.keyAt(i).str());
      if (!p) p = s.additionalProperties;
      if (p) added += fill(tree, value.valueAt(i), *p, depth + 1);
    }
  } else if (value.isSequence() && s.items && s.items->hasDefaults) {
    for (yaml::NodeRef item : value.items()) added += fill(tree, item, *s.items, depth + 1);
  }
  return added;
}

}  // namespace

std::size_t addDefaults(yaml::Tree& tree, const std::vector<DefaultEntry>& entries) {
  std::size_t added = 0;
  for (const DefaultEntry& e : entries) {
    yaml::NodeRef value = tree.addEntry(e.map, e.name, e.property->defaultValue);
    if (!value) continue;
    ++added;
    // A default gets the defaults of its own fields.
    added += fill(tree, value, *e.property, 1);
  }
  return added;
}

std::size_t applyDefaults(yaml::Tree& tree, const model::Resource& object,
                          const VersionSchema& version) {
  if (!version.root || !version.root->hasDefaults || object.node.tree() != &tree) return 0;
  return addDefaults(tree, missingDefaults(object, version));
}

std::size_t applyAllDefaults(const std::vector<model::Resource>& objects,
                             const std::vector<std::vector<DefaultEntry>>& defaults,
                             unsigned jobs) {
  // The objects of each tree, in order (they share it, and one thread edits it).
  std::unordered_map<const yaml::Tree*, std::size_t> treeIndex;
  std::vector<const yaml::Tree*> trees;
  std::vector<std::vector<std::size_t>> perTree;
  for (std::size_t i = 0; i < objects.size() && i < defaults.size(); ++i) {
    if (defaults[i].empty() || !objects[i].node) continue;
    auto [it, added] = treeIndex.try_emplace(objects[i].node.tree(), trees.size());
    if (added) {
      trees.push_back(objects[i].node.tree());
      perTree.emplace_back();
    }
    perTree[it->second].push_back(i);
  }
  std::vector<std::size_t> added(trees.size(), 0);
  unsigned workers = model::workersFor(jobs, trees.size(), 16);
  model::parallelFor(workers, trees.size(), [&](std::size_t t, unsigned) {
    // The schema stage is the one stage that edits the trees it was given (Tree::addEntry),
    // before any later stage reads them; the objects hold them const for every other.
    auto& tree = const_cast<yaml::Tree&>(*trees[t]);
    for (std::size_t i : perTree[t]) added[t] += addDefaults(tree, defaults[i]);
  });
  std::size_t total = 0;
  for (std::size_t n : added) total += n;
  return total;
}

}  // namespace pg::schema
