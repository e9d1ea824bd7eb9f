// fuzz_loader: bytes → one file's load (encoding checks, YAML parse, splitting into objects)
// → Store::build, then a walk over every node of every document. Besides what the sanitizers
// catch, it checks the promises later stages rely on: positions are known, aliases expand no
// further than the limit allows, and every indexed object can be found by its key.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "lib/config/config.h"
#include "lib/load/loader.h"
#include "lib/model/resource.h"
#include "lib/model/store.h"
#include "lib/yaml/tree.h"

namespace {

namespace yaml = pg::yaml;

// Small limits, so alias bombs and deep nesting hit them fast instead of timing out.
pg::config::Limits fuzzLimits() {
  pg::config::Limits limits;
  limits.maxFileBytes = 1 << 20;
  limits.maxDepth = 64;
  limits.maxAliasExpansion = 10000;
  return limits;
}

// A failed invariant: abort, so libFuzzer keeps the input.
void require(bool condition) {
  if (!condition) std::abort();
}

// Reads every byte a view points at, so ASan sees any view into freed or foreign memory.
std::size_t touch(std::string_view text) {
  std::size_t sum = 0;
  for (char c : text) sum += static_cast<unsigned char>(c);
  return sum;
}

bool validMark(yaml::Mark m) {
  return m.line >= 1 && m.column >= 1;
}

// Visits the document as its readers do, following aliases into the nodes they share; the
// parser promises at most `budget` visits (written nodes plus the alias limit).
std::size_t walk(yaml::NodeRef root, std::size_t budget) {
  std::size_t visits = 0;
  std::size_t sum = 0;
  std::vector<yaml::NodeRef> stack{root};
  while (!stack.empty()) {
    yaml::NodeRef node = stack.back();
    stack.pop_back();
    require(++visits <= budget);
    require(validMark(node.start()) && validMark(node.end()));
    if (node.isScalar()) {
      sum += touch(node.str());
      sum += node.isNull() + node.isString() + node.asBool().has_value() + node.asInt().has_value();
      continue;
    }
    if (node.isMapping()) {
      for (auto [key, value] : node.entries()) {
        require(key && value);
        // A lookup by a key's own text finds an entry with that key (the first of equals).
        if (key.isScalar()) require(node.keyNode(key.str()).str() == key.str());
        stack.push_back(key);
        stack.push_back(value);
      }
      continue;
    }
    require(node.isSequence());
    for (yaml::NodeRef item : node.items()) stack.push_back(item);
    require(!node.at(node.size()));
  }
  return sum;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const pg::config::Limits limits = fuzzLimits();
  pg::load::FileResult result = pg::load::loadText(
      "fuzz.yaml", std::string(reinterpret_cast<const char*>(data), size), limits);
  for (const pg::load::Problem& p : result.problems) {
    require(p.location.path == "fuzz.yaml");
    require(validMark(p.location.start) && validMark(p.location.end));
    require(!p.message.empty());
  }

  std::size_t sum = 0;
  if (const yaml::Tree* tree = result.file->tree.get()) {
    const std::size_t documents = tree->documents().size();
    const std::size_t budget = tree->nodeCount() + documents * limits.maxAliasExpansion;
    for (std::size_t d = 0; d < documents; ++d) sum += walk(tree->root(d), budget);
    require(!tree->root(documents));
  } else {
    require(result.resources.empty());
  }

  for (const pg::model::Resource& r : result.resources) {
    require(r.file == result.file.get());
    require(r.node.isMapping() && !r.kind.empty() && !r.name.empty());
  }
  pg::model::Store store;
  store.build(std::move(result.resources));
  for (const pg::model::Resource& r : store.all()) {
    // Each object, or the first of its duplicates, is found by its own key: a Kuma Universal
    // object's holds its mesh, and no namespace.
    if (r.universal) {
      const std::vector<const pg::model::Resource*> found =
          store.findInMesh(r.kind, r.mesh, r.name);
      require(!found.empty());
      for (const pg::model::Resource* f : found)
        require(f->name == r.name && f->kind == r.kind && f->mesh == r.mesh);
    } else {
      const pg::model::Resource* found = store.find(r.group, r.kind, r.namespace_, r.name);
      require(found != nullptr);
      require(found->name == r.name && found->kind == r.kind);
    }
    sum += touch(r.display());
    pg::model::Location at = r.locateField(r.universal ? r.node : r.metadata(), "name");
    require(validMark(at.start));
    for (auto [key, value] : r.labels().entries()) sum += touch(key.str()) + touch(value.str());
  }
  for (const pg::model::Store::Duplicate& d : store.duplicates())
    require(d.first->name == d.second->name);
  // Keeps `sum` alive without printing anything.
  volatile std::size_t sink = sum;
  (void)sink;
  return 0;
}
