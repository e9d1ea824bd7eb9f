// CEL's standard functions and the Kubernetes string and list libraries, as the bundled CRDs'
// rules call them. Extension types (url, ip, cidr) are in k8s_types.cpp.

#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "lib/cel/context.h"
#include "lib/cel/heap.h"
#include "lib/cel/k8s_types.h"
#include "lib/model/duration.h"

namespace pg::cel::detail {

using K = Value::Kind;

namespace {

struct Overload {
  std::string_view name;
  bool receiver;
  std::size_t minArity;
  std::size_t maxArity;
  Fn fn;
};

// Receiver-style functions take the receiver plus minArity..maxArity arguments.
constexpr Overload kOverloads[] = {
    {"size", false, 1, 1, Fn::Size},
    {"size", true, 0, 0, Fn::Size},
    {"matches", false, 2, 2, Fn::Matches},
    {"matches", true, 1, 1, Fn::Matches},
    {"startsWith", true, 1, 1, Fn::StartsWith},
    {"endsWith", true, 1, 1, Fn::EndsWith},
    {"contains", true, 1, 1, Fn::Contains},
    {"lowerAscii", true, 0, 0, Fn::LowerAscii},
    {"upperAscii", true, 0, 0, Fn::UpperAscii},
    {"trim", true, 0, 0, Fn::Trim},
    {"split", true, 1, 2, Fn::Split},
    {"join", true, 0, 1, Fn::Join},
    {"indexOf", true, 1, 2, Fn::IndexOf},
    {"lastIndexOf", true, 1, 2, Fn::LastIndexOf},
    {"substring", true, 1, 2, Fn::Substring},
    {"replace", true, 2, 3, Fn::Replace},
    {"charAt", true, 1, 1, Fn::CharAt},
    {"int", false, 1, 1, Fn::ToInt},
    {"uint", false, 1, 1, Fn::ToUint},
    {"double", false, 1, 1, Fn::ToDouble},
    {"string", false, 1, 1, Fn::ToString},
    {"bytes", false, 1, 1, Fn::ToBytes},
    {"bool", false, 1, 1, Fn::ToBool},
    {"type", false, 1, 1, Fn::Type},
    {"dyn", false, 1, 1, Fn::Dyn},
    {"isSorted", true, 0, 0, Fn::IsSorted},
    {"sum", true, 0, 0, Fn::Sum},
    {"min", true, 0, 0, Fn::Min},
    {"max", true, 0, 0, Fn::Max},
    {"optional.of", false, 1, 1, Fn::OptionalOf},
    {"optional.none", false, 0, 0, Fn::OptionalNone},
    {"optional.ofNonZeroValue", false, 1, 1, Fn::OptionalOfNonZero},
    {"hasValue", true, 0, 0, Fn::HasValue},
    {"value", true, 0, 0, Fn::OptionalValue},
    {"orValue", true, 1, 1, Fn::OrValue},
    {"or", true, 1, 1, Fn::Or},
    {"duration", false, 1, 1, Fn::Duration},
    {"timestamp", false, 1, 1, Fn::Timestamp},
};

std::string_view fnName(const Node& call) {
  return call.name;
}

bool isString(const Value& v) {
  return v.kind() == K::String;
}

// Byte offset of the code point at `index`, or npos past the end.
std::size_t byteOffset(std::string_view s, std::int64_t index) {
  if (index < 0) return std::string_view::npos;
  std::size_t cp = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (cp == static_cast<std::size_t>(index)) return i;
      ++cp;
    }
  }
  return std::string_view::npos;
}

std::int64_t codePointIndex(std::string_view s, std::size_t byte) {
  return static_cast<std::int64_t>(codePoints(s.substr(0, byte)));
}

// Length in bytes of the UTF-8 sequence starting with `lead`.
std::size_t sequenceLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xE) return 3;
  if ((lead >> 3) == 0x1E) return 4;
  return 1;
}

bool validUtf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    auto lead = static_cast<unsigned char>(s[i]);
    std::size_t n = sequenceLength(lead);
    if (n == 1 && lead >= 0x80) return false;
    if (i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

// Unicode White_Space at `s[i]`: its length in bytes, or 0.
std::size_t whitespaceAt(std::string_view s, std::size_t i) {
  static constexpr std::string_view kMultiByte[] = {
      "\u0085", "\u00A0", "\u1680", "\u2000", "\u2001", "\u2002", "\u2003",
      "\u2004", "\u2005", "\u2006", "\u2007", "\u2008", "\u2009", "\u200A",
      "\u2028", "\u2029", "\u202F", "\u205F", "\u3000"};
  char c = s[i];
  if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') return 1;
  for (std::string_view w : kMultiByte) {
    if (s.substr(i, w.size()) == w) return w.size();
  }
  return 0;
}

// Unicode White_Space ending at byte `end` (exclusive): its length in bytes, or 0.
std::size_t whitespaceBefore(std::string_view s, std::size_t end) {
  std::size_t start = end - 1;
  while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80 && end - start < 4) {
    --start;
  }
  std::size_t n = whitespaceAt(s, start);
  return n == end - start ? n : 0;
}

// The optional int argument `i` into `out`; false (and an error) when it is not an int.
bool intAt(Context& ctx, std::string_view fn, std::span<const Value> args, std::size_t i,
           std::int64_t& out) {
  if (i >= args.size()) return true;
  if (args[i].kind() != K::Int) {
    noOverload(ctx, fn, args);
    return false;
  }
  out = args[i].asInt();
  return true;
}

Value split(Context& ctx, std::string_view s, std::string_view sep, std::int64_t limit) {
  std::vector<Value> parts;
  if (limit == 0) return Value::list({});
  if (!ctx.charge(s.size() / 16 + 1)) return Value();
  if (sep.empty()) {
    // Into code points (the last part keeps the rest when a limit stops it).
    for (std::size_t i = 0; i < s.size();) {
      if (limit > 0 && static_cast<std::int64_t>(parts.size()) == limit - 1) {
        parts.push_back(Value::string(std::string(s.substr(i))));
        return Value::list(std::move(parts));
      }
      std::size_t n = std::min(sequenceLength(static_cast<unsigned char>(s[i])), s.size() - i);
      // Each part is a value of its own: charged as it is made, so a long string split into
      // code points runs out of budget before it runs out of memory.
      if (!ctx.charge(1)) return Value();
      parts.push_back(Value::string(std::string(s.substr(i, n))));
      i += n;
    }
    return Value::list(std::move(parts));
  }
  std::size_t start = 0;
  for (;;) {
    if (limit > 0 && static_cast<std::int64_t>(parts.size()) == limit - 1) break;
    std::size_t at = s.find(sep, start);
    if (at == std::string_view::npos) break;
    if (!ctx.charge(1)) return Value();
    parts.push_back(Value::string(std::string(s.substr(start, at - start))));
    start = at + sep.size();
  }
  parts.push_back(Value::string(std::string(s.substr(start))));
  return Value::list(std::move(parts));
}

Value replace(Context& ctx, std::string_view s, std::string_view from, std::string_view to,
              std::int64_t limit) {
  std::string out;
  std::size_t start = 0;
  std::int64_t done = 0;
  if (!ctx.charge(s.size() / 16 + 1)) return Value();
  if (from.empty()) {
    // Go's strings.Replace: the replacement goes before every code point and at the end.
    std::size_t i = 0;
    for (;;) {
      if (limit >= 0 && done == limit) break;
      out.append(to);
      ++done;
      if (!ctx.charge(to.size() / 16 + 1)) return Value();
      if (i >= s.size()) {
        i = s.size() + 1;
        break;
      }
      std::size_t n = std::min(sequenceLength(static_cast<unsigned char>(s[i])), s.size() - i);
      out.append(s.substr(i, n));
      i += n;
    }
    if (i <= s.size()) out.append(s.substr(i));
    return Value::string(std::move(out));
  }
  for (;;) {
    if (limit >= 0 && done == limit) break;
    std::size_t at = s.find(from, start);
    if (at == std::string_view::npos) break;
    out.append(s.substr(start, at - start)).append(to);
    if (!ctx.charge(to.size() / 16 + 1)) return Value();
    start = at + from.size();
    ++done;
  }
  out.append(s.substr(start));
  return Value::string(std::move(out));
}

Value toInt(Context& ctx, const Value& v) {
  switch (v.kind()) {
    case K::Int:
      return v;
    case K::Uint:
      if (v.asUint() > static_cast<std::uint64_t>(INT64_MAX)) return ctx.fail("int overflow");
      return Value::integer(static_cast<std::int64_t>(v.asUint()));
    case K::Double: {
      double d = v.asDouble();
      if (std::isnan(d) || d <= -9.2233720368547758e18 || d >= 9.2233720368547758e18) {
        return ctx.fail("int overflow");
      }
      return Value::integer(static_cast<std::int64_t>(d));
    }
    case K::String: {
      std::string_view s = v.asString();
      std::int64_t out = 0;
      auto r = std::from_chars(s.data(), s.data() + s.size(), out, 10);
      if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) {
        return ctx.fail("cannot convert '" + std::string(s) + "' to int");
      }
      return Value::integer(out);
    }
    case K::Timestamp: {
      std::int64_t ns = v.asInt();
      std::int64_t sec = ns / 1'000'000'000;
      if (ns % 1'000'000'000 < 0) --sec;
      return Value::integer(sec);
    }
    case K::Duration:
      return Value::integer(v.asInt());
    default:
      return noOverload(ctx, "int", {&v, 1});
  }
}

Value toUint(Context& ctx, const Value& v) {
  switch (v.kind()) {
    case K::Uint:
      return v;
    case K::Int:
      if (v.asInt() < 0) return ctx.fail("uint overflow");
      return Value::uinteger(static_cast<std::uint64_t>(v.asInt()));
    case K::Double: {
      double d = v.asDouble();
      if (std::isnan(d) || d <= -1 || d >= 1.8446744073709552e19) return ctx.fail("uint overflow");
      return Value::uinteger(static_cast<std::uint64_t>(d));
    }
    case K::String: {
      std::string_view s = v.asString();
      std::uint64_t out = 0;
      auto r = std::from_chars(s.data(), s.data() + s.size(), out, 10);
      if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) {
        return ctx.fail("cannot convert '" + std::string(s) + "' to uint");
      }
      return Value::uinteger(out);
    }
    default:
      return noOverload(ctx, "uint", {&v, 1});
  }
}

Value toDouble(Context& ctx, const Value& v) {
  switch (v.kind()) {
    case K::Double:
      return v;
    case K::Int:
      return Value::real(static_cast<double>(v.asInt()));
    case K::Uint:
      return Value::real(static_cast<double>(v.asUint()));
    case K::String: {
      std::string s(v.asString());
      double out = 0;
      auto r = std::from_chars(s.data(), s.data() + s.size(), out);
      if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) {
        if (s == "NaN") return Value::real(NAN);
        if (s == "Inf" || s == "+Inf" || s == "Infinity") return Value::real(HUGE_VAL);
        if (s == "-Inf" || s == "-Infinity") return Value::real(-HUGE_VAL);
        return ctx.fail("cannot convert '" + s + "' to double");
      }
      return Value::real(out);
    }
    default:
      return noOverload(ctx, "double", {&v, 1});
  }
}

Value toString(Context& ctx, const Value& v) {
  switch (v.kind()) {
    case K::String:
      return v;
    case K::Int:
      return Value::string(std::to_string(v.asInt()));
    case K::Uint:
      return Value::string(std::to_string(v.asUint()));
    case K::Double:
      return Value::string(formatDouble(v.asDouble()));
    case K::Bool:
      return Value::string(v.asBool() ? "true" : "false");
    case K::Bytes:
      if (!validUtf8(v.asString())) return ctx.fail("invalid UTF-8 in bytes to string");
      return Value::string(std::string(v.asString()));
    case K::Duration:
      return Value::string(formatDuration(v.asInt()));
    case K::Opaque:
      return Value::string(opaqueHeap(v).text());
    default:
      return noOverload(ctx, "string", {&v, 1});
  }
}

// The Kubernetes list library's ordering: numbers, strings, bools, durations, timestamps.
std::optional<int> orderOf(Context& ctx, const Value& a, const Value& b) {
  if (isNumber(a) && isNumber(b)) return compareNumbers(a, b);
  if (a.kind() == b.kind()) {
    switch (a.kind()) {
      case K::String:
      case K::Bytes: {
        int c = a.asString().compare(b.asString());
        return c < 0 ? -1 : (c > 0 ? 1 : 0);
      }
      case K::Bool:
        return static_cast<int>(a.asBool()) - static_cast<int>(b.asBool());
      case K::Duration:
      case K::Timestamp:
        return a.asInt() < b.asInt() ? -1 : (a.asInt() > b.asInt() ? 1 : 0);
      default:
        break;
    }
  }
  std::array<Value, 2> args{a, b};
  noOverload(ctx, "compare", args);
  return std::nullopt;
}

Value listFunction(Context& ctx, Fn fn, const Value& list, std::string_view name) {
  if (list.kind() != K::List) return noOverload(ctx, name, {&list, 1});
  auto items = list.asList();
  if (!ctx.charge(items.size())) return Value();
  switch (fn) {
    case Fn::IsSorted:
      for (std::size_t i = 1; i < items.size(); ++i) {
        auto c = orderOf(ctx, items[i - 1], items[i]);
        if (ctx.failed) return Value();
        if (c && *c > 0) return Value::boolean(false);
      }
      return Value::boolean(true);
    case Fn::Min:
    case Fn::Max: {
      if (items.empty()) return ctx.fail(std::string(name) + "() of an empty list");
      const Value* best = &items[0];
      for (std::size_t i = 1; i < items.size(); ++i) {
        auto c = orderOf(ctx, items[i], *best);
        if (ctx.failed) return Value();
        if (c && (fn == Fn::Min ? *c < 0 : *c > 0)) best = &items[i];
      }
      return *best;
    }
    default: {  // Sum: numbers or durations of one kind
      if (items.empty()) return Value::integer(0);
      Value total = items[0];
      for (std::size_t i = 1; i < items.size() && !ctx.failed; ++i) {
        if (items[i].kind() != total.kind()) {
          std::array<Value, 2> args{total, items[i]};
          return noOverload(ctx, "sum", args);
        }
        total = add(ctx, total, items[i]);
      }
      if (!ctx.failed && !isNumber(total) && total.kind() != K::Duration) {
        return noOverload(ctx, "sum", {&total, 1});
      }
      return ctx.failed ? Value() : total;
    }
  }
}

// A Go duration string ("300ms", "-1.5h", "2h45m", "0") in nanoseconds, within int64.
std::optional<std::int64_t> parseDuration(std::string_view s) {
  std::optional<long double> total = model::parseGoDuration(s);
  if (!total || *total >= 9.2233720368547758e18L || *total <= -9.2233720368547758e18L)
    return std::nullopt;
  return static_cast<std::int64_t>(*total);
}

// RFC 3339: "2006-01-02T15:04:05Z", fractions and offsets allowed.
std::optional<std::int64_t> parseTimestamp(std::string_view s) {
  auto num = [&](std::size_t at, std::size_t n) -> std::optional<int> {
    if (at + n > s.size()) return std::nullopt;
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      if (!std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
      v = v * 10 + (s[i] - '0');
    }
    return v;
  };
  auto year = num(0, 4), month = num(5, 2), day = num(8, 2), hour = num(11, 2), minute = num(14, 2),
       second = num(17, 2);
  if (!year || !month || !day || !hour || !minute || !second || s.size() < 20 || s[4] != '-' ||
      s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':') {
    return std::nullopt;
  }
  if (*month < 1 || *month > 12 || *day < 1 || *day > 31 || *hour > 23 || *minute > 59 ||
      *second > 60) {
    return std::nullopt;
  }
  std::size_t i = 19;
  std::int64_t nanos = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    int digits = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      if (digits < 9) nanos = nanos * 10 + (s[i] - '0');
      ++digits;
      ++i;
    }
    if (digits == 0) return std::nullopt;
    for (int k = digits; k < 9; ++k) nanos *= 10;
  }
  std::int64_t offset = 0;
  if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
    ++i;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    auto oh = num(i + 1, 2), om = num(i + 4, 2);
    if (!oh || !om || i + 6 > s.size() || s[i + 3] != ':') return std::nullopt;
    offset = (*oh * 60 + *om) * 60 * (s[i] == '-' ? -1 : 1);
    i += 6;
  } else {
    return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  // Days from the civil date (Howard Hinnant's algorithm).
  int y = *year - (*month <= 2 ? 1 : 0);
  int era = (y >= 0 ? y : y - 399) / 400;
  int yoe = y - era * 400;
  int mp = (*month + 9) % 12;
  int doy = (153 * mp + 2) / 5 + *day - 1;
  int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  std::int64_t days = static_cast<std::int64_t>(era) * 146097 + doe - 719468;
  std::int64_t secs = days * 86400 + *hour * 3600 + *minute * 60 + *second - offset;
  return secs * 1'000'000'000 + nanos;
}

}  // namespace

std::optional<Fn> lookupFunction(std::string_view name, bool receiver, std::size_t arity) {
  for (const Overload& o : kOverloads) {
    if (o.name == name && o.receiver == receiver && arity >= o.minArity && arity <= o.maxArity) {
      return o.fn;
    }
  }
  return lookupK8sFunction(name, receiver, arity);
}

Value noOverload(Context& ctx, std::string_view function, std::span<const Value> args) {
  std::string message = "no such overload: ";
  message += function;
  message += '(';
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i) message += ", ";
    message += args[i].typeName();
  }
  message += ')';
  return ctx.fail(std::move(message));
}

Value callFunction(const Node& call, std::span<const Value> args, Context& ctx) {
  std::string_view name = fnName(call);
  const Value& a = args[0];
  auto strings = [&](std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      if (!isString(args[i])) return false;
    }
    return true;
  };
  switch (call.fn) {
    case Fn::Size:
      switch (a.kind()) {
        case K::String:
          return Value::integer(static_cast<std::int64_t>(codePoints(a.asString())));
        case K::Bytes:
          return Value::integer(static_cast<std::int64_t>(a.asString().size()));
        case K::List:
          return Value::integer(static_cast<std::int64_t>(a.asList().size()));
        case K::Map:
          return Value::integer(static_cast<std::int64_t>(a.asMap().size()));
        default:
          return noOverload(ctx, name, args);
      }
    case Fn::Matches: {
      if (!strings(2)) return noOverload(ctx, name, args);
      if (!ctx.charge(a.asString().size() / 16 + 1)) return Value();
      if (call.regex) return Value::boolean(RE2::PartialMatch(a.asString(), *call.regex));
      RE2::Options options;
      options.set_log_errors(false);
      RE2 re(std::string(args[1].asString()), options);
      if (!re.ok()) return ctx.fail("invalid regular expression: " + re.error());
      return Value::boolean(RE2::PartialMatch(a.asString(), re));
    }
    case Fn::StartsWith:
    case Fn::EndsWith:
    case Fn::Contains: {
      if (!strings(2)) return noOverload(ctx, name, args);
      std::string_view s = a.asString(), x = args[1].asString();
      if (!ctx.charge(s.size() / 64 + 1)) return Value();
      if (call.fn == Fn::StartsWith) return Value::boolean(s.starts_with(x));
      if (call.fn == Fn::EndsWith) return Value::boolean(s.ends_with(x));
      return Value::boolean(s.find(x) != std::string_view::npos);
    }
    case Fn::LowerAscii:
    case Fn::UpperAscii: {
      if (!strings(1)) return noOverload(ctx, name, args);
      std::string s(a.asString());
      for (char& c : s) {
        if (call.fn == Fn::LowerAscii && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        if (call.fn == Fn::UpperAscii && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
      }
      return Value::string(std::move(s));
    }
    case Fn::Trim: {
      if (!strings(1)) return noOverload(ctx, name, args);
      std::string_view s = a.asString();
      std::size_t start = 0, end = s.size();
      while (start < end) {
        std::size_t n = whitespaceAt(s, start);
        if (!n) break;
        start += n;
      }
      while (end > start) {
        std::size_t n = whitespaceBefore(s, end);
        if (!n) break;
        end -= n;
      }
      return Value::string(std::string(s.substr(start, end - start)));
    }
    case Fn::Split: {
      if (!strings(2)) return noOverload(ctx, name, args);
      std::int64_t limit = -1;
      if (!intAt(ctx, name, args, 2, limit)) return Value();
      return split(ctx, a.asString(), args[1].asString(), limit);
    }
    case Fn::Join: {
      if (a.kind() != K::List || (args.size() == 2 && !isString(args[1]))) {
        return noOverload(ctx, name, args);
      }
      std::string_view sep = args.size() == 2 ? args[1].asString() : std::string_view();
      std::string out;
      bool first = true;
      for (const Value& item : a.asList()) {
        if (!isString(item)) return noOverload(ctx, name, {&item, 1});
        if (!ctx.charge((item.asString().size() + sep.size()) / 64 + 1)) return Value();
        if (!first) out.append(sep);
        first = false;
        out.append(item.asString());
      }
      return Value::string(std::move(out));
    }
    case Fn::IndexOf:
    case Fn::LastIndexOf: {
      if (a.kind() == K::List && args.size() == 2) {
        auto items = a.asList();
        if (!ctx.charge(items.size())) return Value();
        if (call.fn == Fn::IndexOf) {
          for (std::size_t i = 0; i < items.size(); ++i) {
            if (items[i] == args[1]) return Value::integer(static_cast<std::int64_t>(i));
          }
        } else {
          for (std::size_t i = items.size(); i-- > 0;) {
            if (items[i] == args[1]) return Value::integer(static_cast<std::int64_t>(i));
          }
        }
        return Value::integer(-1);
      }
      if (!strings(2)) return noOverload(ctx, name, args);
      std::string_view s = a.asString(), x = args[1].asString();
      if (!ctx.charge(s.size() / 16 + 1)) return Value();
      std::int64_t cpCount = static_cast<std::int64_t>(codePoints(s));
      if (call.fn == Fn::IndexOf) {
        std::int64_t from = 0;
        if (!intAt(ctx, name, args, 2, from)) return Value();
        if (from < 0 || from > cpCount)
          return ctx.fail("index out of range: " + std::to_string(from));
        std::size_t at = s.find(x, byteOffset(s, from));
        return Value::integer(at == std::string_view::npos ? -1 : codePointIndex(s, at));
      }
      std::int64_t from = cpCount;
      if (!intAt(ctx, name, args, 2, from)) return Value();
      if (from < 0 || from > cpCount)
        return ctx.fail("index out of range: " + std::to_string(from));
      std::size_t at = s.rfind(x, byteOffset(s, from));
      return Value::integer(at == std::string_view::npos ? -1 : codePointIndex(s, at));
    }
    case Fn::Substring: {
      if (!isString(a)) return noOverload(ctx, name, args);
      std::string_view s = a.asString();
      std::int64_t cpCount = static_cast<std::int64_t>(codePoints(s));
      std::int64_t from = 0, to = cpCount;
      if (!intAt(ctx, name, args, 1, from)) return Value();
      if (!intAt(ctx, name, args, 2, to)) return Value();
      if (from < 0 || from > cpCount)
        return ctx.fail("index out of range: " + std::to_string(from));
      if (to < from || to > cpCount) return ctx.fail("index out of range: " + std::to_string(to));
      std::size_t b = byteOffset(s, from), e = byteOffset(s, to);
      return Value::string(std::string(s.substr(b, e - b)));
    }
    case Fn::Replace: {
      if (!strings(3)) return noOverload(ctx, name, args);
      std::int64_t limit = -1;
      if (!intAt(ctx, name, args, 3, limit)) return Value();
      return replace(ctx, a.asString(), args[1].asString(), args[2].asString(), limit);
    }
    case Fn::CharAt: {
      if (!isString(a)) return noOverload(ctx, name, args);
      std::int64_t i = 0;
      if (!intAt(ctx, name, args, 1, i)) return Value();
      std::string_view s = a.asString();
      std::int64_t cpCount = static_cast<std::int64_t>(codePoints(s));
      if (i < 0 || i > cpCount) return ctx.fail("index out of range: " + std::to_string(i));
      if (i == cpCount) return Value::string("");
      std::size_t b = byteOffset(s, i);
      std::size_t n = std::min(sequenceLength(static_cast<unsigned char>(s[b])), s.size() - b);
      return Value::string(std::string(s.substr(b, n)));
    }
    case Fn::ToInt:
      return toInt(ctx, a);
    case Fn::ToUint:
      return toUint(ctx, a);
    case Fn::ToDouble:
      return toDouble(ctx, a);
    case Fn::ToString:
      return toString(ctx, a);
    case Fn::ToBytes:
      if (a.kind() == K::Bytes) return a;
      if (!isString(a)) return noOverload(ctx, name, args);
      return Value::bytes(std::string(a.asString()));
    case Fn::ToBool:
      if (a.kind() == K::Bool) return a;
      if (isString(a)) {
        std::string_view s = a.asString();
        if (s == "true" || s == "True" || s == "TRUE" || s == "t" || s == "1")
          return Value::boolean(true);
        if (s == "false" || s == "False" || s == "FALSE" || s == "f" || s == "0")
          return Value::boolean(false);
        return ctx.fail("cannot convert '" + std::string(s) + "' to bool");
      }
      return noOverload(ctx, name, args);
    case Fn::Type:
      return Value::type(a.typeName());
    case Fn::Dyn:
      return a;
    case Fn::IsSorted:
    case Fn::Sum:
    case Fn::Min:
    case Fn::Max:
      return listFunction(ctx, call.fn, a, name);
    case Fn::OptionalOf:
      return Value::optional(&a);
    case Fn::OptionalNone:
      return Value::optional(nullptr);
    case Fn::OptionalOfNonZero: {
      bool zero = false;
      switch (a.kind()) {
        case K::Null:
          zero = true;
          break;
        case K::Bool:
          zero = !a.asBool();
          break;
        case K::Int:
        case K::Duration:
        case K::Timestamp:
          zero = a.asInt() == 0;
          break;
        case K::Uint:
          zero = a.asUint() == 0;
          break;
        case K::Double:
          zero = a.asDouble() == 0;
          break;
        case K::String:
        case K::Bytes:
          zero = a.asString().empty();
          break;
        case K::List:
          zero = a.asList().empty();
          break;
        case K::Map:
          zero = a.asMap().empty();
          break;
        default:
          break;
      }
      return Value::optional(zero ? nullptr : &a);
    }
    case Fn::HasValue:
      if (a.kind() != K::Optional) return noOverload(ctx, name, args);
      return Value::boolean(a.hasValue());
    case Fn::OptionalValue:
      if (a.kind() != K::Optional) return noOverload(ctx, name, args);
      if (!a.hasValue()) return ctx.fail("optional.none() dereference");
      return a.optionalValue();
    case Fn::OrValue:
      if (a.kind() != K::Optional) return noOverload(ctx, name, args);
      return a.hasValue() ? a.optionalValue() : args[1];
    case Fn::Or:
      if (a.kind() != K::Optional || args[1].kind() != K::Optional)
        return noOverload(ctx, name, args);
      return a.hasValue() ? a : args[1];
    case Fn::Duration: {
      if (a.kind() == K::Duration) return a;
      if (!isString(a)) return noOverload(ctx, name, args);
      auto d = parseDuration(a.asString());
      if (!d) return ctx.fail("invalid duration '" + std::string(a.asString()) + "'");
      return Value::duration(*d);
    }
    case Fn::Timestamp: {
      if (a.kind() == K::Timestamp) return a;
      if (!isString(a)) return noOverload(ctx, name, args);
      auto t = parseTimestamp(a.asString());
      if (!t) return ctx.fail("invalid timestamp '" + std::string(a.asString()) + "'");
      return Value::timestamp(*t);
    }
    default:
      return callK8sFunction(call, args, ctx);
  }
}

}  // namespace pg::cel::detail
