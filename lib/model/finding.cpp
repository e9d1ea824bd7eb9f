#include "lib/model/finding.h"

#include <cstdint>
#include <cstdio>
#include <tuple>

namespace pg::model {

std::string_view toString(Severity severity) {
  switch (severity) {
    case Severity::Note:
      return "note";
    case Severity::Warning:
      return "warning";
    case Severity::Error:
      return "error";
  }
  return "error";
}

std::optional<Severity> parseSeverity(std::string_view text) {
  if (text == "note") return Severity::Note;
  if (text == "warning") return Severity::Warning;
  if (text == "error") return Severity::Error;
  return std::nullopt;
}

namespace {

// FNV-1a, 64 bits: stable across platforms and releases, which std::hash is not.
void mix(std::uint64_t& h, std::string_view text) {
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  h ^= 0xff;  // separator, so ("ab","c") and ("a","bc") differ
  h *= 0x100000001b3ULL;
}

}  // namespace

std::string Missing::display() const {
  if (bySelector())
    return kind + "s of namespace " + namespace_ + " matching " + selector;
  return kind + "/" + (namespace_.empty() ? "" : namespace_ + "/") + name;
}

std::string fingerprintOf(const Finding& finding) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  mix(h, finding.ruleId);
  if (finding.objects.empty()) mix(h, finding.location.path);
  for (const std::string& object : finding.objects) mix(h, object);
  mix(h, finding.discriminator);
  // The same finding in two environments is two findings; without environments, unchanged.
  if (!finding.environment.empty()) mix(h, "environment:" + finding.environment);
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

bool reportOrder(const Finding& a, const Finding& b) {
  return std::tie(a.location.path, a.location.start.line, a.location.start.column, a.ruleId,
                  a.message, a.environment) < std::tie(b.location.path, b.location.start.line,
                                                       b.location.start.column, b.ruleId, b.message,
                                                       b.environment);
}

}  // namespace pg::model
