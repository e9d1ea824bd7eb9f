#pragma once

// The Kubernetes CEL libraries' extension types (internal to lib/cel): URLs, IP addresses,
// CIDRs, with the functions that make and read them.

#include <optional>
#include <span>

#include "lib/cel/context.h"

namespace pg::cel::detail {

std::optional<Fn> lookupK8sFunction(std::string_view name, bool receiver, std::size_t arity);
Value callK8sFunction(const Node& call, std::span<const Value> args, Context& ctx);

}  // namespace pg::cel::detail
