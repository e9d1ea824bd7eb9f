// Hostname matching as the Gateway API defines it for listeners and routes.
#pragma once

#include <string_view>

namespace pg::graph {

// Whether a listener hostname and a route hostname share at least one name. Either may be a
// wildcard `*.example.com`, which stands for one or more labels in front of `example.com` (and
// not for `example.com` itself). An empty listener hostname matches everything.
bool hostnamesIntersect(std::string_view listener, std::string_view route);

// A valid Gateway API hostname: RFC 1123 labels, lower case, an optional leading `*.`, and
// not an IP address.
bool isValidHostname(std::string_view hostname);

}  // namespace pg::graph
