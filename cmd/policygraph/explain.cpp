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
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "explain", "Show every policy that reaches one object and the effective result per path");
  cmd->add_option("REF", o->ref,
                  "Kind/namespace/name or Kind/name, with #section for a listener, rule or port")
      ->required();
  addInputOptions(*cmd, o->inputs);
  cmd->add_option("--format", o->format, "text, json or yaml (default: text)")
      ->check(CLI::IsMember({"text", "json", "yaml"}));
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
    const analysis::Analysis& a = analyzeInputs(o->inputs);
    const model::Resource& target = resolveRef(a, o->ref, kind, namespace_, name);
    std::vector<policy::Effective> effective =
        policy::effectiveOn(a.policies, a.topology, a.store, target, section);
    report::ExplainInput input{target, section, effective, a.linkerd.inboundOf(&target)};
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
