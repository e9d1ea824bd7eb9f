// `policygraph units`: what the run was cut into, and why.
#include <nlohmann/json.hpp>
#include <set>

#include "lib/load/skip.h"
#include "lib/report/common.h"
#include "lib/report/report.h"

namespace pg::report {

namespace {

// The files the run skipped as not manifests, each once (units share folders).
std::vector<load::SkippedFile> skippedOf(const std::vector<const analysis::Analysis*>& units) {
  std::vector<load::SkippedFile> out;
  std::set<std::string_view> seen;
  for (const analysis::Analysis* a : units)
    for (const load::SkippedFile& f : a->skipped)
      if (seen.insert(f.path).second) out.push_back(f);
  return out;
}

}  // namespace

void writeUnitsText(std::ostream& out, const std::vector<const analysis::Analysis*>& units,
                    bool files) {
  for (const analysis::Analysis* a : units) {
    out << (a->environment.empty() ? std::string("(the whole input)")
                                   : detail::printable(a->environment))
        << "  [" << units::kindName(a->unitKind) << "] " << a->files.size() << " file(s), "
        << a->store.size() << " object(s)\n  " << detail::printable(a->unitWhy) << '\n';
    if (files)
      for (const model::SourceFile* f : a->files)
        out << "    " << detail::printable(f->path) << '\n';
  }
  const std::vector<load::SkippedFile> skipped = skippedOf(units);
  if (skipped.empty()) return;
  out << "skipped, not manifests: " << load::skippedSummary(skipped) << '\n';
  if (files)
    for (const load::SkippedFile& f : skipped)
      out << "    " << detail::printable(f.path) << " (" << load::skipReasonText(f.reason) << ")\n";
}

void writeUnitsJson(std::ostream& out, const std::vector<const analysis::Analysis*>& units) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const analysis::Analysis* a : units) {
    nlohmann::ordered_json files = nlohmann::ordered_json::array();
    for (const model::SourceFile* f : a->files) files.push_back(f->path);
    list.push_back({{"name", a->environment},
                    {"kind", units::kindName(a->unitKind)},
                    {"why", a->unitWhy},
                    {"objects", a->store.size()},
                    {"files", std::move(files)}});
  }
  nlohmann::ordered_json skipped = nlohmann::ordered_json::array();
  for (const load::SkippedFile& f : skippedOf(units))
    skipped.push_back({{"path", f.path}, {"reason", load::skipReasonText(f.reason)}});
  nlohmann::ordered_json doc = {{"units", std::move(list)}, {"skipped", std::move(skipped)}};
  out << doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
}

}  // namespace pg::report
