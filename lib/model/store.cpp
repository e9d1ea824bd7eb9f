#include "lib/model/store.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>

#include "lib/model/hash.h"
#include "lib/model/parallel.h"

namespace pg::model {

Store::Store(std::string defaultNamespace)
    : defaultNamespace_(std::make_unique<std::string>(std::move(defaultNamespace))) {}

std::size_t Store::PairHash::operator()(
    const std::pair<std::string_view, std::string_view>& p) const {
  std::size_t h = std::hash<std::string_view>()(p.first);
  return h ^
         (std::hash<std::string_view>()(p.second) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

bool Store::Identity::hasNul() const {
  return std::any_of(parts.begin(), parts.end(),
                     [](std::string_view p) { return p.find('\0') != std::string_view::npos; });
}

std::string Store::Identity::joined() const {
  std::string k;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) k.append(1, '\0');
    k.append(parts[i]);
  }
  return k;
}

namespace {

// A word with the high bit set in each byte of `w` that is zero.
inline std::uint64_t zeroBytes(std::uint64_t w) {
  constexpr std::uint64_t kLow = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  return (w - kLow) & ~w & kHigh;
}

// Mixes `text` into `h` eight bytes at a time, and says whether it holds a NUL byte: one pass
// over each part of an identity (lookups build one for every reference resolved).
inline std::uint64_t mixPart(std::uint64_t h, std::string_view text, bool& nul) {
  std::size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, text.data() + i, 8);
    nul = nul || zeroBytes(w) != 0;
    h = mixWord(h, w);
  }
  if (i < text.size()) {
    std::uint64_t w = ~std::uint64_t{0};  // the padding is never a NUL
    std::memcpy(&w, text.data() + i, text.size() - i);
    nul = nul || zeroBytes(w) != 0;
    h = mixWord(h, w);
  }
  return mixWord(h, text.size());  // the part's length ends it: parts cannot run into each other
}

// Whether two parts are the same bytes, eight at a time and without a call: equal hashes
// nearly always mean equal identities, so every lookup that finds compares all five parts.
inline bool samePart(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  const char* p = a.data();
  const char* q = b.data();
  std::size_t n = a.size();
  for (; n >= 8; n -= 8, p += 8, q += 8) {
    std::uint64_t x = 0;
    std::uint64_t y = 0;
    std::memcpy(&x, p, 8);
    std::memcpy(&y, q, 8);
    if (x != y) return false;
  }
  for (; n != 0; --n)
    if (*p++ != *q++) return false;
  return true;
}

}  // namespace

// Identities with a NUL inside a part are hashed and compared joined: only they can join to
// the same bytes as an identity cut differently (and then both have one).
Store::Identity::Identity(std::string_view group, std::string_view kind,
                          std::string_view namespace_, std::string_view name, std::string_view mesh)
    : parts{group, kind, namespace_, name, mesh}, hash(0) {
  bool nul = false;
  std::uint64_t h = kHashSeed;
  for (std::string_view p : parts) h = mixPart(h, p, nul);
  if (nul) {
    hash = std::hash<std::string>()(joined());
    return;
  }
  hash = static_cast<std::size_t>(h);
}

std::size_t Store::IdentityHash::operator()(const Identity& id) const {
  return id.hash;
}

bool Store::IdentityEqual::operator()(const Identity& a, const Identity& b) const {
  if (a.hash != b.hash) return false;
  if (std::equal(a.parts.begin(), a.parts.end(), b.parts.begin(), samePart)) return true;
  return a.hasNul() && b.hasNul() && a.joined() == b.joined();
}

bool Store::isClusterScoped(std::string_view group, std::string_view kind) const {
  if (isBuiltinClusterScoped(group, kind)) return true;
  return std::any_of(clusterScopedCrds_.begin(), clusterScopedCrds_.end(),
                     [&](const auto& c) { return c.first == group && c.second == kind; });
}

std::string Store::Refusal::notApplied() const {
  return object->kind.empty() ? why
                              : std::string(object->kind) + " " +
                                    (object->namespace_.empty()
                                         ? std::string(object->name)
                                         : std::string(object->namespace_) + "/" +
                                               std::string(object->name)) +
                                    " is not applied: " + why;
}

void Store::build(std::vector<Resource> resources, unsigned jobs,
                  std::vector<std::string> refusals) {
  resources_ = std::move(resources);
  refusals.resize(resources_.size());
  for (const Resource& r : resources_) {
    if (r.kind != "CustomResourceDefinition" || r.group != "apiextensions.k8s.io") continue;
    yaml::NodeRef spec = r.spec();
    if (spec.get("scope").str() == "Cluster")
      clusterScopedCrds_.emplace_back(spec.get("group").str(), spec.get("names").get("kind").str());
  }
  // Each object's namespace, identity (with its hash) and labels, in its own slot.
  const std::size_t n = resources_.size();
  std::vector<Identity> keys(n, Identity({}, {}, {}, {}));
  std::vector<yaml::NodeRef> labels(n);
  parallelFor(workersFor(jobs, n, 1024), n, [&](std::size_t i, unsigned) {
    Resource& r = resources_[i];
    // After the schema stage has added its defaults: the tree no longer changes.
    r.metadataNode = r.node.get("metadata");
    r.specNode = r.node.get("spec");
    labels[i] = r.labels();
    if (r.universal) {  // no namespace; the mesh was read by the loader
      keys[i] = Identity(r.group, r.kind, {}, r.name, r.mesh);
      return;
    }
    if (isClusterScoped(r.group, r.kind)) {
      r.namespace_ = {};
    } else if (!r.namespaceWritten || r.namespace_.empty()) {
      r.namespace_ = *defaultNamespace_;
    }
    if (r.group == "kuma.io" && r.kind != "Mesh") {
      yaml::NodeRef mesh = labels[i].get("kuma.io/mesh");
      r.mesh = mesh.isString() && !mesh.str().empty() ? mesh.str() : std::string_view("default");
    }
    keys[i] = Identity(r.group, r.kind, r.namespace_, r.name);
  });
  // `kubectl apply -f` on the folder applies files in path order and documents in file
  // order: of two definitions of one object, the later is what the cluster keeps. Winners
  // are settled first, so that the indexes list each object once, at its winner's place.
  byKey_.reserve(n);
  std::vector<bool> wins(n, true);
  for (std::size_t i = 0; i < n; ++i) {
    if (!refusals[i].empty()) {
      // The API server refuses it: whatever it holds of this object stays as it was.
      wins[i] = false;
      byRefusedKey_.insert_or_assign(keys[i], refusals_.size());
      refusals_.push_back({&resources_[i], std::move(refusals[i])});
      continue;
    }
    auto [it, inserted] = byKey_.emplace(keys[i], &resources_[i]);
    if (inserted) continue;
    duplicates_.push_back({it->second, &resources_[i]});
    wins[static_cast<std::size_t>(it->second - resources_.data())] = false;
    it->second = &resources_[i];
  }
  indexed_.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!wins[i]) continue;
    const Resource& r = resources_[i];
    indexed_.push_back(&r);
    byKind_[r.kind].push_back(&r);
    if (!r.namespace_.empty()) byNamespace_[r.namespace_].push_back(&r);
    for (auto [k, v] : labels[i].entries()) byLabel_[{k.str(), v.str()}].push_back(&r);
  }
}

const Store::Refusal* Store::refusal(std::string_view group, std::string_view kind,
                                     std::string_view namespace_, std::string_view name) const {
  if (byRefusedKey_.empty()) return nullptr;
  if (isClusterScoped(group, kind)) namespace_ = {};
  Identity id(group, kind, namespace_, name);
  if (byKey_.contains(id)) return nullptr;
  auto it = byRefusedKey_.find(id);
  return it == byRefusedKey_.end() ? nullptr : &refusals_[it->second];
}

const Store::Refusal* Store::refusalByKind(std::string_view kind, std::string_view namespace_,
                                           std::string_view name) const {
  for (auto it = refusals_.rbegin(); it != refusals_.rend(); ++it) {
    const Resource& r = *it->object;
    if (r.kind == kind && r.name == name && r.namespace_ == namespace_ &&
        !byKey_.contains(Identity(r.group, r.kind, r.namespace_, r.name)))
      return &*it;
  }
  return nullptr;
}

std::span<const Resource* const> Store::ofKind(std::string_view kind) const {
  auto it = byKind_.find(kind);
  if (it == byKind_.end()) return {};
  return it->second;
}

std::vector<const Resource*> Store::ofKind(std::string_view group, std::string_view kind) const {
  std::vector<const Resource*> out;
  for (const Resource* r : ofKind(kind))
    if (r->group == group) out.push_back(r);
  return out;
}

const Resource* Store::find(std::string_view group, std::string_view kind,
                            std::string_view namespace_, std::string_view name) const {
  if (isClusterScoped(group, kind)) namespace_ = {};
  auto it = byKey_.find(Identity(group, kind, namespace_, name));
  return it == byKey_.end() ? nullptr : it->second;
}

std::vector<const Resource*> Store::findByKind(std::string_view kind, std::string_view namespace_,
                                               std::string_view name) const {
  std::vector<const Resource*> out;
  for (const Resource* r : ofKind(kind))
    if (r->name == name && r->namespace_ == namespace_) out.push_back(r);
  return out;
}

std::vector<const Resource*> Store::findInMesh(std::string_view kind, std::string_view mesh,
                                               std::string_view name) const {
  std::vector<const Resource*> out;
  for (const Resource* r : ofKind(kind))
    if (r->group == "kuma.io" && r->name == name && r->mesh == mesh) out.push_back(r);
  return out;
}

std::span<const Resource* const> Store::inNamespace(std::string_view namespace_) const {
  auto it = byNamespace_.find(namespace_);
  if (it == byNamespace_.end()) return {};
  return it->second;
}

std::vector<const Resource*> Store::withLabel(std::string_view key, std::string_view value) const {
  auto it = byLabel_.find({key, value});
  if (it == byLabel_.end()) return {};
  return it->second;
}

std::vector<const Resource*> Store::select(std::string_view kind, std::string_view namespace_,
                                           const LabelSelector& selector) const {
  std::vector<const Resource*> out;
  for (const Resource* r : ofKind(kind)) {
    if (!namespace_.empty() && r->namespace_ != namespace_) continue;
    if (selector.matches(r->labels())) out.push_back(r);
  }
  return out;
}

}  // namespace pg::model
