#include "lib/cel/k8s_types.h"

namespace pg::cel::detail {

std::optional<Fn> lookupK8sFunction(std::string_view, bool, std::size_t) {
  return std::nullopt;
}

Value callK8sFunction(const Node& call, std::span<const Value> args, Context& ctx) {
  return noOverload(ctx, call.name, args);
}

std::optional<int> compareOpaque(const Value&, const Value&) {
  return std::nullopt;
}

}  // namespace pg::cel::detail
