// Go's time.ParseDuration, which Kuma, Envoy Gateway and the CEL `duration()` of CRD rules all
// read durations with: one parser for every family.
#pragma once

#include <optional>
#include <string_view>

namespace pg::model {

// An optional sign, then one or more decimal numbers each followed by a unit (ns, us, µs, ms,
// s, m, h): "300ms", "-1.5h", "2h45m"; or "0". Nanoseconds, nullopt when malformed.
std::optional<long double> parseGoDuration(std::string_view text);

}  // namespace pg::model
