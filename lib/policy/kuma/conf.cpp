#include "lib/policy/kuma/conf.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>

#include "lib/model/duration.h"
namespace pg::policy::kuma {

const Conf* Conf::find(std::string_view key) const {
  for (const Field& f : fields)
    if (f.first == key) return &f.second;
  return nullptr;
}

Conf* Conf::find(std::string_view key) {
  for (Field& f : fields)
    if (f.first == key) return &f.second;
  return nullptr;
}

Conf& Conf::set(std::string_view key, Conf value) {
  if (Conf* existing = find(key)) {
    *existing = std::move(value);
    return *existing;
  }
  fields.emplace_back(std::string(key), std::move(value));
  return fields.back().second;
}

Conf Conf::string(std::string text) {
  Conf c;
  c.type = Type::String;
  c.scalar = std::move(text);
  return c;
}

Conf Conf::boolean(bool value) {
  Conf c;
  c.type = Type::Bool;
  c.scalar = value ? "true" : "false";
  return c;
}

Conf Conf::number(std::string text) {
  Conf c;
  c.type = Type::Number;
  c.scalar = std::move(text);
  return c;
}

Conf Conf::object() {
  Conf c;
  c.type = Type::Object;
  return c;
}

namespace {

bool isJsonNumber(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  if (s[i] == '0' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))
    return false;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  }
  return i == s.size();
}

}  // namespace

Conf fromYaml(yaml::NodeRef node, const model::Resource* origin) {
  Conf c;
  c.source = node;
  c.origin = origin;
  if (node.isMapping()) {
    c.type = Conf::Type::Object;
    for (auto [k, v] : node.entries()) c.set(k.str(), fromYaml(v, origin));
  } else if (node.isSequence()) {
    c.type = Conf::Type::Array;
    for (yaml::NodeRef item : node.items()) c.items.push_back(fromYaml(item, origin));
  } else if (node.isScalar()) {
    std::string_view text = node.str();
    if (node.isNull()) {
      c.type = Conf::Type::Null;
    } else if (node.style() == yaml::ScalarStyle::Plain && (text == "true" || text == "false")) {
      c.type = Conf::Type::Bool;
      c.scalar = std::string(text);
    } else if (node.style() == yaml::ScalarStyle::Plain && isJsonNumber(text)) {
      c.type = Conf::Type::Number;
      c.scalar = std::string(text);
    } else {
      c.type = Conf::Type::String;
      c.scalar = std::string(text);
    }
  }
  return c;
}

void mergePatch(Conf& into, const Conf& patch) {
  if (!patch.isObject()) {
    into = patch;
    return;
  }
  if (!into.isObject()) {
    Conf fresh = Conf::object();
    fresh.source = patch.source;
    fresh.origin = patch.origin;
    into = std::move(fresh);
  }
  for (const Conf::Field& f : patch.fields) {
    if (f.second.type == Conf::Type::Null) {
      std::erase_if(into.fields, [&](const Conf::Field& g) { return g.first == f.first; });
      continue;
    }
    Conf* existing = into.find(f.first);
    if (f.first.starts_with("append") && f.second.type == Conf::Type::Array && existing &&
        existing->type == Conf::Type::Array) {
      existing->items.insert(existing->items.end(), f.second.items.begin(), f.second.items.end());
      continue;
    }
    if (existing) {
      mergePatch(*existing, f.second);
    } else {
      Conf added;
      mergePatch(added, f.second);
      into.set(f.first, std::move(added));
    }
  }
}

std::string canonicalText(const Conf& c) {
  switch (c.type) {
    case Conf::Type::Null:
      return "null";
    case Conf::Type::Bool:
    case Conf::Type::Number:
      return c.scalar;
    case Conf::Type::String:
      return "\"" + c.scalar + "\"";
    case Conf::Type::Array: {
      std::string out = "[";
      for (const Conf& i : c.items) out += canonicalText(i) + ",";
      return out + "]";
    }
    case Conf::Type::Object: {
      std::vector<std::string> parts;
      for (const Conf::Field& f : c.fields)
        if (f.second.type != Conf::Type::Null)
          parts.push_back(f.first + ":" + canonicalText(f.second));
      std::sort(parts.begin(), parts.end());
      std::string out = "{";
      for (const std::string& p : parts) out += p + ",";
      return out + "}";
    }
  }
  return {};
}

std::optional<std::string> goDuration(std::string_view text) {
  std::optional<long double> total = model::parseGoDuration(text);
  if (!total) return std::nullopt;
  auto ns = static_cast<std::int64_t>(std::llround(static_cast<double>(*total)));
  // Go's Duration.String().
  if (ns == 0) return std::string("0s");
  std::uint64_t u = static_cast<std::uint64_t>(ns < 0 ? -ns : ns);
  std::string out;
  auto fraction = [](std::uint64_t v, int digits) {
    // v has `digits` fractional digits: "int[.frac]" without trailing zeros.
    std::uint64_t scale = 1;
    for (int i = 0; i < digits; ++i) scale *= 10;
    std::string whole = std::to_string(v / scale);
    std::string frac = std::to_string(v % scale);
    frac.insert(0, static_cast<std::size_t>(digits) - frac.size(), '0');
    while (!frac.empty() && frac.back() == '0') frac.pop_back();
    return frac.empty() ? whole : whole + "." + frac;
  };
  if (u < 1000000000ULL) {
    if (u < 1000ULL)
      out = std::to_string(u) + "ns";
    else if (u < 1000000ULL)
      out = fraction(u, 3) + "\xC2\xB5s";
    else
      out = fraction(u, 6) + "ms";
  } else {
    std::uint64_t hours = u / 3600000000000ULL;
    std::uint64_t rest = u % 3600000000000ULL;
    std::uint64_t minutes = rest / 60000000000ULL;
    std::uint64_t secondsNs = rest % 60000000000ULL;
    if (hours) out += std::to_string(hours) + "h";
    if (hours || minutes) out += std::to_string(minutes) + "m";
    out += fraction(secondsNs, 9) + "s";
  }
  if (ns < 0) out.insert(0, "-");
  return out;
}

bool isDurationKey(std::string_view key) {
  static constexpr std::array<std::string_view, 7> kSuffixes{
      "Timeout", "Duration", "Interval", "Jitter", "EjectionTime", "Time", "Delay"};
  static constexpr std::array<std::string_view, 4> kNames{"timeout", "interval", "duration",
                                                          "delay"};
  if (std::find(kNames.begin(), kNames.end(), key) != kNames.end()) return true;
  return std::any_of(kSuffixes.begin(), kSuffixes.end(),
                     [&](std::string_view s) { return key.ends_with(s); });
}

namespace {

void normalizeDurations(Conf& conf) {
  for (Conf::Field& f : conf.fields) {
    if (f.second.type == Conf::Type::String && isDurationKey(f.first)) {
      if (auto d = goDuration(f.second.scalar)) f.second.scalar = *d;
    }
    normalizeDurations(f.second);
  }
  for (Conf& item : conf.items) normalizeDurations(item);
}

void setDefault(Conf& object, std::string_view key, Conf value) {
  if (object.isObject() && !object.find(key)) object.set(key, std::move(value));
}

// Every mapping that has a `backendRefs` list: each ref gets `weight: 1` unless it has one.
void defaultBackendWeights(Conf& conf) {
  if (Conf* refs = conf.find("backendRefs"); refs && refs->type == Conf::Type::Array)
    for (Conf& ref : refs->items) setDefault(ref, "weight", Conf::number("1"));
  for (Conf::Field& f : conf.fields) defaultBackendWeights(f.second);
  for (Conf& item : conf.items) defaultBackendWeights(item);
}

}  // namespace

void normalize(Conf& conf, std::string_view policyType) {
  normalizeDurations(conf);
  defaultBackendWeights(conf);
  if (policyType == "MeshAccessLog") {
    // Every backend's format gets omitEmptyValues: false unless set.
    if (Conf* backends = conf.find("backends"); backends && backends->type == Conf::Type::Array)
      for (Conf& backend : backends->items)
        for (Conf::Field& kind : backend.fields)
          if (Conf* format = kind.second.find("format"); format && format->isObject())
            setDefault(*format, "omitEmptyValues", Conf::boolean(false));
  }
  if (policyType == "MeshTrace") {
    if (Conf* backends = conf.find("backends"); backends && backends->type == Conf::Type::Array)
      for (Conf& backend : backends->items)
        if (Conf* zipkin = backend.find("zipkin"); zipkin && zipkin->isObject()) {
          setDefault(*zipkin, "traceId128bit", Conf::boolean(false));
          setDefault(*zipkin, "apiVersion", Conf::string("httpJson"));
          setDefault(*zipkin, "sharedSpanContext", Conf::boolean(true));
        }
  }
}

}  // namespace pg::policy::kuma
