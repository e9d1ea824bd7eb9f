// What is wrong with the Kuma objects of an input, the way the KM5xx rules report it: targetRef
// kinds a policy type does not allow, targets that match nothing, namespace-scoped policies
// that reach outside their namespace or mix roles, objects in a mesh the input lacks, and confs
// Kuma's validators reject. Rules only read these problems.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lib/graph/kuma.h"
#include "lib/model/store.h"
#include "lib/policy/kuma/kuma.h"

namespace pg::policy::kuma {

enum class Check {
  TargetKind,        // a targetRef kind (or a section) the policy type does not allow
  TargetMissing,     // a targetRef that matches no proxy or names no object
  OutsideNamespace,  // an application-namespace policy whose top-level targetRef names another
                     // namespace's proxies: it selects nothing there
  RoleMix,           // producer and consumer `to` items together, or `to` with `from`
  MeshMissing,       // an object of a mesh the input has no Mesh for
  InvalidConf,       // a conf Kuma's validator rejects
  SameRank,          // two policies of one rank set one field for one proxy: names decide
  NeverEffective,    // an item whose every field later policies override on every proxy
};

struct Problem {
  Check check = Check::TargetKind;
  const model::Resource* resource = nullptr;
  yaml::NodeRef map;     // the mapping holding the field at fault
  std::string_view key;  // the field; empty: `map` itself is at fault
  std::string message;
  std::string discriminator;  // tells two problems of one object and check apart
};

// The targetRef kinds a policy type allows per section; an empty list: the section does not
// exist for the type. Nullptr for a type the table does not describe.
struct AllowedKinds {
  std::string_view type;
  std::vector<std::string_view> top, to, from;
  bool rules = false;  // `rules:` (entries without targetRef)
  // A top-level MeshGateway or MeshHTTPRoute only in a system policy (Kuma's validators switch
  // on the policy role; the namespace MADR, *Referencing MeshGateway*).
  bool gatewayOnlyForSystem = false;
};
const AllowedKinds* allowedKinds(std::string_view type);

// Every problem of every Kuma object of the store, in store order.
std::vector<Problem> validate(const model::Store& store, const graph::kuma::Topology& topology,
                              const Settings& settings);

}  // namespace pg::policy::kuma
