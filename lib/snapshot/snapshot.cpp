#include "lib/snapshot/snapshot.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <unordered_map>

#include "lib/load/sources.h"
#include "lib/model/file.h"
#include "lib/policy/linkerd/access.h"
#include "lib/report/report.h"
#include "lib/yaml/parser.h"

namespace pg::snapshot {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kExtension = ".yaml";

// What every snapshot says under its first line, which names the object. The body is
// explain's document (DESIGN.md "Output contracts": snapshots carry the same content), with
// the comments that make a pull request's diff readable.
constexpr std::string_view kHeader =
    "# the content of `policygraph explain` for it, with a comment after each value naming the\n"
    "# policy it came from (role, level). Review changes; do not edit.\n";

// The header of a file with a Kuma or Linkerd section, whose comments name policies and
// objects without roles and levels.
constexpr std::string_view kMeshHeader =
    "# the content of `policygraph explain` for it, with a comment naming the policy or object\n"
    "# each value or entry came from. Review changes; do not edit.\n";

constexpr std::string_view kHeaderStart = "# Effective policies on ";
constexpr std::string_view kHeaderEnd = ", written by `policygraph snapshot --update`:";

std::string headerOf(const model::Resource& object, bool mesh) {
  return std::string(kHeaderStart) + object.display() + std::string(kHeaderEnd) + "\n" +
         std::string(mesh ? kMeshHeader : kHeader);
}

// What one object's snapshot shows: its GEP-713-style effective policies, and for a workload
// the inbound policy Linkerd serves it and the Kuma proxy derived from it.
struct Parts {
  const std::vector<policy::Effective>* effective = nullptr;
  const policy::linkerd::WorkloadInbound* linkerd = nullptr;
  const graph::kuma::Dataplane* kuma = nullptr;
  std::vector<std::string> kumaTypes;
};

std::string contentsOf(const Parts& parts) {
  std::string out;
  auto add = [&](const std::string& what) {
    if (out.find(what) == std::string::npos) out += (out.empty() ? "" : ", ") + what;
  };
  if (parts.effective)
    for (const policy::Effective& e : *parts.effective) add(e.profile->kind);
  if (parts.linkerd) add("Linkerd inbound");
  for (const std::string& type : parts.kumaTypes) add("Kuma " + type);
  return out;
}

std::string renderOne(const analysis::Analysis& a, const model::Resource& object,
                      const Parts& parts) {
  static const std::vector<policy::Effective> none;
  std::ostringstream out;
  out << headerOf(object, parts.linkerd || parts.kuma);
  report::writeExplainYaml(
      out, {object, {}, parts.effective ? *parts.effective : none, parts.linkerd, parts.kuma, &a},
      {.annotated = true});
  return out.str();
}

// A Universal or Kubernetes-form Dataplane, or a MeshGateway: Kuma's explain of the proxy.
std::string renderKumaProxy(const analysis::Analysis& a, const model::Resource& object) {
  std::ostringstream out;
  out << headerOf(object, true);
  report::writeKumaExplainYaml(out, a, object, {.annotated = true});
  return out.str();
}

// A snapshot as written, whatever line ends a checkout gave it: a Windows checkout with
// `core.autocrlf` turns every "\n" into "\r\n", and that is no drift. Nothing when it cannot
// be read, is larger than `maxBytes`, or resolves outside `folder` through a symlink.
std::optional<std::string> readFile(const fs::path& file, const fs::path& folder,
                                    std::uint64_t maxBytes) {
  if (!model::resolvesInside(file, folder)) return std::nullopt;
  model::ReadResult read = model::readFile(file, maxBytes);
  if (!read.ok()) return std::nullopt;
  std::string text = std::move(read.text);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] != '\r' || i + 1 == text.size() || text[i + 1] != '\n') text[kept++] = text[i];
  text.resize(kept);
  return text;
}

// Whether a file's text is a snapshot this tool wrote: its first line is headerOf's.
bool writtenBySnapshot(std::string_view text) {
  std::string_view first = text.substr(0, text.find('\n'));
  return first.starts_with(kHeaderStart) && first.ends_with(kHeaderEnd);
}

// A part of a snapshot's file name (kind, namespace, mesh, name) that can only ever be one
// name inside its folder. Names that the API server would refuse (IN121) never reach here
// unchanged, but a placeholder or a Kind can hold anything.
bool safePart(std::string_view part) {
  if (part.empty() || part == "." || part == "..") return false;
  return std::none_of(part.begin(), part.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return c == '/' || c == '\\' || u < 0x20 || u == 0x7f;
  });
}

// Replaces `file` with `text` through a temporary file beside it and a rename, so that a
// reader, or a crash, sees the old snapshot or the new one and never part of one. The
// temporary name starts with a dot, which filesIn and the loader skip; it is removed when
// anything fails. Returns 0, or the errno of the failure.
int writeAtomically(const fs::path& file, std::string_view text) {
  const std::string prefix = "." + file.filename().string() + ".tmp" + std::to_string(::getpid());
  fs::path temp;
  int fd = -1;
  for (int n = 0; fd < 0; ++n) {
    temp = file.parent_path() / (prefix + "-" + std::to_string(n));
    // 0666 as the umask allows, as for any file the user writes.
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && (errno != EEXIST || n == 100)) return errno;
  }
  auto fail = [&](int error) {
    if (fd >= 0) ::close(fd);
    ::unlink(temp.c_str());
    return error;
  };
  for (std::size_t done = 0; done < text.size();) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(errno);
    done += static_cast<std::size_t>(n);
  }
  // On disk before the rename: otherwise a crash can leave the new name on empty content.
  if (::fsync(fd) != 0) return fail(errno);
  const int closed = ::close(fd);
  fd = -1;
  if (closed != 0) return fail(errno);
  if (::rename(temp.c_str(), file.c_str()) != 0) return fail(errno);
  return 0;
}

// The `.yaml` files under the folder, relative and '/'-separated, sorted. Hidden entries are
// the user's own (an editor's swap files), as the loader skips them too.
std::vector<std::string> filesIn(const fs::path& folder) {
  std::vector<std::string> files;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return files;
  for (auto it = fs::recursive_directory_iterator(folder, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.starts_with(".")) {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec) && name.ends_with(kExtension))
      files.push_back(it->path().lexically_relative(folder).generic_string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The object a snapshot file name names, if it is in the input.
const model::Resource* objectOf(const analysis::Analysis& a, std::string_view file) {
  file.remove_suffix(kExtension.size());
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t slash = file.find('/', start);
    parts.emplace_back(file.substr(start, slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  std::vector<const model::Resource*> found;
  if (parts.size() == 3 && parts[1].starts_with("@"))
    found = a.store.findInMesh(parts[0], std::string_view(parts[1]).substr(1), parts[2]);
  else if (parts.size() == 3)
    found = a.store.findByKind(parts[0], parts[1], parts[2]);
  if (parts.size() == 2) found = a.store.findByKind(parts[0], "", parts[1]);
  return found.empty() ? nullptr : found.front();
}

std::vector<std::string_view> linesOf(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Leaves of a snapshot document as `field` → text. Policies are named by kind and path
// rather than by their index, so that a policy added above does not rename every field.
using Leaves = std::vector<std::pair<std::string, std::string>>;

void flatten(yaml::NodeRef node, const std::string& field, Leaves& out) {
  if (node.isMapping() && node.size() > 0) {
    for (auto [k, v] : node.entries())
      flatten(v, field.empty() ? std::string(k.str()) : field + "." + std::string(k.str()), out);
  } else if (node.isSequence() && node.size() > 0) {
    std::size_t i = 0;
    for (yaml::NodeRef item : node.items())
      flatten(item, field + "[" + std::to_string(i++) + "]", out);
  } else if (node.isMapping()) {
    out.emplace_back(field, "{}");
  } else if (node.isSequence()) {
    out.emplace_back(field, "[]");
  } else {
    out.emplace_back(field, node.isNull() ? std::string("null") : std::string(node.str()));
  }
}

// Adds `text` to the leaf named `field`, or makes it: lists whose entries name a field are
// compared per field, so that an entry added above does not renumber the rest.
void addTo(Leaves& out, const std::string& field, const std::string& text) {
  auto it = std::find_if(out.begin(), out.end(), [&](const auto& l) { return l.first == field; });
  if (it == out.end())
    out.emplace_back(field, text);
  else
    it->second += ", " + text;
}

std::string fieldName(yaml::NodeRef entry) {
  std::string_view field = entry.get("field").str();
  return field.empty() ? std::string("(whole)") : std::string(field);
}

// The leaves of one policy entry, after its label (`Kind [path]`): the effective fields as
// explain names them, `provenance of F` (who set F: a policy moving to another source with
// the same value is drift too), `overridden F` and `ineffective`, each in words.
void entryLeaves(yaml::NodeRef entry, const std::string& label, Leaves& out) {
  for (auto [ek, ev] : entry.entries()) {
    std::string_view key = ek.str();
    if (key == "kind" || key == "path") continue;
    if (key == "effective" && ev.isMapping() && ev.size() > 0) {
      for (auto [fk, fv] : ev.entries()) flatten(fv, label + " " + std::string(fk.str()), out);
    } else if (key == "effective") {
      flatten(ev, label, out);
    } else if (key == "provenance" && ev.isSequence()) {
      for (yaml::NodeRef p : ev.items())
        addTo(
            out, label + " provenance of " + fieldName(p),
            report::originWords(p.get("policy").str(), p.get("role").str(), p.get("level").str()) +
                // A value that moves between the file and the schema's default is drift too.
                (p.get("defaultFrom") ? "; default from " + std::string(p.get("defaultFrom").str())
                                      : std::string()));
    } else if (key == "overridden" && ev.isSequence()) {
      for (yaml::NodeRef o : ev.items())
        addTo(out, label + " overridden " + fieldName(o),
              std::string(o.get("policy").str()) + " (" + std::string(o.get("role").str()) +
                  ") by " + std::string(o.get("by").str()) + " (" +
                  std::string(o.get("byRole").str()) + ")");
    } else if (key == "ineffective" && ev.isSequence()) {
      for (yaml::NodeRef p : ev.items()) addTo(out, label + " ineffective", std::string(p.str()));
    } else {
      flatten(ev, label + " " + std::string(key), out);
    }
  }
}

Leaves leavesOf(std::string_view text) {
  Leaves out;
  yaml::ParseResult parsed = yaml::parse(std::string(text), {}, false);
  if (!parsed.problems.empty() || parsed.tree->documents().empty()) return out;
  yaml::NodeRef root = parsed.tree->root(0);
  for (auto [k, v] : root.entries()) {
    if (k.str() != "policies") {
      flatten(v, std::string(k.str()), out);
      continue;
    }
    for (yaml::NodeRef entry : v.items()) {
      std::string path;
      for (yaml::NodeRef step : entry.get("path").items())
        path += (path.empty() ? "" : " > ") + std::string(step.str());
      entryLeaves(entry, std::string(entry.get("kind").str()) + " [" + path + "]", out);
    }
  }
  return out;
}

std::uint32_t codePoints(std::string_view s) {
  std::uint32_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

}  // namespace

fs::path folderOf(const analysis::Analysis& a) {
  fs::path dir =
      a.config.snapshots.dir.empty() ? fs::path(kDefaultFolder) : fs::path(a.config.snapshots.dir);
  if (!a.environment.empty()) dir /= a.environment;
  return (dir.is_absolute() ? dir : a.root / dir).lexically_normal();
}

bool checked(const analysis::Analysis& a) {
  std::error_code ec;
  return a.config.snapshots.required || !a.config.snapshots.dir.empty() ||
         fs::is_directory(folderOf(a), ec);
}

std::string fileNameOf(const model::Resource& object) {
  // A Universal object is named within its mesh; `@` starts no Kubernetes namespace.
  const std::string space =
      object.universal ? "@" + std::string(object.mesh) : std::string(object.namespace_);
  if (!safePart(object.kind) || !safePart(object.name) || (!space.empty() && !safePart(space)))
    return {};
  std::string file(object.kind);
  if (!space.empty()) file += "/" + space;
  return file + "/" + std::string(object.name) + std::string(kExtension);
}

std::vector<Snapshot> render(const analysis::Analysis& a) {
  std::vector<Snapshot> out;
  // Objects in the order they are first met; each gets one file.
  std::vector<const model::Resource*> order;
  std::unordered_map<const model::Resource*, Parts> parts;
  auto partsOf = [&](const model::Resource* object) -> Parts& {
    auto [it, added] = parts.try_emplace(object);
    if (added) order.push_back(object);
    return it->second;
  };
  for (const policy::ObjectEffective& o : a.policies.effective)
    if (!o.effective.empty()) partsOf(o.object).effective = &o.effective;
  // Linkerd: every workload it injects, with the inbound policy each port is served.
  for (const policy::linkerd::WorkloadInbound& w : a.linkerd.workloads)
    if (!w.ports.empty() && policy::linkerd::injected(a.store, *w.workload, nullptr))
      partsOf(w.workload).linkerd = &w;
  // Kuma: every proxy some policy selects; a derived one is its workload's.
  auto addProxy = [&](const model::Resource& object, std::vector<std::string> types) {
    std::string file = fileNameOf(object);
    if (file.empty()) return;  // a name that would not stay one file name
    out.push_back({std::move(file), &object, renderKumaProxy(a, object),
                   contentsOf({.kumaTypes = std::move(types)})});
  };
  for (const graph::kuma::Dataplane& dp : a.kuma.dataplanes) {
    std::vector<std::string> types = report::kumaPolicyTypes(a, dp);
    if (types.empty()) continue;
    if (!dp.derived) {
      addProxy(*dp.resource, std::move(types));
      continue;
    }
    Parts& p = partsOf(dp.resource);
    p.kuma = &dp;
    p.kumaTypes = std::move(types);
  }
  for (const graph::kuma::MeshGateway& gw : a.kuma.gateways)
    if (std::vector<std::string> types = report::kumaPolicyTypes(a, *gw.resource); !types.empty())
      addProxy(*gw.resource, std::move(types));
  for (const model::Resource* object : order) {
    std::string file = fileNameOf(*object);
    if (file.empty()) continue;  // a name that would not stay one file name
    const Parts& p = parts[object];
    out.push_back({std::move(file), object, renderOne(a, *object, p), contentsOf(p)});
  }
  std::sort(out.begin(), out.end(),
            [](const Snapshot& x, const Snapshot& y) { return x.file < y.file; });
  return out;
}

UpdateResult update(const analysis::Analysis& a, const fs::path& folder) {
  const std::string shown = load::displayPath(folder, a.root);
  // Writes stay inside the root, whatever the config, --dir or a committed symlink say, and
  // never into the root itself, where every manifest would be a stale snapshot.
  std::error_code ec;
  if (!model::resolvesInside(folder, a.root) ||
      fs::weakly_canonical(folder, ec) == fs::weakly_canonical(a.root, ec))
    throw std::runtime_error("refusing to write snapshots to " + shown +
                             ": it resolves outside the repository root, or is the root "
                             "itself; name a folder below it (snapshots: {dir: ...} or --dir)");
  const std::uint64_t maxBytes = a.config.limits.maxFileBytes;
  // Every .yaml file already there must be a snapshot this tool wrote: the folder is deleted
  // from, and nothing but snapshots may be.
  const std::vector<std::string> existing = filesIn(folder);
  for (const std::string& name : existing) {
    std::optional<std::string> text = readFile(folder / name, folder, maxBytes);
    if (!text || !writtenBySnapshot(*text))
      throw std::runtime_error("refusing to write snapshots to " + shown + ": " + shown + "/" +
                               name +
                               " is not a snapshot written by `policygraph snapshot --update` "
                               "(snapshots own their folder: move other files out of it)");
  }
  UpdateResult result;
  std::set<std::string> kept;
  for (const Snapshot& s : render(a)) {
    kept.insert(s.file);
    fs::path file = folder / s.file;
    if (!model::resolvesInside(file, folder))
      throw std::runtime_error("refusing to write " + load::displayPath(file, a.root) +
                               ": it resolves outside " + shown + " through a symlink");
    if (std::optional<std::string> old = readFile(file, folder, maxBytes); old && *old == s.text) {
      ++result.unchanged;
      continue;
    }
    fs::create_directories(file.parent_path(), ec);
    if (ec)
      throw std::runtime_error("cannot create " + load::displayPath(file.parent_path(), a.root) +
                               ": " + ec.message());
    if (int error = writeAtomically(file, s.text))
      throw std::runtime_error("cannot write " + load::displayPath(file, a.root) + ": " +
                               std::generic_category().message(error));
    result.written.push_back(s.file);
  }
  for (const std::string& name : existing) {
    if (kept.count(name)) continue;
    fs::path file = folder / name;
    fs::remove(file, ec);
    if (ec)
      throw std::runtime_error("cannot remove " + load::displayPath(file, a.root) + ": " +
                               ec.message());
    result.deleted.push_back(name);
    // Folders emptied by the removal go too, so a renamed namespace leaves nothing behind.
    for (fs::path dir = file.parent_path(); dir != folder && fs::is_empty(dir, ec) && !ec;
         dir = dir.parent_path())
      fs::remove(dir, ec);
  }
  return result;
}

std::vector<std::string> changedFields(std::string_view before, std::string_view after) {
  Leaves old = leavesOf(before), now = leavesOf(after);
  std::map<std::string, std::string, std::less<>> oldByField(old.begin(), old.end());
  std::set<std::string, std::less<>> seen;
  std::vector<std::string> out;
  for (const auto& [field, value] : now) {
    seen.insert(field);
    auto it = oldByField.find(field);
    if (it == oldByField.end())
      out.push_back(field + ": (absent) → " + value);
    else if (it->second != value)
      out.push_back(field + ": " + it->second + " → " + value);
  }
  for (const auto& [field, value] : old)
    if (!seen.count(field)) out.push_back(field + ": " + value + " → (absent)");
  return out;
}

std::vector<Drift> compare(const analysis::Analysis& a, const fs::path& folder) {
  std::vector<Drift> out;
  // A folder that resolves outside the root (a committed symlink in its place) is not read:
  // every snapshot is then missing, unless --dir named it.
  const bool readable = a.config.snapshots.fromCommandLine || model::resolvesInside(folder, a.root);
  std::vector<Snapshot> snapshots = render(a);
  std::set<std::string, std::less<>> expected;
  for (const Snapshot& s : snapshots) expected.insert(s.file);
  auto reported = [&](const std::string& file) { return load::displayPath(folder / file, a.root); };
  for (const Snapshot& s : snapshots) {
    std::optional<std::string> disk =
        readable ? readFile(folder / s.file, folder, a.config.limits.maxFileBytes) : std::nullopt;
    if (!disk) {
      out.push_back(
          {DriftKind::Missing, s.file, reported(s.file), s.object, s.contents, 1, {}, {}});
      continue;
    }
    if (*disk == s.text) continue;
    std::vector<std::string_view> was = linesOf(*disk), now = linesOf(s.text);
    std::size_t line = 0;
    while (line < was.size() && line < now.size() && was[line] == now[line]) ++line;
    Drift d{DriftKind::Changed, s.file, reported(s.file), s.object, s.contents, 1, {}, {}};
    // Lines only the new text has are reported at the last line the file has.
    std::size_t at = std::min(line, was.empty() ? 0 : was.size() - 1);
    d.line = static_cast<std::uint32_t>(at + 1);
    if (at < was.size()) d.lineText = std::string(was[at]);
    d.changes = changedFields(*disk, s.text);
    if (d.changes.empty()) {
      // Only comments or layout differ: the provenance of a value, or a hand edit.
      std::string before = line < was.size() ? std::string(trim(was[line])) : "(end of file)";
      std::string after = line < now.size() ? std::string(trim(now[line])) : "(end of file)";
      d.changes.push_back("line " + std::to_string(line + 1) + ": " + before + " → " + after);
    }
    out.push_back(std::move(d));
  }
  for (const std::string& file : readable ? filesIn(folder) : std::vector<std::string>{}) {
    if (expected.count(file)) continue;
    Drift d{DriftKind::Orphaned, file, reported(file), objectOf(a, file), {}, 1, {}, {}};
    if (std::optional<std::string> disk =
            readFile(folder / file, folder, a.config.limits.maxFileBytes)) {
      std::vector<std::string_view> lines = linesOf(*disk);
      if (!lines.empty()) d.lineText = std::string(lines.front());
    }
    out.push_back(std::move(d));
  }
  std::sort(out.begin(), out.end(), [](const Drift& x, const Drift& y) { return x.file < y.file; });
  return out;
}

model::Location locationOf(const Drift& d) {
  // The line's text, as a finding on a field spans it: from its first character (after the
  // indentation) to its last.
  std::string_view text = d.lineText;
  std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {d.path, {d.line, 1}, {d.line, 1}};
  std::size_t last = text.find_last_not_of(" \t\r");
  yaml::Mark start{d.line, codePoints(text.substr(0, first)) + 1};
  yaml::Mark end{d.line, codePoints(text.substr(0, last + 1)) + 1};
  return {d.path, start, end};
}

}  // namespace pg::snapshot
