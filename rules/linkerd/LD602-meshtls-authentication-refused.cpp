#include "rules/linkerd/linkerd_rules.h"

namespace pg::rules {
namespace {

void check(Context& ctx) {
  linkerdrules::checkKind(ctx, "MeshTLSAuthentication",
                          policy::linkerd::refuseMeshTlsAuthentication);
}

}  // namespace

PG_RULE(LD602, "meshtls-authentication-refused", "linkerd", Error,
        "Linkerd refuses a MeshTLSAuthentication: identities and identityRefs, an invalid "
        "identity or identityRef",
        "MeshTLSAuthentication", check)

}  // namespace pg::rules
