// Whether a pattern is a regular expression of RE2's syntax, which Go's regexp reads too: the
// controllers written in Go (Envoy Gateway) compile users' patterns with it, and Envoy runs them
// with RE2 itself. The one place that asks RE2 only whether a pattern compiles; stages that
// match with a pattern keep their compiled RE2 objects to themselves.
#pragma once

#include <string>
#include <string_view>

namespace pg::model {

// Why Go's regexp would not compile `pattern` (RE2's syntax, less `\C`, plus `(?<name>x)`), in
// RE2's words; empty when it compiles.
std::string re2Error(std::string_view pattern);

}  // namespace pg::model
