#include "cmd/policygraph/explain.h"

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cmd/policygraph/cli.h"
#include "cmd/policygraph/common.h"
#include "cmd/policygraph/refs.h"
#include "lib/model/object_ref.h"
#include "lib/report/report.h"

namespace pg::cli {

void addExplainCommand(CLI::App& app, int& exitCode) {
  struct Options {
    InputOptions inputs;
    std::string ref;
    std::string format = "text";
    std::string color = "auto";
    std::string mesh;  // Kuma: the mesh of REF
    std::string view = "rules";
    std::string inbound, outbound, route;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "explain", "Show every policy that reaches one object and the effective result per path");
  cmd->add_option("REF", o->ref,
                  "Kind/namespace/name or Kind/name, with #section for a listener, rule or port")
      ->required();
  addInputOptions(*cmd, o->inputs);
  cmd->add_option("--format", o->format,
                  "text, json, yaml, or kuma-inspect (Kuma's Inspect API document) (default: text)")
      ->check(CLI::IsMember({"text", "json", "yaml", "kuma-inspect"}));
  cmd->add_option("--mesh", o->mesh, "Kuma: the mesh REF is in (kuma-inspect)");
  cmd->add_option("--view", o->view,
                  "kuma-inspect on a Dataplane: rules (default), policies or routes")
      ->check(CLI::IsMember({"rules", "policies", "routes"}));
  cmd->add_option("--inbound", o->inbound, "kuma-inspect: the inbound's KRI (--view policies)");
  cmd->add_option("--outbound", o->outbound, "kuma-inspect: the outbound's KRI");
  cmd->add_option("--route", o->route, "kuma-inspect: the route's KRI (--view policies)");
  cmd->add_option("--color", o->color, "auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->callback([o, &exitCode] {
    std::string section;
    std::string ref = o->ref;
    if (auto hash = ref.find('#'); hash != std::string::npos) {
      section = ref.substr(hash + 1);
      ref.resize(hash);
    }
    std::string kind, namespace_, name;
    // Checked before the input is read: a typo should not wait for a large repository.
    if (!model::parseDisplayRef(ref, kind, namespace_, name) ||
        (o->ref.find('#') != std::string::npos && section.empty()))
      throw UsageError("explain wants Kind/namespace/name or Kind/name (#section optional), not " +
                       o->ref);
    if (o->format == "kuma-inspect") {
      if (!namespace_.empty() || !section.empty())
        throw UsageError("kuma-inspect wants Kind/name and --mesh, not " + o->ref);
      if (o->mesh.empty()) throw UsageError("kuma-inspect needs --mesh");
      if (o->view != "rules" && kind != "Dataplane")
        throw UsageError("--view " + o->view + " is for a Dataplane");
      const analysis::Analysis& a =
          analyzeOneUnit(o->inputs, "explain", [&](const analysis::Analysis& unit) {
            return !unit.store.findInMesh(kind, o->mesh, name).empty() ||
                   unit.kuma.dataplane(o->mesh, name) != nullptr;
          });
      report::KumaInspectQuery query{
          kind,       name,        o->mesh,  o->view,
          o->inbound, o->outbound, o->route, a.config.kumaSystemNamespace};
      try {
        report::writeKumaInspect(std::cout, a, query);
      } catch (const report::KumaInspectError& e) {
        throw UsageError(e.what());
      }
      exitCode = kClean;
      return;
    }
    const analysis::Analysis& a =
        analyzeOneUnit(o->inputs, "explain", [&](const analysis::Analysis& unit) {
          return holdsRef(unit, kind, namespace_, name) ||
                 (kind == "Dataplane" &&
                  (o->mesh.empty()
                       ? unit.kuma.derivedDataplane(
                             namespace_.empty() ? unit.config.defaultNamespace : namespace_,
                             name) != nullptr
                       : unit.kuma.dataplane(o->mesh, name) != nullptr)) ||
                 (kind == "MeshGateway" && !o->mesh.empty() &&
                  !unit.store.findInMesh(kind, o->mesh, name).empty());
        });
    // A Kuma proxy: its Kuma explain, as text, JSON, or the JSON document in YAML.
    auto writeKuma = [&](const auto& proxy) {
      if (o->format == "yaml")
        report::writeKumaExplainYaml(std::cout, a, proxy);
      else
        report::writeKumaExplain(std::cout, a, proxy, o->format == "json", {colorWanted(o->color)});
      exitCode = kClean;
    };
    if (!o->mesh.empty() && (kind == "Dataplane" || kind == "MeshGateway")) {
      std::vector<const model::Resource*> found = a.store.findInMesh(kind, o->mesh, name);
      const graph::kuma::Dataplane* derived =
          kind == "Dataplane" && found.empty() ? a.kuma.dataplane(o->mesh, name) : nullptr;
      if (derived) return writeKuma(*derived);  // a proxy Kuma derives from a Kubernetes workload
      if (found.empty()) throw UsageError(o->ref + " names nothing in mesh " + o->mesh);
      return writeKuma(*found.front());
    }
    if (kind == "Dataplane" && a.store.findByKind(kind, namespace_, name).empty()) {
      const graph::kuma::Dataplane* derived = a.kuma.derivedDataplane(
          namespace_.empty() ? a.config.defaultNamespace : namespace_, name);
      if (derived) return writeKuma(*derived);
    }
    const model::Resource& target = resolveRef(a, o->ref, kind, namespace_, name);
    if (target.group == "kuma.io" && !target.mesh.empty() &&
        (kind == "Dataplane" || kind == "MeshGateway"))
      return writeKuma(target);
    std::vector<policy::Effective> effective =
        policy::effectiveOn(a.policies, a.topology, a.store, target, section);
    report::ExplainInput input{
        target, section, effective, a.linkerd.inboundOf(&target), a.kuma.dataplaneOf(target), &a};
    if (o->format == "json")
      report::writeExplainJson(std::cout, input);
    else if (o->format == "yaml")
      report::writeExplainYaml(std::cout, input);
    else
      report::writeExplainText(std::cout, input, {colorWanted(o->color)});
    exitCode = kClean;
  });
}

}  // namespace pg::cli
