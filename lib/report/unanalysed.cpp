#include "lib/report/unanalysed.h"

#include <algorithm>
#include <iterator>
#include <string_view>
#include <tuple>

#include "lib/policy/profile.h"
#include "lib/schema/schema.h"

namespace pg::report {

namespace {

// Kinds a stage reads outside the families' own groups: workloads and the core objects the
// topology and the mesh models resolve, CRDs (schemas), and the objects that produce or stand
// for what a Gateway or a route names.
struct ReadKind {
  std::string_view group;
  std::string_view kind;
};
constexpr ReadKind kReadKinds[] = {
    {"", "Namespace"},
    {"", "Service"},
    {"", "Secret"},
    {"", "ConfigMap"},
    {"", "Pod"},
    {"", "ServiceAccount"},
    {"apps", "Deployment"},
    {"apps", "StatefulSet"},
    {"apps", "DaemonSet"},
    {"apps", "ReplicaSet"},
    {"batch", "Job"},
    {"batch", "CronJob"},
    {"apiextensions.k8s.io", "CustomResourceDefinition"},
    {"cert-manager.io", "Certificate"},
    {"certificates.k8s.io", "ClusterTrustBundle"},
    {"multicluster.x-k8s.io", "ServiceImport"},
    {"gateway.envoyproxy.io", "EnvoyProxy"},
    {"gateway.envoyproxy.io", "EnvoyPatchPolicy"},
    {"gateway.envoyproxy.io", "Backend"},
};

// Groups a family reads whole: every kind in them is simulated or validated.
constexpr std::string_view kReadGroups[] = {
    "gateway.networking.k8s.io",
    "gateway.networking.x-k8s.io",
    "kuma.io",
    "policy.linkerd.io",
};

bool read(std::string_view group, std::string_view kind) {
  return std::any_of(std::begin(kReadKinds), std::end(kReadKinds),
                     [&](const ReadKind& k) { return k.group == group && k.kind == kind; }) ||
         std::find(std::begin(kReadGroups), std::end(kReadGroups), group) != std::end(kReadGroups);
}

void add(std::vector<UnanalysedKind>& out, std::string_view group, std::string_view kind,
         const std::string& object) {
  auto it = std::find_if(out.begin(), out.end(), [&](const UnanalysedKind& k) {
    return k.group == group && k.kind == kind;
  });
  if (it == out.end()) it = out.insert(out.end(), {std::string(group), std::string(kind), {}});
  if (std::find(it->objects.begin(), it->objects.end(), object) == it->objects.end())
    it->objects.push_back(object);
}

}  // namespace

std::vector<UnanalysedKind> unanalysedKinds(
    const std::vector<const analysis::Analysis*>& analyses) {
  std::vector<UnanalysedKind> out;
  for (const analysis::Analysis* a : analyses) {
    // The schemas the analysis validated against: built in, and the input's CRDs.
    const schema::Channel channel = analysis::schemaChannel(a->config);
    schema::Registry schemas(channel);
    // Policy kinds whose GEP-713 label is neither Direct nor Inherited: validated, but no
    // semantics is guessed for them, so they count as not analysed.
    std::vector<std::pair<std::string, std::string>> oddPolicies;
    auto odd = [&](std::string_view group, std::string_view kind, std::string_view label) {
      bool inherited = false;
      if (!policy::policyLabelClass(label, inherited))
        oddPolicies.emplace_back(std::string(group), std::string(kind));
    };
    for (const schema::Registry::PolicyLabel& l : schema::Registry::builtinPolicyLabels(channel))
      odd(l.group, l.kind, l.value);
    for (const model::Resource* crd :
         a->store.ofKind("apiextensions.k8s.io", "CustomResourceDefinition")) {
      schemas.add(crd->node, "CustomResourceDefinition " + std::string(crd->name));
      if (yaml::NodeRef label = crd->labels().get(policy::kPolicyLabel))
        odd(crd->spec().get("group").str(), crd->spec().get("names").get("kind").str(),
            label.str());
    }
    for (const model::Resource* r : a->store.objects()) {
      if (r->kind.empty() || read(r->group, r->kind)) continue;  // no kind: IN109 says so
      // A profile (built in, or the config's `policies:`) analyses it whatever its label says.
      if (a->policies.profiles.find(r->group, r->kind)) continue;
      const bool oddPolicy =
          std::find(oddPolicies.begin(), oddPolicies.end(),
                    std::pair<std::string, std::string>(r->group, r->kind)) != oddPolicies.end();
      if (!oddPolicy && schemas.find(r->group, r->kind)) continue;
      const model::Location at = r->locate(r->node);
      add(out, r->group, r->kind, at.path + ":" + std::to_string(at.start.line));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const UnanalysedKind& a, const UnanalysedKind& b) {
    if (a.objects.size() != b.objects.size()) return a.objects.size() > b.objects.size();
    return std::tie(a.kind, a.group) < std::tie(b.kind, b.group);
  });
  return out;
}

std::string unanalysedSummary(const std::vector<UnanalysedKind>& kinds) {
  std::string out;
  for (const UnanalysedKind& k : kinds)
    out += (out.empty() ? "" : ", ") + std::to_string(k.objects.size()) + " " + k.kind;
  return out;
}

}  // namespace pg::report
