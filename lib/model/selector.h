// Kubernetes label selectors: `matchLabels` and `matchExpressions` (In, NotIn, Exists,
// DoesNotExist), as Namespaces, Pods and Servers are selected.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/yaml/tree.h"

namespace pg::model {

struct LabelRequirement {
  enum class Operator { In, NotIn, Exists, DoesNotExist };
  std::string key;
  Operator op = Operator::In;
  std::vector<std::string> values;
};

class LabelSelector {
 public:
  struct Error {
    yaml::NodeRef at;  // the field at fault
    std::string message;
  };

  // Reads a selector node (`{matchLabels: ..., matchExpressions: [...]}`). An empty or null
  // node gives the selector that matches everything, as in Kubernetes.
  static std::optional<LabelSelector> parse(yaml::NodeRef node, Error* error);
  // A plain map of labels, every one of which must match (Service-style selectors).
  static LabelSelector fromMatchLabels(yaml::NodeRef labels);

  bool matches(yaml::NodeRef labels) const;
  // With one more label than `labels` holds: the `kubernetes.io/metadata.name` label the API
  // server puts on every Namespace, which manifests do not carry.
  bool matches(yaml::NodeRef labels, std::string_view implicitKey,
               std::string_view implicitValue) const;
  bool matchesEverything() const { return requirements_.empty(); }
  // As kubectl writes a selector: `app=web,tier in (a,b),!legacy`; "everything" when empty.
  std::string str() const;
  const std::vector<LabelRequirement>& requirements() const { return requirements_; }

 private:
  std::vector<LabelRequirement> requirements_;
};

}  // namespace pg::model
