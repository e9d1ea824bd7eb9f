#include "cmd/policygraph/refs.h"

#include <span>
#include <vector>

#include "cmd/policygraph/cli.h"

namespace pg::cli {

const model::Resource& resolveRef(const analysis::Analysis& a, const std::string& ref,
                                  const std::string& kind, const std::string& namespace_,
                                  const std::string& name) {
  std::vector<const model::Resource*> found = a.store.findByKind(kind, namespace_, name);
  if (!found.empty()) return *found.front();
  if (const model::Store::Refusal* refused = a.store.refusalByKind(kind, namespace_, name))
    throw UsageError(ref + " is not simulated: " + refused->notApplied() +
                     "; the API server would refuse it, so the cluster would not hold it");
  std::string message = ref + " names nothing in the input";
  std::span<const model::Resource* const> same = a.store.ofKind(kind);
  if (same.empty()) throw UsageError(message + ", which has no " + kind + " objects");
  constexpr std::size_t kListed = 20;  // the first ones show the expected spelling
  message += "; " + kind + " objects in it: ";
  for (std::size_t i = 0; i < same.size() && i < kListed; ++i)
    message += (i ? ", " : "") + same[i]->display();
  if (same.size() > kListed) message += " and " + std::to_string(same.size() - kListed) + " more";
  throw UsageError(message);
}

bool holdsRef(const analysis::Analysis& a, const std::string& kind, const std::string& namespace_,
              const std::string& name) {
  return !a.store.findByKind(kind, namespace_, name).empty() ||
         a.store.refusalByKind(kind, namespace_, name) != nullptr;
}

}  // namespace pg::cli
