// What the graph tests share: a graph's edges as tuples from its JSON, and a rendering as text.
#pragma once

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "lib/report/graph.h"

namespace pg::testing {

// from, to, kind, ok, reason: what JSON says of an edge.
using EdgeTuple = std::tuple<std::string, std::string, std::string, bool, std::string>;

inline std::vector<EdgeTuple> edgesOf(const nlohmann::json& doc) {
  std::vector<EdgeTuple> out;
  for (const auto& e : doc["edges"])
    out.emplace_back(e["from"], e["to"], e["kind"], e["ok"], e["reason"]);
  return out;
}

inline std::string render(const report::Graph& g,
                          void (*writer)(std::ostream&, const report::Graph&)) {
  std::ostringstream out;
  writer(out, g);
  return out.str();
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace pg::testing
