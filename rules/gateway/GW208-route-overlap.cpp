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
  std::uint32_t match;        // index in the rule's matches; 0 for a rule without matches
  yaml::NodeRef node;         // the match, or the rule when it has no matches
  std::string_view hostname;  // as servedHostnames gives it
  std::uint64_t hash = 0;     // of the claim's key (claimKey)
};

// The match a claim stands for; empty for a rule without matches.
yaml::NodeRef matchOf(const Claim& c) {
  return c.node == c.rule->node ? yaml::NodeRef() : c.node;
}

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

// Gathers a key's bytes either as a string or as their FNV-1a hash: every claim needs the
// hash, and only claims whose hashes collide need the string.
class KeyHash {
 public:
  void operator()(std::string_view bytes) {
    for (char c : bytes) {
      hash_ ^= static_cast<unsigned char>(c);
      hash_ *= 1099511628211ull;
    }
  }
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 14695981039346656037ull;
};

class KeyText {
 public:
  void operator()(std::string_view bytes) { text_ += bytes; }
  std::string take() { return std::move(text_); }

 private:
  std::string text_;
};

template <typename Sink>
void joinedNameValues(yaml::NodeRef list, bool caseInsensitiveNames, Sink& out) {
  if (list.size() == 0) return;
  std::vector<std::string> items = nameValueMatches(list, caseInsensitiveNames);
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out(" ");
    out(items[i]);
  }
}

// What a claim claims, as bytes: equal for claims of the same requests (absent fields take
// their defaults; header and query matches are order-free).
template <typename Sink>
void claimKey(const graph::Route& route, std::string_view hostname, yaml::NodeRef match,
              Sink& out) {
  out(graph::routeKindName(route.kind));
  out("|");
  out(hostname);
  out("|");
  if (route.kind == graph::RouteKind::HTTP) {
    yaml::NodeRef path = match.get("path");
    out(orDefault(path.get("type"), "PathPrefix"));
    out(" ");
    out(orDefault(path.get("value"), "/"));
    out("|");
    out(match.get("method").str());
    out("|");
    joinedNameValues(match.get("headers"), true, out);
    out("|");
    joinedNameValues(match.get("queryParams"), false, out);
  } else {
    yaml::NodeRef method = match.get("method");
    std::string_view service = method.get("service").str();
    std::string_view name = method.get("method").str();
    out(orDefault(method.get("type"), "Exact"));
    out(" ");
    out(service.empty() ? "*" : service);
    out("/");
    out(name.empty() ? "*" : name);
    out("|");
    joinedNameValues(match.get("headers"), true, out);
  }
}

// How a claim reads in messages: "PathPrefix /cart, method GET"; absent fields take their
// defaults, and a rule without matches matches every path.
std::string httpWhat(yaml::NodeRef match) {
  yaml::NodeRef path = match.get("path");
  std::string pathText = std::string(orDefault(path.get("type"), "PathPrefix")) + " " +
                         std::string(orDefault(path.get("value"), "/"));
  std::string_view method = match.get("method").str();
  std::string headers = join(nameValueMatches(match.get("headers"), true));
  std::string query = join(nameValueMatches(match.get("queryParams"), false));
  std::string what =
      pathText + (method.empty() ? ", any method" : ", method " + std::string(method));
  if (!headers.empty()) what += ", headers " + headers;
  if (!query.empty()) what += ", query parameters " + query;
  return what;
}

std::string grpcWhat(yaml::NodeRef match) {
  yaml::NodeRef method = match.get("method");
  std::string_view service = method.get("service").str();
  std::string_view name = method.get("method").str();
  std::string methodText = std::string(orDefault(method.get("type"), "Exact")) + " " +
                           std::string(service.empty() ? "*" : service) + "/" +
                           std::string(name.empty() ? "*" : name);
  std::string headers = join(nameValueMatches(match.get("headers"), true));
  std::string what = method ? "method " + methodText : std::string("any method");
  if (!headers.empty()) what += ", headers " + headers;
  return what;
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
  // For messages: "PathPrefix /cart, method GET".
  const std::string what = loser.route->kind == graph::RouteKind::HTTP ? httpWhat(matchOf(loser))
                                                                       : grpcWhat(matchOf(loser));
  std::string message =
      r.display() + " " + describeRule(*loser.rule) + " claims the same requests as " +
      w.display() + " " + describeRule(*winner.rule) + ": only " + w.display() + " receives " +
      (hostname.empty() ? std::string("any hostname") : "hostname " + std::string(hostname)) +
      ", " + what + " on " + describeListener(l) + ", since " + whyWinner(winner, loser) +
      ". Make the matches differ, or merge the rules";
  model::Finding& f = ctx.report(r.locate(loser.node), std::move(message), &r);
  if (winner.route != loser.route) f.objects.push_back(w.display());
  f.discriminator = "rules[" + std::to_string(loser.rule->index) + "].matches[" +
                    std::to_string(loser.match) + "]";
  f.related.push_back({w.locate(winner.node), w.display() + " " + describeRule(*winner.rule) +
                                                  " receives these requests"});
  f.related.push_back(relatedListener(l, describeListener(l)));
}

// Every group of two or more claims the routes attached to `l` make on the same requests,
// ordered by their key. A listener can carry tens of thousands of claims and almost none
// overlap: claims are told apart by the hash of their key, and only claims sharing a hash
// build the key itself.
std::vector<Overlap> overlapsOn(const graph::Listener& l,
                                const std::vector<const graph::Route*>& routes) {
  std::vector<Claim> claims;
  claims.reserve(routes.size() * 2);
  for (const graph::Route* route : routes) {
    for (std::string_view hostname : servedHostnames(l, *route)) {
      for (const graph::RouteRule& rule : route->rules) {
        if (rule.problem) continue;  // dropped by the controller (GW216): it claims nothing
        yaml::NodeRef matches = rule.node.get("matches");
        if (!matches.isSequence()) matches = {};
        const std::size_t count = std::max<std::size_t>(matches.size(), 1);
        for (std::size_t i = 0; i < count; ++i) {
          yaml::NodeRef match = matches.at(i);
          KeyHash hash;
          claimKey(*route, hostname, match, hash);
          claims.push_back({route, &rule, static_cast<std::uint32_t>(i), match ? match : rule.node,
                            hostname, hash.value()});
        }
      }
    }
  }
  std::vector<std::uint32_t> order(claims.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return std::tie(claims[a].hash, a) < std::tie(claims[b].hash, b);
  });
  std::map<std::string, Overlap> byKey;
  for (std::size_t run = 0; run < order.size();) {
    std::size_t end = run + 1;
    while (end < order.size() && claims[order[end]].hash == claims[order[run]].hash) ++end;
    if (end - run >= 2) {
      for (std::size_t i = run; i < end; ++i) {  // in claim order: `order` breaks ties by it
        const Claim& c = claims[order[i]];
        KeyText key;
        claimKey(*c.route, c.hostname, matchOf(c), key);
        Overlap& o = byKey[key.take()];
        o.hostname = std::string(c.hostname);
        o.claims.push_back(c);
      }
    }
    run = end;
  }
  std::vector<Overlap> out;
  for (auto& [key, overlap] : byKey)
    if (overlap.claims.size() >= 2) out.push_back(std::move(overlap));
  return out;
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
    for (const Overlap& overlap : overlapsOn(l, routes->second)) {
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
