#include "cmd/policygraph/diff.h"

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cmd/policygraph/cli.h"
#include "cmd/policygraph/common.h"
#include "lib/diff/sides.h"
#include "lib/report/report.h"
#include "rules/engine.h"

namespace pg::cli {

void addDiffCommand(CLI::App& app, int& exitCode, const std::optional<std::size_t>& afterDashes) {
  struct Options : OutputOptions {
    std::vector<std::string> args;
    std::string configPath;
    std::string controllerName;
    unsigned jobs = 0;
    std::string environment;
    std::string failOnNew = "none";
    std::size_t maxCommentBytes = report::MarkdownOptions{}.maxBytes;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "diff",
      "What a change does to route attachments, effective policy and findings: BASE and HEAD "
      "are git revisions or folders; HEAD defaults to the working tree");
  cmd->add_option("BASE HEAD PATH", o->args,
                  "BASE [HEAD] [PATH...]; write `--` before PATHs to compare BASE with the "
                  "working tree under them")
      ->required();
  cmd->add_option("--config", o->configPath,
                  "Config file for both sides (default: each side's own .policygraph.yaml)");
  cmd->add_option("--controller-name", o->controllerName,
                  "Simulate only Gateways whose GatewayClass names this controller (default: all)");
  cmd->add_option("--jobs,-j", o->jobs, "Parallel jobs (default: all cores)")
      ->check(CLI::Range(1u, 1024u));
  cmd->add_option("--environment,-e", o->environment,
                  "The one entry of the config's environments: to compare (default: each, on "
                  "both sides)");
  addOutputOptions(*cmd, *o, "text, json or markdown");
  cmd->add_option("--fail-on-new", o->failOnNew,
                  "Exit 1 when HEAD has findings at or above this severity that BASE has not: "
                  "error, warning, note or none (default: none)")
      ->check(CLI::IsMember({"error", "warning", "note", "none"}));
  cmd->add_option("--max-comment-bytes", o->maxCommentBytes,
                  "Size limit of the markdown format (default: 60000, under GitHub's limit for "
                  "a comment)")
      ->check(CLI::Range(std::size_t{2000}, std::size_t{1} << 30));

  cmd->callback([o, cmd, &exitCode, &afterDashes] {
    // BASE [HEAD] before `--`, PATHs after it; without `--`, whatever follows HEAD.
    // `diff -- BASE HEAD PATH...`, with nothing before `--`, only ends the options.
    std::vector<std::string> sides = o->args, paths;
    std::size_t beforeDashes =
        afterDashes ? sides.size() - std::min(*afterDashes, sides.size()) : sides.size();
    std::size_t split =
        beforeDashes > 0 && afterDashes ? beforeDashes : std::min<std::size_t>(2, sides.size());
    paths.assign(sides.begin() + static_cast<std::ptrdiff_t>(split), sides.end());
    sides.resize(split);
    if (sides.empty() || sides.size() > 2)
      throw UsageError("diff wants BASE [HEAD] before `--` and PATHs after it");

    diff::SideOptions options;
    options.paths = paths;
    options.configPath = o->configPath;
    options.jobs = o->jobs ? o->jobs : std::max(1u, std::thread::hardware_concurrency());
    options.topology.controllerName = o->controllerName;
    std::vector<model::RuleInfo> catalogue = rules::catalogue();
    diff::Result result;
    std::vector<const analysis::Analysis*> heads;  // one per environment compared
    // Snapshots belong to the working tree: comparing each side with them says nothing about
    // the change.
    options.adjustConfig = [&catalogue](config::Config& config) {
      for (const model::RuleInfo& rule : catalogue)
        if (rule.family == "snapshot") config.rules[std::string(rule.id)].off = true;
    };

    // `borrowed`: the environment is the other side's; where its folders name nothing on this
    // side (the change adds them), this side has nothing of it.
    // A side's units, each kept until the process exits.
    auto analyzeUnits = [&](const diff::SideSpec& side, std::string_view which,
                            const config::Environment* environment,
                            bool borrowed = false) -> std::vector<const analysis::Analysis*> {
      diff::SideOptions own = options;
      own.environment = environment;
      config::Environment none;  // a borrowed environment this side has nothing of
      if (borrowed) {
        try {
          return keepUntilExit(diff::analyzeSide(side, own));
        } catch (const load::InputError&) {
          none.name = environment->name;
          own.environment = &none;
        }
      }
      const std::string where =
          std::string(which) + " " + side.label +
          (environment ? ", environment " + environment->name : std::string()) + ": ";
      try {
        return keepUntilExit(diff::analyzeSide(side, own));
      } catch (const load::InputError& e) {
        throw UsageError(where + e.what());
      } catch (const config::ConfigError& e) {
        throw UsageError(where + e.what());
      }
    };
    auto analyzeOne = [&](const diff::SideSpec& side, std::string_view which,
                          const config::Environment* environment, bool borrowed = false)
        -> std::pair<const analysis::Analysis*, std::vector<model::Finding>> {
      const analysis::Analysis* a = analyzeUnits(side, which, environment, borrowed).front();
      return {a, rules::runRules(*a).findings};
    };
    auto environmentsOf = [&](const diff::SideSpec& side, std::string_view which) {
      try {
        return diff::sideEnvironments(side, options);
      } catch (const load::InputError& e) {
        throw UsageError(std::string(which) + " " + side.label + ": " + e.what());
      } catch (const config::ConfigError& e) {
        throw UsageError(std::string(which) + " " + side.label + ": " + e.what());
      }
    };
    diff::SideSpec base, head;
    try {
      base = diff::resolveSide(sides[0]);
      head = sides.size() > 1 ? diff::resolveSide(sides[1]) : diff::workingTree();
    } catch (const load::InputError& e) {
      throw UsageError(e.what());
    }
    // With `environments:` (on either side) and no PATH, each environment is compared with
    // itself: its folders on one side with its folders on the other, as that side's config
    // names them. A side whose config declares none reads the other side's (the change adds
    // them); an environment only one side declares is compared with nothing.
    std::vector<config::Environment> baseEnvironments, headEnvironments;
    if (paths.empty()) {
      baseEnvironments = environmentsOf(base, "BASE");
      headEnvironments = environmentsOf(head, "HEAD");
    } else if (!o->environment.empty()) {
      throw UsageError("--environment " + o->environment +
                       " compares the folders the config names: give it or PATHs, not both");
    }
    if (baseEnvironments.empty() && headEnvironments.empty()) {
      if (!o->environment.empty() && paths.empty())
        throw UsageError("--environment " + o->environment +
                         ": neither side's config declares environments:");
      // Each side's units (lint's), paired by name: a unit only one side has is compared
      // with nothing.
      const std::vector<const analysis::Analysis*> baseUnits = analyzeUnits(base, "BASE", nullptr);
      const std::vector<const analysis::Analysis*> headUnits = analyzeUnits(head, "HEAD", nullptr);
      std::vector<std::string> names;
      for (const auto* list : {&headUnits, &baseUnits})
        for (const analysis::Analysis* a : *list)
          if (std::find(names.begin(), names.end(), a->environment) == names.end())
            names.push_back(a->environment);
      auto unitNamed = [](const std::vector<const analysis::Analysis*>& units,
                          const std::string& name) -> const analysis::Analysis* {
        for (const analysis::Analysis* a : units)
          if (a->environment == name) return a;
        analysis::Analysis nothing;
        nothing.environment = name;
        return &keepUntilExit(std::move(nothing));
      };
      result.base = base.label;
      result.head = head.label;
      for (const std::string& name : names) {
        const analysis::Analysis* baseAnalysis = unitNamed(baseUnits, name);
        const analysis::Analysis* headAnalysis = unitNamed(headUnits, name);
        heads.push_back(headAnalysis);
        diff::Result one =
            diff::compare({*baseAnalysis, rules::runRules(*baseAnalysis).findings, base.label},
                          {*headAnalysis, rules::runRules(*headAnalysis).findings, head.label});
        if (names.size() == 1)
          result = std::move(one);
        else
          diff::append(result, std::move(one));
      }
    } else {
      const bool baseBorrows = baseEnvironments.empty(), headBorrows = headEnvironments.empty();
      if (baseBorrows) baseEnvironments = headEnvironments;
      if (headBorrows) headEnvironments = baseEnvironments;
      std::vector<std::string> names;
      for (const auto* list : {&headEnvironments, &baseEnvironments})
        for (const config::Environment& e : *list)
          if (std::find(names.begin(), names.end(), e.name) == names.end()) names.push_back(e.name);
      if (!o->environment.empty()) {
        if (std::find(names.begin(), names.end(), o->environment) == names.end()) {
          std::string known;
          for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
          throw UsageError("no environment " + o->environment +
                           " on either side; theirs: " + known);
        }
        names = {o->environment};
      }
      auto find = [](const std::vector<config::Environment>& list, const std::string& name) {
        config::Environment none;  // declared on the other side only: nothing to read
        none.name = name;
        for (const config::Environment& e : list)
          if (e.name == name) return e;
        return none;
      };
      result.base = base.label;
      result.head = head.label;
      for (const std::string& name : names) {
        config::Environment baseEnvironment = find(baseEnvironments, name);
        config::Environment headEnvironment = find(headEnvironments, name);
        auto [baseAnalysis, baseFindings] = analyzeOne(base, "BASE", &baseEnvironment, baseBorrows);
        auto [headAnalysis, headFindings] = analyzeOne(head, "HEAD", &headEnvironment, headBorrows);
        heads.push_back(headAnalysis);
        diff::append(result, diff::compare({*baseAnalysis, baseFindings, base.label},
                                           {*headAnalysis, headFindings, head.label}));
      }
    }

    report::DiffReportInput input{result, heads, catalogue};
    report::MarkdownOptions markdown;
    markdown.maxBytes = o->maxCommentBytes;
    writeOutputs(*cmd, *o, {"text", "json", "markdown"},
                 [&](std::ostream& out, const std::string& format, bool color) {
                   if (format == "json")
                     report::writeDiffJson(out, input);
                   else if (format == "markdown")
                     report::writeDiffMarkdown(out, input, markdown);
                   else
                     report::writeDiffText(out, input, {color});
                 });
    exitCode = kClean;
    if (o->failOnNew != "none") {
      model::Severity level = *model::parseSeverity(o->failOnNew);
      for (const model::Finding& f : result.newFindings)
        if (f.severity >= level) exitCode = kFindings;
    }
  });
}

}  // namespace pg::cli
