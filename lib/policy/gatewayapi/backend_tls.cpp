#include "lib/policy/gatewayapi/gatewayapi.h"

namespace pg::policy::gatewayapi {

void writeBackendTlsStatus(Policy& policy, FamilyContext& context) {
  (void)policy;
  (void)context;
}

}  // namespace pg::policy::gatewayapi
