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

std::size_t applyDefaults(yaml::Tree& tree, const model::Resource& object,
                          const VersionSchema& version) {
  if (!version.root || !version.root->hasDefaults || object.node.tree() != &tree) return 0;
  std::size_t added = 0;
  const Node& root = *version.root;
  // Top-level fields other than metadata and status, which the API server does not default
  // from the kind's schema here (metadata is ObjectMeta's; status is a subresource).
  for (const auto& [name, property] : root.properties) {
    if (name == "metadata" || name == "status" || name == "apiVersion" || name == "kind")
      continue;
    if (property->defaultValue && !object.node.keyNode(name)) {
      tree.addEntry(object.node, name, property->defaultValue);
      ++added;
    }
  }
  const std::size_t entries = object.node.size();
  for (std::size_t i = 0; i < entries; ++i) {
    std::string_view key = object.node.keyAt(i).str();
    if (key == "metadata" || key == "status") continue;
    if (const Node* p = root.property(key)) added += fill(tree, object.node.valueAt(i), *p, 1);
  }
  return added;
}

std::size_t applyAllDefaults(const std::vector<std::unique_ptr<model::SourceFile>>& files,
                             const std::vector<model::Resource>& objects,
                             const std::vector<bool>& refused, const Registry& registry,
                             unsigned jobs) {
  // The objects of each file, in order (they share its tree, which one thread edits).
  std::unordered_map<const yaml::Tree*, std::size_t> fileOf;
  for (std::size_t f = 0; f < files.size(); ++f)
    if (files[f]->tree) fileOf.emplace(files[f]->tree.get(), f);
  std::vector<std::vector<std::size_t>> perFile(files.size());
  for (std::size_t i = 0; i < objects.size(); ++i) {
    const model::Resource& r = objects[i];
    if (r.universal || r.kind.empty() || (i < refused.size() && refused[i])) continue;
    auto it = fileOf.find(r.node.tree());
    if (it != fileOf.end()) perFile[it->second].push_back(i);
  }
  std::vector<std::size_t> added(files.size(), 0);
  unsigned workers = model::workersFor(jobs, files.size(), 16);
  model::parallelFor(workers, files.size(), [&](std::size_t f, unsigned) {
    for (std::size_t i : perFile[f]) {
      const model::Resource& r = objects[i];
      const KindSchema* kind = registry.find(r.group, r.kind);
      const VersionSchema* version = kind ? kind->version(r.version) : nullptr;
      if (version) added[f] += applyDefaults(*files[f]->tree, r, *version);
    }
  });
  std::size_t total = 0;
  for (std::size_t n : added) total += n;
  return total;
}

}  // namespace pg::schema
