// Every object of the input, indexed by kind, namespace, name and label. Built once, then
// read-only: every later stage looks objects up here.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lib/model/resource.h"
#include "lib/model/selector.h"

namespace pg::model {

class Store {
 public:
  // Two objects with the same identity, in file order. The later one replaces the earlier,
  // as `kubectl apply -f` on the folder would: `first` is not indexed. With three
  // definitions there are two pairs, each naming the one before it.
  struct Duplicate {
    const Resource* first;
    const Resource* second;
  };

  // An object the API server would refuse (it fails schema validation): it is kept out of
  // every index, so that no stage simulates it, and its dependents ask `refusal()` why the
  // object they name is missing.
  struct Refusal {
    const Resource* object;
    std::string why;  // "it fails schema validation (see IN121 at routes.yaml:12:7)"
    // "HTTPRoute shop/checkout is not applied: it fails schema validation (see ...)"
    std::string notApplied() const;
  };

  explicit Store(std::string defaultNamespace = "default");
  Store(Store&&) = default;
  Store& operator=(Store&&) = default;

  // Adds objects in file order, then resolves namespaces (CustomResourceDefinitions in the
  // input declare which kinds are cluster-scoped) and builds the indexes. What each object
  // needs alone (its namespace, identity and labels) is worked out on `jobs` threads; the
  // indexes are filled on one, in file order.
  // `refusals[i]`, when given and not empty, says why the API server would refuse
  // `resources[i]`: the object is then not indexed (an earlier accepted definition of the same
  // object stays, as the cluster keeps it) and `refusal()` finds it.
  // A kind that a CRD of the cluster makes cluster-scoped, though the CRD is not among the
  // objects built (installed by another unit of the run). Call before build().
  void addClusterScopedKind(std::string group, std::string kind) {
    clusterScopedCrds_.emplace_back(std::move(group), std::move(kind));
  }
  void build(std::vector<Resource> resources, unsigned jobs = 1,
             std::vector<std::string> refusals = {});

  // Every definition read, duplicates included, in file order.
  const std::vector<Resource>& all() const { return resources_; }
  // Every object once, as the cluster would hold it (of duplicates, the later), in file order.
  std::span<const Resource* const> objects() const { return indexed_; }
  std::size_t size() const { return resources_.size(); }

  // Every indexed object of a kind, whatever its group, in file order.
  std::span<const Resource* const> ofKind(std::string_view kind) const;
  std::vector<const Resource*> ofKind(std::string_view group, std::string_view kind) const;
  const Resource* find(std::string_view group, std::string_view kind, std::string_view namespace_,
                       std::string_view name) const;
  // By kind alone, for references that name no group (REF arguments, `Kind/ns/name`).
  std::vector<const Resource*> findByKind(std::string_view kind, std::string_view namespace_,
                                          std::string_view name) const;
  // A Kuma object by kind, mesh and name (Universal, or Kubernetes-form in any namespace).
  std::vector<const Resource*> findInMesh(std::string_view kind, std::string_view mesh,
                                          std::string_view name) const;
  std::span<const Resource* const> inNamespace(std::string_view namespace_) const;
  // Objects of `kind` carrying label key=value (a fast first cut for selectors).
  std::vector<const Resource*> withLabel(std::string_view key, std::string_view value) const;
  // Objects of `kind` in `namespace_` ("" for any) whose labels the selector matches.
  std::vector<const Resource*> select(std::string_view kind, std::string_view namespace_,
                                      const LabelSelector& selector) const;

  // The refused object of this identity, when the input defines one and no accepted one
  // takes its place; null otherwise.
  const Refusal* refusal(std::string_view group, std::string_view kind,
                         std::string_view namespace_, std::string_view name) const;
  // By kind alone, like findByKind.
  const Refusal* refusalByKind(std::string_view kind, std::string_view namespace_,
                               std::string_view name) const;
  // Every refused definition, in file order.
  const std::vector<Refusal>& refusals() const { return refusals_; }

  const std::vector<Duplicate>& duplicates() const { return duplicates_; }
  bool isClusterScoped(std::string_view group, std::string_view kind) const;

 private:
  struct PairHash {
    std::size_t operator()(const std::pair<std::string_view, std::string_view>& p) const;
  };
  // An object's identity as views (into the trees and defaultNamespace_), so that looking
  // one up allocates nothing. Identities are the same when group, kind, namespace, name and
  // mesh joined by NULs are: a name may hold a NUL of its own. The mesh is set only for Kuma
  // Universal objects, which have no namespace and whose names are unique per mesh.
  struct Identity {
    Identity(std::string_view group, std::string_view kind, std::string_view namespace_,
             std::string_view name, std::string_view mesh = {});
    std::array<std::string_view, 5> parts;  // group, kind, namespace, name, mesh
    std::size_t hash;                       // computed once, by the constructor
    bool hasNul() const;
    std::string joined() const;
  };
  struct IdentityHash {
    std::size_t operator()(const Identity& id) const;
  };
  struct IdentityEqual {
    bool operator()(const Identity& a, const Identity& b) const;
  };

  std::unique_ptr<std::string> defaultNamespace_;  // resources view into it
  std::vector<Resource> resources_;
  std::vector<const Resource*> indexed_;
  std::unordered_map<Identity, const Resource*, IdentityHash, IdentityEqual> byKey_;
  std::unordered_map<std::string_view, std::vector<const Resource*>> byKind_;
  std::unordered_map<std::string_view, std::vector<const Resource*>> byNamespace_;
  std::unordered_map<std::pair<std::string_view, std::string_view>, std::vector<const Resource*>,
                     PairHash>
      byLabel_;
  std::vector<std::pair<std::string, std::string>> clusterScopedCrds_;  // group, kind
  std::vector<Duplicate> duplicates_;
  std::vector<Refusal> refusals_;
  // The refused definitions no accepted one replaces (the later of two refused ones).
  std::unordered_map<Identity, std::size_t, IdentityHash, IdentityEqual> byRefusedKey_;
};

}  // namespace pg::model
