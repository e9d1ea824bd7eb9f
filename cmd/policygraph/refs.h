// Looking up the objects a command-line REF names.
#pragma once

#include <string>

#include "lib/analysis/analysis.h"

namespace pg::cli {

// The object REF (`Kind/namespace/name`, split into its parts) names; a REF that names nothing
// is a usage error saying what objects of that kind exist, or, for an object the API server
// would refuse, why it is not simulated.
const model::Resource& resolveRef(const analysis::Analysis& a, const std::string& ref,
                                  const std::string& kind, const std::string& namespace_,
                                  const std::string& name);

// Whether the unit `a` holds an object REF names (by kind, namespace and name, as resolveRef
// looks it up; or refuses one, so that resolveRef can say why).
bool holdsRef(const analysis::Analysis& a, const std::string& kind, const std::string& namespace_,
              const std::string& name);

}  // namespace pg::cli
