#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "lib/graph/hostname.h"
#include "rules/gateway/gateway_rules.h"

namespace pg::rules {
namespace {

using namespace gateway;

// One match of a route rule as a listener sees it: for one of the hostnames the route serves
// there, the requests it claims.
struct Claim {
  const graph::Route* route;
  const graph::RouteRule* rule;
  std::uint32_t match;  // index in the rule's matches; 0 for a rule without matches
  yaml::NodeRef node;   // the match, or the rule when it has no matches
  std::string what;     // for messages: "PathPrefix /cart, method GET"
};

bool isWildcard(std::string_view h) {
  return h.starts_with("*.");
}

// The hostnames a route serves on a listener: each of its own that the listener's admits,
// narrowed to the listener's when that is the more specific; "" stands for any hostname.
std::vector<std::string_view> servedHostnames(const graph::Listener& l, const graph::Route& route) {
  if (route.hostnames.empty()) return {l.hostname};
  std::vector<std::string_view> out;
  for (std::string_view h : route.hostnames) {
    if (!graph::hostnamesIntersect(l.hostname, h)) continue;
    std::string_view served = h;
    if (!l.hostname.empty() && isWildcard(h) &&
        (!isWildcard(l.hostname) || l.hostname.size() > h.size()))
      served = l.hostname;
    if (std::find(out.begin(), out.end(), served) == out.end()) out.push_back(served);
  }
  return out;
}

std::string_view orDefault(yaml::NodeRef node, std::string_view fallback) {
  return node ? node.str() : fallback;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// Header or query parameter matches, order-free: `Exact:name=value` sorted.
std::vector<std::string> nameValueMatches(yaml::NodeRef list, bool caseInsensitiveNames) {
  std::vector<std::string> out;
  for (yaml::NodeRef m : list.items()) {
    std::string_view name = m.get("name").str();
    out.push_back(std::string(orDefault(m.get("type"), "Exact")) + ":" +
                  (caseInsensitiveNames ? lower(name) : std::string(name)) + "=" +
                  std::string(m.get("value").str()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : " ") + item;
  return out;
}

// The canonical form of an HTTPRoute match (absent fields take their defaults), and its
// description; a rule without matches matches every path.
std::pair<std::string, std::string> httpMatch(yaml::NodeRef match) {
  yaml::NodeRef path = match.get("path");
  std::string pathText = std::string(orDefault(path.get("type"), "PathPrefix")) + " " +
                         std::string(orDefault(path.get("value"), "/"));
  std::string_view method = match.get("method").str();
  std::string headers = join(nameValueMatches(match.get("headers"), true));
  std::string query = join(nameValueMatches(match.get("queryParams"), false));
  std::string key = pathText + "|" + std::string(method) + "|" + headers + "|" + query;
  std::string what =
      pathText + (method.empty() ? ", any method" : ", method " + std::string(method));
  if (!headers.empty()) what += ", headers " + headers;
  if (!query.empty()) what += ", query parameters " + query;
  return {key, what};
}

std::pair<std::string, std::string> grpcMatch(yaml::NodeRef match) {
  yaml::NodeRef method = match.get("method");
  std::string_view service = method.get("service").str();
  std::string_view name = method.get("method").str();
  std::string methodText = std::string(orDefault(method.get("type"), "Exact")) + " " +
                           std::string(service.empty() ? "*" : service) + "/" +
                           std::string(name.empty() ? "*" : name);
  std::string headers = join(nameValueMatches(match.get("headers"), true));
  std::string what = method ? "method " + methodText : std::string("any method");
  if (!headers.empty()) what += ", headers " + headers;
  return {methodText + "|" + headers, what};
}

std::string_view creationTimestamp(const graph::Route& route) {
  return route.resource->metadata().get("creationTimestamp").str();
}

std::string namespacedName(const graph::Route& route) {
  return std::string(route.resource->namespace_) + "/" + std::string(route.resource->name);
}

// Gateway API precedence between identical matches: within a route the first rule, across
// routes the oldest creationTimestamp, then {namespace}/{name} alphabetically.
bool precedes(const Claim& a, const Claim& b) {
  if (a.route != b.route) {
    std::string_view ta = creationTimestamp(*a.route), tb = creationTimestamp(*b.route);
    if (!ta.empty() && !tb.empty() && ta != tb) return ta < tb;
    return namespacedName(*a.route) < namespacedName(*b.route);
  }
  return std::tie(a.rule->index, a.match) < std::tie(b.rule->index, b.match);
}

std::string whyWinner(const Claim& winner, const Claim& loser) {
  if (winner.route == loser.route)
    return "within a route the first matching rule in list order wins, so " +
           describeRule(*loser.rule) + " never receives these requests";
  std::string_view tw = creationTimestamp(*winner.route), tl = creationTimestamp(*loser.route);
  std::string rule =
      "between routes the oldest by creationTimestamp wins, then the first in "
      "{namespace}/{name} order";
  if (!tw.empty() && !tl.empty() && tw != tl)
    return rule + ": " + winner.route->resource->display() + " was created at " + std::string(tw) +
           ", " + loser.route->resource->display() + " at " + std::string(tl);
  if (!tw.empty() && !tl.empty())
    return rule + ": both were created at " + std::string(tw) + ", so the name decides";
  return rule + (tw.empty() && tl.empty() ? "; neither route carries" : "; only one carries") +
         " metadata.creationTimestamp, so in the cluster the winner depends on which was "
         "created first, and policygraph assumed name order";
}

struct Overlap {
  std::vector<Claim> claims;
  std::string hostname;
};

void reportOverlap(Context& ctx, const graph::Listener& l, const Claim& winner, const Claim& loser,
                   std::string_view hostname) {
  const model::Resource& r = *loser.route->resource;
  const model::Resource& w = *winner.route->resource;
  std::string message =
      r.display() + " " + describeRule(*loser.rule) + " claims the same requests (" +
      (hostname.empty() ? std::string("any hostname") : "hostname " + std::string(hostname)) +
      ", " + loser.what + ") as " + w.display() + " " + describeRule(*winner.rule) + " on " +
      describeListener(l) + ", and only " + w.display() +
      " receives them: " + whyWinner(winner, loser) +
      ". Make the matches differ, or merge the rules";
  model::Finding& f = ctx.report(r.locate(loser.node), std::move(message), &r);
  if (winner.route != loser.route) f.objects.push_back(w.display());
  f.discriminator = "rules[" + std::to_string(loser.rule->index) + "].matches[" +
                    std::to_string(loser.match) + "]";
  f.related.push_back({w.locate(winner.node), w.display() + " " + describeRule(*winner.rule) +
                                                  " receives these requests"});
  f.related.push_back(relatedListener(l, describeListener(l)));
}

// Every claim the routes attached to `l` make, grouped by what they claim.
std::map<std::string, Overlap> claimsOn(const graph::Listener& l,
                                        const std::vector<const graph::Route*>& routes) {
  std::map<std::string, Overlap> byKey;
  for (const graph::Route* route : routes) {
    const bool http = route->kind == graph::RouteKind::HTTP;
    for (std::string_view hostname : servedHostnames(l, *route)) {
      for (const graph::RouteRule& rule : route->rules) {
        yaml::NodeRef matches = rule.node.get("matches");
        if (!matches.isSequence()) matches = {};
        const std::size_t count = std::max<std::size_t>(matches.size(), 1);
        for (std::size_t i = 0; i < count; ++i) {
          yaml::NodeRef match = matches.at(i);
          auto [key, what] = http ? httpMatch(match) : grpcMatch(match);
          Overlap& o = byKey[std::string(graph::routeKindName(route->kind)) + "|" +
                             std::string(hostname) + "|" + key];
          o.hostname = std::string(hostname);
          o.claims.push_back({route, &rule, static_cast<std::uint32_t>(i),
                              match ? match : rule.node, std::move(what)});
        }
      }
    }
  }
  return byKey;
}

// The HTTP and gRPC routes each listener accepted, in route order.
std::unordered_map<const graph::Listener*, std::vector<const graph::Route*>> routesByListener(
    const graph::Topology& topology) {
  std::unordered_map<const graph::Listener*, std::vector<const graph::Route*>> out;
  for (const graph::Route& route : topology.routes) {
    if (route.kind != graph::RouteKind::HTTP && route.kind != graph::RouteKind::GRPC) continue;
    for (const graph::RouteParent& p : route.parents) {
      for (const graph::Listener* l : p.listeners) {
        std::vector<const graph::Route*>& routes = out[l];
        // A route naming the same listener twice (by name and by port) claims it once.
        if (routes.empty() || routes.back() != &route) routes.push_back(&route);
      }
    }
  }
  return out;
}

void check(Context& ctx) {
  const auto byListener = routesByListener(ctx.analysis().topology);
  std::set<std::pair<const yaml::Tree*, std::uint32_t>> reported;  // loser matches
  forEachListener(ctx, [&](const graph::Listener& l) {
    auto routes = byListener.find(&l);
    if (routes == byListener.end()) return;
    for (auto& [key, overlap] : claimsOn(l, routes->second)) {
      if (overlap.claims.size() < 2) continue;
      const Claim& winner =
          *std::min_element(overlap.claims.begin(), overlap.claims.end(), precedes);
      for (const Claim& loser : overlap.claims) {
        if (&loser == &winner) continue;
        // The same match twice in one rule sends its requests to the same backends.
        if (loser.route == winner.route && loser.rule == winner.rule) continue;
        if (!reported.insert({loser.node.tree(), loser.node.index()}).second) continue;
        reportOverlap(ctx, l, winner, loser, overlap.hostname);
      }
    }
  });
}

}  // namespace

PG_RULE(GW208, "route-overlap", "gateway", Warning,
        "Two routes on one listener claim the same hostname and match, and only one gets the "
        "traffic",
        "HTTPRoute,GRPCRoute", check)

}  // namespace pg::rules
