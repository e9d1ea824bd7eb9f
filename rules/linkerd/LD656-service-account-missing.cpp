#include "rules/linkerd/linkerd_rules.h"

namespace pg::rules {
namespace {

// A ServiceAccount an identity names, checked only in namespaces whose ServiceAccounts the input
// holds: elsewhere they are managed outside the repository.
void checkAccount(Context& ctx, const model::Resource& r, yaml::NodeRef ref,
                  std::string_view namespace_) {
  const model::Store& store = ctx.store();
  std::string_view name = ref.get("name").str();
  if (name.empty() || store.find("", "ServiceAccount", namespace_, name)) return;
  bool managed = false;
  for (const model::Resource* sa : store.ofKind("", "ServiceAccount"))
    managed = managed || sa->namespace_ == namespace_;
  if (!managed) return;
  ctx.report(r.locateField(ref, "name"),
             r.display() + " names a missing ServiceAccount " + std::string(namespace_) + "/" +
                 std::string(name) +
                 ": it is not in the input though the namespace's other ServiceAccounts "
                 "are, so no workload runs with that identity and the clients it should admit "
                 "are not admitted; fix the name or namespace, or add the ServiceAccount",
             &r)
      .discriminator = std::string(namespace_) + "/" + std::string(name);
}

void check(Context& ctx) {
  namespace ld = policy::linkerd;
  const analysis::Analysis& a = ctx.analysis();
  auto namespaceOf = [](const model::Resource& r, yaml::NodeRef ref) {
    std::string_view ns = ref.get("namespace").str();
    return ns.empty() ? r.namespace_ : ns;
  };
  auto isAccount = [](yaml::NodeRef ref) {
    std::string_view group = ref.get("group").str();
    return ref.get("kind").str() == "ServiceAccount" && (group.empty() || group == "core");
  };
  for (const model::Resource* r : a.store.ofKind(ld::kPolicyGroup, "AuthorizationPolicy"))
    if (!linkerdrules::refused(a, *r))
      for (yaml::NodeRef ref : r->spec().get("requiredAuthenticationRefs").items())
        if (isAccount(ref)) checkAccount(ctx, *r, ref, namespaceOf(*r, ref));
  for (const model::Resource* r : a.store.ofKind(ld::kPolicyGroup, "MeshTLSAuthentication"))
    if (!linkerdrules::refused(a, *r))
      for (yaml::NodeRef ref : r->spec().get("identityRefs").items())
        if (isAccount(ref)) checkAccount(ctx, *r, ref, namespaceOf(*r, ref));
  for (const model::Resource* r : a.store.ofKind(ld::kPolicyGroup, "ServerAuthorization"))
    if (!linkerdrules::refused(a, *r))
      for (yaml::NodeRef ref :
           r->spec().get("client").get("meshTLS").get("serviceAccounts").items())
        checkAccount(ctx, *r, ref, namespaceOf(*r, ref));
}

}  // namespace

PG_RULE(LD656, "service-account-missing", "linkerd", Warning,
        "A Linkerd authentication names a ServiceAccount missing from a namespace whose "
        "ServiceAccounts the input holds",
        "AuthorizationPolicy,MeshTLSAuthentication,ServerAuthorization", check)

}  // namespace pg::rules
