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

// The Kubernetes DNS-1123 subdomain rule (validation.IsDNS1123Subdomain): lower-case RFC 1123
// labels joined by dots, at most 253 characters in all; labels are not bounded on their own,
// and an IP address passes.
bool isDns1123Subdomain(std::string_view name);

}  // namespace pg::graph
