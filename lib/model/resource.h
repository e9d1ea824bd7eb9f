// One Kubernetes object read from a file: its identity as string views into the file's tree,
// the tree node of the whole object, and where it came from.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lib/model/object_ref.h"
#include "lib/model/source.h"
#include "lib/yaml/tree.h"

namespace pg::model {

struct Resource {
  std::string_view apiVersion;
  std::string_view group;
  std::string_view version;
  std::string_view kind;
  std::string_view namespace_;  // resolved by the Store: "" when cluster-scoped
  std::string_view name;
  yaml::NodeRef node;  // the object (a mapping)
  const SourceFile* file = nullptr;
  std::uint32_t document = 0;     // index of the YAML document in the file
  bool namespaceWritten = false;  // metadata.namespace is in the manifest
  // Kuma: the object's mesh (Universal `mesh:`, else the `kuma.io/mesh` label or `default` on
  // kuma.io kinds; "" on a Mesh and on everything else). Part of a Universal object's identity.
  std::string_view mesh;
  // A Kuma Universal document: `type`, `name`, `mesh` and `labels` at the top level, no
  // apiVersion, kind or metadata.
  bool universal = false;

  // `metadata` and `spec` of `node`, found once by the Store (every stage reads them, and a
  // lookup scans the object's top-level keys); until then, or when absent, looked up.
  yaml::NodeRef metadataNode;
  yaml::NodeRef specNode;

  bool clusterScoped() const { return namespace_.empty(); }
  yaml::NodeRef metadata() const { return metadataNode ? metadataNode : node.get("metadata"); }
  yaml::NodeRef spec() const { return specNode ? specNode : node.get("spec"); }
  yaml::NodeRef labels() const { return universal ? node.get("labels") : metadata().get("labels"); }
  std::string_view label(std::string_view key) const { return labels().get(key).str(); }
  std::string_view annotation(std::string_view key) const {
    return metadata().get("annotations").get(key).str();
  }

  ObjectRef ref() const;
  std::string display() const;  // Kind/namespace/name (Universal: Kind/name, `in mesh M`)

  // The file a node of this object was read from: `file`, unless a tool on the way to the
  // cluster brought the node in from another (a kustomize patch, a generator's entry).
  std::string pathOf(yaml::NodeRef at) const;
  // The span of one node of this object (a missing node falls back to the object itself).
  Location locate(yaml::NodeRef at) const;
  // The span of a mapping entry, from its key to the end of its value; falls back to the
  // mapping when the key is absent, so a finding about a missing field points at its parent.
  Location locateField(yaml::NodeRef map, std::string_view key) const;
};

// Kinds without a namespace: built in, extended by CustomResourceDefinitions in the input.
bool isBuiltinClusterScoped(std::string_view group, std::string_view kind);

}  // namespace pg::model
