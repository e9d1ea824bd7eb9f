#include "lib/policy/family.h"

namespace pg::policy::kuadrant {

void readBlocks(Policy& policy) {
  (void)policy;
}
void writeStatus(FamilyContext& context) {
  (void)context;
}
Effective effective(const Profile& profile, const Path& path,
                    const std::vector<Contribution>& contributions) {
  (void)profile;
  (void)path;
  (void)contributions;
  return {};
}

}  // namespace pg::policy::kuadrant
