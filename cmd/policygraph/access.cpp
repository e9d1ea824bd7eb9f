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
#include "lib/policy/linkerd/access.h"
#include "lib/report/report.h"

namespace pg::cli {

namespace {

namespace ld = policy::linkerd;

struct Ref {
  std::string text, kind, namespace_, name;
};

Ref parseRef(const std::string& text, const std::string& option) {
  Ref r{text, {}, {}, {}};
  if (!model::parseDisplayRef(text, r.kind, r.namespace_, r.name) || r.namespace_.empty())
    throw UsageError(option + " wants Kind/namespace/name, not " + text);
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

}  // namespace

void addAccessCommand(CLI::App& app, int& exitCode) {
  struct Options {
    InputOptions inputs;
    std::string from, fromIp, to, request, host, format = "text", color = "auto";
    std::vector<std::string> headers;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "access", "May this client make this request? Linkerd's decision, with its reasons");
  cmd->add_option("--from", o->from,
                  "The client: a workload (Deployment/ns/name, Pod/ns/name, ...), "
                  "ServiceAccount/ns/name (a meshed client with its identity) or ip:ADDR")
      ->required();
  cmd->add_option("--from-ip", o->fromIp,
                  "The client's address (default: unknown, some address in clusterNetworks)");
  cmd->add_option("--to", o->to,
                  "The destination workload, with :PORT (a number or a container port name) "
                  "unless it has one inbound port")
      ->required();
  cmd->add_option("--request", o->request,
                  "\"METHOD PATH\" (gRPC: \"POST /pkg.Service/Method\"); without it, a connection");
  cmd->add_option("--host", o->host, "The request's host (for routes with hostnames)");
  cmd->add_option("--header", o->headers, "\"Name: value\" request header; repeatable");
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
    else
      from = parseRef(o->from, "--from");

    const analysis::Analysis& a = analyzeInputs(o->inputs);
    const config::LinkerdSettings& settings = a.config.linkerd;
    const model::Resource& destination = resolveWorkload(a, to, "--to");
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
