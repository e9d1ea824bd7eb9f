#pragma once

#include <CLI/CLI.hpp>

namespace pg::cli {

// Adds `policygraph access --from CLIENT --to WORKLOAD[:PORT]`: Kuma's answer when the
// destination is a Kuma proxy, Linkerd's otherwise; exit 0 when the client may make the
// request, 1 when it is refused (403, 404, connection refused), 2 on a usage error.
void addAccessCommand(CLI::App& app, int& exitCode);

}  // namespace pg::cli
