#include "cmd/policygraph/access.h"

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cmd/policygraph/cli.h"
#include "cmd/policygraph/common.h"
#include "cmd/policygraph/refs.h"
#include "lib/graph/workloads.h"
#include "lib/model/object_ref.h"
#include "lib/policy/kuma/access.h"
#include "lib/policy/linkerd/access.h"
#include "lib/report/report.h"

namespace pg::cli {

namespace {

namespace ld = policy::linkerd;
namespace km = policy::kuma;

struct Ref {
  std::string text, kind, namespace_, name;
};

// Kind/namespace/name; a Kuma Dataplane may also be Dataplane/name (Universal, with --mesh).
Ref parseRef(const std::string& text, const std::string& option) {
  Ref r{text, {}, {}, {}};
  if (!model::parseDisplayRef(text, r.kind, r.namespace_, r.name) ||
      (r.namespace_.empty() && r.kind != "Dataplane"))
    throw UsageError(option + " wants Kind/namespace/name (or Dataplane/name with --mesh), not " +
                     text);
  return r;
}

model::Cidr parseAddress(const std::string& text, const std::string& option) {
  std::optional<model::Cidr> c = model::Cidr::parse(text);
  if (!c || text.find('/') != std::string::npos)
    throw UsageError(option + " wants an IP address, not " + text);
  return *c;
}

const model::Resource& resolveWorkload(const analysis::Analysis& a, const Ref& ref,
                                       const std::string& option) {
  const model::Resource& r = resolveRef(a, ref.text, ref.kind, ref.namespace_, ref.name);
  if (!graph::isWorkloadKind(r.group, r.kind))
    throw UsageError(option + " " + ref.text +
                     " is not a workload (Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, "
                     "Job, CronJob)");
  return r;
}

std::string portsText(const ld::WorkloadInbound& inbound) {
  std::string out;
  for (const ld::InboundPort& p : inbound.ports)
    out += (out.empty() ? "" : ", ") + std::to_string(p.port);
  return out.empty() ? "none" : out;
}

const ld::InboundPort& choosePort(const ld::WorkloadInbound& inbound,
                                  const model::Resource& workload, const std::string& port,
                                  const std::string& to) {
  if (port.empty()) {
    if (inbound.ports.size() == 1) return inbound.ports.front();
    throw UsageError("--to " + to + ": say which port, " + workload.display() +
                     " has the inbound ports " + portsText(inbound));
  }
  std::optional<std::int64_t> number;
  if (port.find_first_not_of("0123456789") == std::string::npos && port.size() < 6) {
    number = std::stoll(port);
  } else {
    for (const graph::ContainerPort& c :
         graph::containerPorts(graph::workloadOf(workload)->podSpec))
      if (c.name == port) {
        number = c.number;
        break;
      }
  }
  for (const ld::InboundPort& p : inbound.ports)
    if (number && p.port == *number) return p;
  throw UsageError("--to " + to + ": " + workload.display() + " has no inbound port " + port +
                   "; its inbound ports: " + portsText(inbound));
}

// A Kuma proxy named by --from or --to: Dataplane/name in --mesh, or Dataplane/namespace/name
// (the proxy Kuma derives from a Kubernetes workload, or a Kubernetes-form Dataplane).
const graph::kuma::Dataplane& resolveDataplane(const analysis::Analysis& a, const Ref& ref,
                                               const std::string& mesh, const std::string& option) {
  const graph::kuma::Dataplane* dp = nullptr;
  if (ref.namespace_.empty()) {
    if (mesh.empty()) throw UsageError(option + " " + ref.text + ": say its mesh with --mesh");
    dp = a.kuma.dataplane(mesh, ref.name);
  } else {
    dp = a.kuma.derivedDataplane(ref.namespace_, ref.name);
    if (!dp)
      for (const graph::kuma::Dataplane& d : a.kuma.dataplanes)
        if (!d.derived && d.namespace_ == ref.namespace_ && d.name == ref.name &&
            (mesh.empty() || d.mesh == mesh))
          dp = &d;
  }
  if (!dp) {
    std::string known;
    for (const graph::kuma::Dataplane& d : a.kuma.dataplanes)
      if (mesh.empty() || d.mesh == mesh)
        known += (known.empty() ? "" : ", ") + std::string(d.name) + " (mesh " +
                 std::string(d.mesh) + ")";
    throw UsageError(option + " " + ref.text + " names no Kuma proxy" +
                     (mesh.empty() ? std::string() : " in mesh " + mesh) +
                     "; the proxies: " + (known.empty() ? "none" : known));
  }
  if (!mesh.empty() && dp->mesh != mesh)
    throw UsageError(option + " " + ref.text + " is in mesh " + std::string(dp->mesh) + ", not " +
                     mesh);
  return *dp;
}

std::string inboundsText(const graph::kuma::Dataplane& dp) {
  std::string out;
  for (const graph::kuma::Inbound& in : dp.inbounds)
    if (!in.ignored)
      out += (out.empty() ? "" : ", ") + std::to_string(in.port) +
             (in.name.empty() ? "" : " (" + std::string(in.name) + ")");
  return out.empty() ? "none" : out;
}

// The inbound by its port, its service port or its name; the only one when none is given.
const graph::kuma::Inbound& chooseInbound(const graph::kuma::Dataplane& dp, const std::string& port,
                                          const std::string& to) {
  std::vector<const graph::kuma::Inbound*> inbounds;
  for (const graph::kuma::Inbound& in : dp.inbounds)
    if (!in.ignored) inbounds.push_back(&in);
  if (inbounds.empty()) throw UsageError("--to " + to + ": the Kuma proxy has no inbound");
  if (port.empty()) {
    if (inbounds.size() == 1) return *inbounds.front();
    throw UsageError("--to " + to + ": say which port, the Kuma proxy has the inbounds " +
                     inboundsText(dp));
  }
  bool number = port.find_first_not_of("0123456789") == std::string::npos && port.size() < 6;
  for (const graph::kuma::Inbound* in : inbounds)
    if (number ? in->port == std::stoll(port) : in->name == port) return *in;
  if (number)
    for (const graph::kuma::Inbound* in : inbounds)
      if (in->servicePort == std::stoll(port)) return *in;
  throw UsageError("--to " + to + ": the Kuma proxy has no inbound " + port +
                   "; its inbounds: " + inboundsText(dp));
}

// `k=v,k2=v2`.
std::vector<policy::AccessTag> parseTags(const std::string& text, const std::string& option) {
  std::vector<policy::AccessTag> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string pair =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::size_t eq = pair.find('=');
    if (eq == 0 || eq == std::string::npos || eq + 1 == pair.size())
      throw UsageError(option + " wants tags:key=value[,key=value...], not " + text);
    out.emplace_back(pair.substr(0, eq), pair.substr(eq + 1));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

struct KumaQuery {
  const graph::kuma::Dataplane& destination;
  std::string port, to, from, mesh;
  std::optional<Ref> fromRef;
  bool fromAddress = false;
  const policy::AccessRequest& request;
};

// The client as Kuma sees it: a proxy's tags, or no Kuma proxy at all.
policy::AccessClient kumaClient(const analysis::Analysis& a, const KumaQuery& q) {
  policy::AccessClient unmeshed;
  unmeshed.display = q.from;
  if (q.fromAddress) {
    unmeshed.meshedBecause = "an address alone is a client without a Kuma proxy";
    return unmeshed;
  }
  if (q.from.rfind("service:", 0) == 0) {
    if (q.from.size() == 8) throw UsageError("--from service: wants a kuma.io/service value");
    return km::tagsClient({{std::string(graph::kuma::kServiceTag), q.from.substr(8)}}, q.from,
                          q.destination.mesh);
  }
  if (q.from.rfind("tags:", 0) == 0)
    return km::tagsClient(parseTags(q.from.substr(5), "--from"), q.from, q.destination.mesh);
  const Ref& ref = *q.fromRef;
  if (ref.kind == "ServiceAccount")
    throw UsageError("--from " + ref.text +
                     ": Kuma knows clients by their proxies' tags; give "
                     "the workload, its Dataplane, service:NAME or tags:key=value");
  const graph::kuma::Dataplane* dp = nullptr;
  if (ref.kind == "Dataplane") {
    dp = &resolveDataplane(a, ref, q.mesh.empty() ? std::string(q.destination.mesh) : q.mesh,
                           "--from");
  } else {
    dp = a.kuma.dataplaneOf(resolveWorkload(a, ref, "--from"));
    if (!dp) {
      unmeshed.meshedBecause =
          "neither its pod template nor its Namespace has "
          "kuma.io/sidecar-injection enabled";
      return unmeshed;
    }
  }
  if (dp->mesh != q.destination.mesh) {
    unmeshed.meshedBecause = "its Kuma proxy is in mesh " + std::string(dp->mesh) + ", not " +
                             std::string(q.destination.mesh) +
                             ": it has no certificate of that mesh";
    return unmeshed;
  }
  return km::dataplaneClient(*dp, q.from);
}

policy::AccessResult runKuma(const analysis::Analysis& a, const KumaQuery& q,
                             policy::AccessClient& client, std::int64_t& port) {
  const graph::kuma::Inbound& inbound = chooseInbound(q.destination, q.port, q.to);
  port = inbound.port;
  client = kumaClient(a, q);
  km::Settings settings;
  settings.systemNamespace = a.config.kumaSystemNamespace;
  std::vector<km::Policy> policies = km::readPolicies(a.store, q.destination.mesh, settings);
  policy::AccessResult result =
      km::decideAccess(q.destination, inbound, client, policies, a.store, a.kuma, settings);
  if (q.request.http)
    result.notes.insert(result.notes.begin(),
                        "Kuma enforces MeshTrafficPermission per connection: the request does "
                        "not change the answer");
  return result;
}

}  // namespace

void addAccessCommand(CLI::App& app, int& exitCode) {
  struct Options {
    InputOptions inputs;
    std::string from, fromIp, to, request, host, mesh, format = "text", color = "auto";
    std::vector<std::string> headers;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "access",
      "May this client make this request? Linkerd's or Kuma's decision, with its reasons");
  cmd->add_option("--from", o->from,
                  "The client: a workload (Deployment/ns/name, Pod/ns/name, ...), "
                  "ServiceAccount/ns/name (Linkerd: a meshed client with its identity), "
                  "Dataplane/name or Dataplane/ns/name, service:NAME or tags:k=v,... (Kuma: a "
                  "proxy with these tags) or ip:ADDR")
      ->required();
  cmd->add_option("--from-ip", o->fromIp,
                  "The client's address (default: unknown, some address in clusterNetworks)");
  cmd->add_option("--to", o->to,
                  "The destination workload or Kuma Dataplane, with :PORT (a number or a port "
                  "name) unless it has one inbound port")
      ->required();
  cmd->add_option("--mesh", o->mesh, "Kuma: the mesh of a Dataplane named Dataplane/name");
  cmd->add_option("--request", o->request,
                  "\"METHOD PATH\" (gRPC: \"POST /pkg.Service/Method\"); without it, a connection");
  cmd->add_option("--host", o->host, "The request's host (for routes with hostnames)");
  // One value per occurrence: `--header "a: b" .` leaves the path to the inputs.
  cmd->add_option("--header", o->headers, "\"Name: value\" request header; repeatable")
      ->allow_extra_args(false);
  addInputOptions(*cmd, o->inputs);
  cmd->add_option("--format", o->format, "text or json (default: text)")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--color", o->color, "auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->callback([o, &exitCode] {
    // Checked before the input is read: a typo should not wait for a large repository.
    policy::AccessRequest request;
    if (!o->request.empty()) {
      std::optional<policy::AccessRequest> parsed = policy::parseAccessRequest(o->request);
      if (!parsed) throw UsageError("--request wants \"METHOD /path\", not " + o->request);
      request = *parsed;
    } else if (!o->host.empty() || !o->headers.empty()) {
      throw UsageError("--host and --header describe a request: give --request too");
    }
    request.host = o->host;
    for (const std::string& h : o->headers) {
      std::size_t colon = h.find(':');
      if (colon == std::string::npos || colon == 0)
        throw UsageError("--header wants \"Name: value\", not " + h);
      std::size_t value = h.find_first_not_of(' ', colon + 1);
      request.headers.emplace_back(h.substr(0, colon),
                                   value == std::string::npos ? "" : h.substr(value));
    }
    std::optional<model::Cidr> fromIp;
    if (!o->fromIp.empty()) fromIp = parseAddress(o->fromIp, "--from-ip");
    std::string toRef = o->to, port;
    std::size_t colon = toRef.rfind(':');
    if (colon != std::string::npos && colon > toRef.rfind('/')) {
      port = toRef.substr(colon + 1);
      toRef.resize(colon);
      if (port.empty()) throw UsageError("--to " + o->to + ": empty port");
    }
    Ref to = parseRef(toRef, "--to");
    std::optional<Ref> from;
    std::optional<model::Cidr> fromAddress;
    if (o->from.rfind("ip:", 0) == 0)
      fromAddress = parseAddress(o->from.substr(3), "--from ip:");
    else if (o->from.rfind("service:", 0) != 0 && o->from.rfind("tags:", 0) != 0)
      from = parseRef(o->from, "--from");

    const analysis::Analysis& a =
        analyzeOneUnit(o->inputs, "access", [&](const analysis::Analysis& unit) {
          if (to.kind == "Dataplane")
            return o->mesh.empty()
                       ? unit.kuma.derivedDataplane(to.namespace_, to.name) != nullptr ||
                             holdsRef(unit, to.kind, to.namespace_, to.name)
                       : unit.kuma.dataplane(o->mesh, to.name) != nullptr ||
                             !unit.store.findInMesh(to.kind, o->mesh, to.name).empty();
          return holdsRef(unit, to.kind, to.namespace_, to.name);
        });
    // A Kuma proxy answers from MeshTrafficPermission; a workload both meshes inject cannot
    // run, and Kuma is taken.
    const graph::kuma::Dataplane* kumaDestination =
        to.kind == "Dataplane" ? &resolveDataplane(a, to, o->mesh, "--to") : nullptr;
    const model::Resource* destinationResource =
        kumaDestination ? kumaDestination->resource : &resolveWorkload(a, to, "--to");
    if (!kumaDestination) kumaDestination = a.kuma.dataplaneOf(*destinationResource);
    if (kumaDestination) {
      if (fromIp) throw UsageError("--from-ip is for Linkerd; Kuma decides by the client's tags");
      if (kumaDestination->gateway)
        throw UsageError("--to " + o->to +
                         " is a Kuma gateway: MeshTrafficPermission does not apply to gateways");
      KumaQuery q{*kumaDestination,        port,   o->to, o->from, o->mesh, from,
                  fromAddress.has_value(), request};
      policy::AccessClient client;
      std::int64_t inboundPort = 0;
      policy::AccessResult result = runKuma(a, q, client, inboundPort);
      report::AccessInput input{result, client, *destinationResource, inboundPort, request};
      if (o->format == "json")
        report::writeAccessJson(std::cout, input);
      else
        report::writeAccessText(std::cout, input, {colorWanted(o->color)});
      exitCode = policy::permitted(result.decision) ? kClean : kFindings;
      return;
    }
    if (o->from.rfind("service:", 0) == 0 || o->from.rfind("tags:", 0) == 0 ||
        (from && from->kind == "Dataplane"))
      throw UsageError("--from " + o->from + " is a Kuma client, and --to " + o->to +
                       " is not a Kuma proxy");
    const config::LinkerdSettings& settings = a.config.linkerd;
    const model::Resource& destination = *destinationResource;
    const ld::WorkloadInbound* inbound = a.linkerd.inboundOf(&destination);
    if (!inbound || inbound->ports.empty())
      throw UsageError("--to " + o->to + ": " + destination.display() + " has no inbound port");
    const ld::InboundPort& inboundPort = choosePort(*inbound, destination, port, o->to);

    policy::AccessClient client;
    if (fromAddress) {
      client.display = o->from;
      client.meshedBecause = "an address alone is an unmeshed client";
      client.address = fromAddress;
    } else if (from->kind == "ServiceAccount") {
      client = ld::serviceAccountClient(
          resolveRef(a, from->text, from->kind, from->namespace_, from->name), settings);
    } else {
      client = ld::workloadClient(a.store, resolveWorkload(a, *from, "--from"), settings);
    }
    if (fromIp) client.address = fromIp;
    if (inboundPort.protocol == "gRPC") {
      std::size_t slash = request.path.rfind('/');
      if (!request.http || request.method != "POST" || slash == 0)
        throw UsageError("port " + std::to_string(inboundPort.port) +
                         " is gRPC: --request wants \"POST /pkg.Service/Method\"");
    }

    bool assumed = false;
    if (!request.http && (inboundPort.protocol == "HTTP/1" || inboundPort.protocol == "HTTP/2")) {
      request = *policy::parseAccessRequest("GET /");
      assumed = true;
    }
    policy::AccessResult result = ld::decideAccess(inboundPort, client, request);
    if (assumed) result.notes.insert(result.notes.begin(), "no --request: assumed GET /");
    std::string why;
    if (!ld::injected(a.store, destination, &why))
      result.notes.push_back(destination.display() + " is not injected (" + why +
                             "): without a Linkerd proxy nothing is enforced; this is what its "
                             "proxy would decide once meshed");
    report::AccessInput input{result, client, destination, inboundPort.port, request};
    if (o->format == "json")
      report::writeAccessJson(std::cout, input);
    else
      report::writeAccessText(std::cout, input, {colorWanted(o->color)});
    exitCode = policy::permitted(result.decision) ? kClean : kFindings;
  });
}

}  // namespace pg::cli
