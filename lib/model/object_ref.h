// The identity of a Kubernetes object, as references and reports name it.
#pragma once

#include <string>
#include <string_view>

namespace pg::model {

struct ObjectRef {
  std::string group;  // "" for the core group
  std::string kind;
  std::string namespace_;  // "" for cluster-scoped objects
  std::string name;
  std::string sectionName;  // a listener, route rule or port; "" for the whole object

  // `Kind/namespace/name`, or `Kind/name` when cluster-scoped; `#section` appended if set.
  std::string display() const;
  bool operator==(const ObjectRef&) const = default;
  auto operator<=>(const ObjectRef&) const = default;
};

// Splits `gateway.networking.k8s.io/v1` into group and version (`v1` has the core group "").
struct GroupVersion {
  std::string_view group;
  std::string_view version;
};
GroupVersion splitApiVersion(std::string_view apiVersion);

// `Kind/namespace/name` or `Kind/name`; returns false when `text` has neither shape.
bool parseDisplayRef(std::string_view text, std::string& kind, std::string& namespace_,
                     std::string& name);

}  // namespace pg::model
