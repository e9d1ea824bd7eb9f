// Internal to lib/policy/gatewayapi: the parts of the family with kind-specific rules.
#pragma once

#include "lib/policy/family.h"

namespace pg::policy::gatewayapi {

// BackendTLSPolicy (GEP-1897): ancestors are the Gateways whose routes use the targeted
// Service; a CA certificate reference that does not resolve rejects the policy
// (NoValidCACertificate) and makes those routes' backends unusable (ResolvedRefs False on
// the route, as Envoy Gateway writes it).
void writeBackendTlsStatus(Policy& policy, FamilyContext& context);

}  // namespace pg::policy::gatewayapi
