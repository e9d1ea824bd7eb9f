#!/usr/bin/env python3
"""Regenerates lib/schema/data/ from the upstream API definitions in ../shared/crds/.

    scripts/gen_schemas.py [--crds ../shared/crds] [--out lib/schema/data]

Every built-in schema is written by this script; nothing under lib/schema/data/ is edited by
hand. For each source below it reads the upstream files and writes one CRD document per kind,
lib/schema/data/<source>/<group or "core">/<Kind>.yaml, keeping what validation and defaulting
read (versions with served, deprecated, deprecationWarning; the openAPIV3Schema with types,
enums, patterns, formats, bounds, list and map types, x-kubernetes-* markers, defaults and CEL
rules) and dropping the prose (descriptions, examples, titles). Versions whose schema is the
same share it through a YAML anchor. lib/schema/data/SOURCES.md records the upstream and the
commit of every source, read from the SOURCE.md of the CRD folder.

Gateway API is written twice, once per channel (gateway-api-standard, gateway-api-experimental);
the registry serves the one the configuration chooses (`gatewayAPI: {channel: ...}`).

The core kinds (Pod, Service, workloads...) have no CRD: they are converted from the Kubernetes
OpenAPI (Swagger 2.0) definitions, $refs resolved, into the same CRD form. The OpenAPI carries
field names, types, formats, required fields and list semantics, but no enums. What the API
server does in Go code and the OpenAPI does not carry is stated next to the few facts written
here (GO_ENUMS, GO_DEFAULTS, GO_UNIQUE).
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import sys

import yaml

DROPPED = {"description", "example", "examples", "title", "externalDocs"}
KEPT_VERSION_KEYS = ("name", "served", "storage", "deprecated", "deprecationWarning")

# (output folder, folder under the CRD root, SOURCE.md section)
SOURCES = [
    ("gateway-api-standard", "gateway-api/standard",
     "gateway-api/standard and gateway-api/experimental"),
    ("gateway-api-experimental", "gateway-api/experimental",
     "gateway-api/standard and gateway-api/experimental"),
    ("envoy-gateway", "envoy-gateway", "envoy-gateway"),
    ("kuma", "kuma", "kuma"),
    ("istio", "istio", "istio"),
    ("linkerd", "linkerd", "linkerd"),
    ("kuadrant", "kuadrant", "kuadrant"),
    ("cert-manager", "cert-manager", "cert-manager"),
    ("nginx-gateway-fabric", "nginx-gateway-fabric", "nginx-gateway-fabric"),
    ("kgateway", "kgateway", "kgateway"),
    ("gke", "gke", "gke"),
]

# The core kinds and their OpenAPI definitions (apiVersion "v1" is the core group).
CORE_KINDS = [
    ("", "v1", "Pod", "io.k8s.api.core.v1.Pod"),
    ("", "v1", "Service", "io.k8s.api.core.v1.Service"),
    ("", "v1", "Namespace", "io.k8s.api.core.v1.Namespace"),
    ("", "v1", "ConfigMap", "io.k8s.api.core.v1.ConfigMap"),
    ("", "v1", "Secret", "io.k8s.api.core.v1.Secret"),
    ("", "v1", "ServiceAccount", "io.k8s.api.core.v1.ServiceAccount"),
    ("apps", "v1", "Deployment", "io.k8s.api.apps.v1.Deployment"),
    ("apps", "v1", "StatefulSet", "io.k8s.api.apps.v1.StatefulSet"),
    ("apps", "v1", "DaemonSet", "io.k8s.api.apps.v1.DaemonSet"),
    ("apps", "v1", "ReplicaSet", "io.k8s.api.apps.v1.ReplicaSet"),
    ("batch", "v1", "Job", "io.k8s.api.batch.v1.Job"),
    ("batch", "v1", "CronJob", "io.k8s.api.batch.v1.CronJob"),
    ("discovery.k8s.io", "v1", "EndpointSlice", "io.k8s.api.discovery.v1.EndpointSlice"),
]
CLUSTER_SCOPED_CORE = {"Namespace"}

# Defaults the API server sets in Go (pkg/apis/core/v1/defaults.go), absent from the OpenAPI:
# (definition, field) -> value.
GO_DEFAULTS = {
    ("io.k8s.api.core.v1.ServiceSpec", "type"): "ClusterIP",
    ("io.k8s.api.core.v1.ServicePort", "protocol"): "TCP",
    ("io.k8s.api.core.v1.ContainerPort", "protocol"): "TCP",
}

# Values the API server's Go validation accepts for fields the OpenAPI types only as strings
# (pkg/apis/*/validation; the OpenAPI at hand carries no enums): (definition, field) -> values.
_PODS = "io.k8s.api.core.v1."
GO_ENUMS = {
    (_PODS + "ServiceSpec", "type"): ["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"],
    (_PODS + "ServiceSpec", "externalTrafficPolicy"): ["Cluster", "Local"],
    (_PODS + "ServiceSpec", "internalTrafficPolicy"): ["Cluster", "Local"],
    (_PODS + "ServiceSpec", "ipFamilyPolicy"): ["SingleStack", "PreferDualStack",
                                                "RequireDualStack"],
    (_PODS + "ServiceSpec", "sessionAffinity"): ["ClientIP", "None"],
    (_PODS + "ServiceSpec", "ipFamilies[]"): ["IPv4", "IPv6"],
    (_PODS + "ServicePort", "protocol"): ["SCTP", "TCP", "UDP"],
    (_PODS + "ContainerPort", "protocol"): ["SCTP", "TCP", "UDP"],
    (_PODS + "PodSpec", "dnsPolicy"): ["ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"],
    (_PODS + "PodSpec", "restartPolicy"): ["Always", "Never", "OnFailure"],
    (_PODS + "PodSpec", "preemptionPolicy"): ["Never", "PreemptLowerPriority"],
    (_PODS + "Toleration", "effect"): ["NoExecute", "NoSchedule", "PreferNoSchedule"],
    (_PODS + "Toleration", "operator"): ["Equal", "Exists"],
    (_PODS + "Container", "imagePullPolicy"): ["Always", "IfNotPresent", "Never"],
    (_PODS + "Container", "terminationMessagePolicy"): ["FallbackToLogsOnError", "File"],
    (_PODS + "EphemeralContainer", "imagePullPolicy"): ["Always", "IfNotPresent", "Never"],
    (_PODS + "EphemeralContainer", "terminationMessagePolicy"): ["FallbackToLogsOnError", "File"],
    (_PODS + "VolumeMount", "mountPropagation"): ["Bidirectional", "HostToContainer", "None"],
    (_PODS + "HTTPGetAction", "scheme"): ["HTTP", "HTTPS"],
    ("io.k8s.api.apps.v1.DeploymentStrategy", "type"): ["Recreate", "RollingUpdate"],
    ("io.k8s.api.apps.v1.StatefulSetUpdateStrategy", "type"): ["OnDelete", "RollingUpdate"],
    ("io.k8s.api.apps.v1.DaemonSetUpdateStrategy", "type"): ["OnDelete", "RollingUpdate"],
    ("io.k8s.api.apps.v1.StatefulSetSpec", "podManagementPolicy"): ["OrderedReady", "Parallel"],
    ("io.k8s.api.batch.v1.JobSpec", "completionMode"): ["Indexed", "NonIndexed"],
    ("io.k8s.api.batch.v1.JobSpec", "podReplacementPolicy"): ["Failed", "TerminatingOrFailed"],
    ("io.k8s.api.batch.v1.CronJobSpec", "concurrencyPolicy"): ["Allow", "Forbid", "Replace"],
}

# The OpenAPI marks many lists as maps keyed by some fields, but the API server does not
# validate built-in kinds against the OpenAPI: only Go validation refuses duplicates, and it
# does so for these lists (ValidatePodSpec's containers, init and ephemeral containers,
# volumes and scheduling gates by name; ValidateService's ports by port and protocol). Elsewhere (a
# container's ports or env, for instance) a duplicate is at most a warning, so the list is
# generated without keys.
GO_UNIQUE = {
    ("io.k8s.api.core.v1.PodSpec", "containers"): ["name"],
    ("io.k8s.api.core.v1.PodSpec", "initContainers"): ["name"],
    ("io.k8s.api.core.v1.PodSpec", "ephemeralContainers"): ["name"],
    ("io.k8s.api.core.v1.PodSpec", "volumes"): ["name"],
    ("io.k8s.api.core.v1.PodSpec", "schedulingGates"): ["name"],
    ("io.k8s.api.core.v1.ServiceSpec", "ports"): ["port", "protocol"],
}

# OpenAPI definitions whose JSON form is not what their Swagger type says.
SPECIAL = {
    # A Quantity is written as a string or a number ("500m", 1, 0.5).
    "io.k8s.apimachinery.pkg.api.resource.Quantity": {},
    # An int or a string.
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {"x-kubernetes-int-or-string": True},
    # Free-form.
    "io.k8s.apimachinery.pkg.runtime.RawExtension": {"type": "object",
                                                      "x-kubernetes-preserve-unknown-fields": True},
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": {"type": "object",
                                                      "x-kubernetes-preserve-unknown-fields": True},
}



class Block(dict):
    """A mapping always written in block style (one CEL rule per line, readable in diffs)."""


def strip(node):
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key in DROPPED:
                continue
            if key == "properties" and isinstance(value, dict):
                out[key] = {name: strip(sub) for name, sub in value.items()}
            elif key == "x-kubernetes-validations" and isinstance(value, list):
                out[key] = [Block(strip(rule)) for rule in value]
            else:
                out[key] = strip(value)
        return out
    if isinstance(node, list):
        return [strip(item) for item in node]
    return node


def crds(folder):
    files = []
    for root, _, names in os.walk(folder):
        files += [os.path.join(root, n) for n in names if n.endswith((".yaml", ".yml"))]
    for file in sorted(files):
        with open(file, encoding="utf-8") as f:
            for doc in yaml.safe_load_all(f):
                if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition":
                    yield file, doc


def share_subtrees(node, seen, min_size=400):
    """Repeated structures (versions with the same schema, a PodSpec's containers and init
    containers, AuthPolicy's rules in each block) become one object, which the dumper writes once with an anchor and aliases:
    the file is smaller, and the loader and the schema compiler handle the shared node once.
    Top-down, so the largest repeated structure is the one shared."""
    if isinstance(node, dict):
        text = json.dumps(node, sort_keys=True)
        if len(text) >= min_size:
            if text in seen:
                return seen[text]
            seen[text] = node
        for key in list(node.keys()):
            node[key] = share_subtrees(node[key], seen, min_size)
        return node
    if isinstance(node, list):
        for i, item in enumerate(node):
            node[i] = share_subtrees(item, seen, min_size)
    return node


def compact(crd):
    spec = crd["spec"]
    versions = []
    for v in spec.get("versions", []):
        entry = {k: v[k] for k in KEPT_VERSION_KEYS if k in v}
        schema = v.get("schema", {}).get("openAPIV3Schema")
        if schema is not None:
            entry["schema"] = {"openAPIV3Schema": strip(schema)}
        versions.append(entry)
    seen = {}
    for v in versions:
        if "schema" in v:
            v["schema"] = share_subtrees(v["schema"], seen)
    metadata = {"name": crd.get("metadata", {}).get("name", "")}
    labels = crd.get("metadata", {}).get("labels") or {}
    policy = labels.get("gateway.networking.k8s.io/policy")
    if policy is not None:
        metadata["labels"] = {"gateway.networking.k8s.io/policy": policy}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": metadata,
        "spec": {
            "group": spec.get("group", ""),
            "names": {"kind": spec["names"]["kind"]},
            "scope": spec.get("scope", "Namespaced"),
            "versions": versions,
        },
    }


# --- core kinds ------------------------------------------------------------------------------

class CoreConverter:
    def __init__(self, definitions):
        self.defs = definitions
        self.stack = []

    def definition(self, name):
        if name in SPECIAL:
            return dict(SPECIAL[name])
        if name in self.stack:  # recursive: left open rather than unrolled
            return {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
        self.stack.append(name)
        out = self.schema(self.defs[name], name)
        self.stack.pop()
        return out

    def schema(self, node, owner, field=None):
        if "$ref" in node:
            out = self.definition(node["$ref"].rsplit("/", 1)[-1])
        else:
            out = {}
            for key in ("type", "format", "minimum", "maximum", "minLength", "maxLength",
                        "minItems", "maxItems", "pattern"):
                if key in node:
                    out[key] = node[key]
            if out.get("format") == "int-or-string":
                del out["format"]
                out.pop("type", None)
                out["x-kubernetes-int-or-string"] = True
            if "properties" in node:
                out["type"] = "object"
                out["properties"] = {k: self.schema(v, owner, k)
                                     for k, v in node["properties"].items()}
                if node.get("required"):
                    out["required"] = list(node["required"])
            if "additionalProperties" in node:
                out["additionalProperties"] = self.schema(node["additionalProperties"], owner)
            if "items" in node:
                out["items"] = self.schema(node["items"], owner,
                                           field + "[]" if field is not None else None)
            if node.get("type") == "object" and "properties" not in node \
                    and "additionalProperties" not in node:
                out["x-kubernetes-preserve-unknown-fields"] = True
        if field is not None:
            keys = GO_UNIQUE.get((owner, field))
            if keys and out.get("type") == "array":
                out["x-kubernetes-list-type"] = "map"
                out["x-kubernetes-list-map-keys"] = keys
            values = GO_ENUMS.get((owner, field))
            if values is not None and out.get("type") == "string":
                out["enum"] = values
            default = GO_DEFAULTS.get((owner, field))
            if default is not None:
                out["default"] = default
        return out

    def kind(self, group, version, kind, name):
        self.stack = [name]
        root = self.schema(self.defs[name], name)
        self.stack = []
        root = share_subtrees(root, {})
        # The top-level metadata is checked by the validator's own ObjectMeta schema.
        root["properties"]["metadata"] = {"type": "object"}
        root.pop("required", None)
        return {
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": (kind.lower() + "s." + group) if group else kind.lower() + "s"},
            "spec": {
                "group": group,
                "names": {"kind": kind},
                "scope": "Cluster" if kind in CLUSTER_SCOPED_CORE else "Namespaced",
                "versions": [{"name": version, "served": True, "storage": True,
                              "schema": {"openAPIV3Schema": root}}],
            },
        }


# --- output ----------------------------------------------------------------------------------

class Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data):
        # Only the version schemas shared on purpose become anchors; equal scalars do not.
        return not isinstance(data, dict)


Dumper.add_representer(
    Block, lambda dumper, data: dumper.represent_mapping("tag:yaml.org,2002:map", data,
                                                         flow_style=False))


def source_info(source_md, section):
    text = open(source_md, encoding="utf-8").read()
    start = text.find("\n## " + section + "\n")
    if start < 0:
        sys.exit("%s: no section '## %s'" % (source_md, section))
    body = text[start + 4:].split("\n## ", 1)[0]
    upstream = re.search(r"Upstream(?: of the content)?: (\S+)", body)
    commit = re.search(r"Commit: `([0-9a-f]{40})`", body) or \
        re.search(r"commit\s+`([0-9a-f]{40})`", body)
    if not upstream or not commit:
        sys.exit("%s: section '%s' names no upstream or commit" % (source_md, section))
    return upstream.group(1).strip("`,"), commit.group(1)


def write(path, header, doc):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(header)
        yaml.dump(doc, f, Dumper=Dumper, sort_keys=False, width=100,
                  default_flow_style=None, allow_unicode=True)


def cel_count(node):
    if isinstance(node, dict):
        return len(node.get("x-kubernetes-validations", []) or []) + \
            sum(cel_count(v) for k, v in node.items() if k != "x-kubernetes-validations")
    if isinstance(node, list):
        return sum(cel_count(v) for v in node)
    return 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crds", default=os.path.join(here, "..", "..", "shared", "crds"))
    parser.add_argument("--out", default=os.path.join(here, "..", "lib", "schema", "data"))
    args = parser.parse_args()
    source_md = os.path.join(args.crds, "SOURCE.md")
    # The folder is replaced whole; refuse one that is not this script's output.
    if os.path.isdir(args.out) and os.listdir(args.out) and \
            not os.path.isfile(os.path.join(args.out, "SOURCES.md")):
        sys.exit("%s: not a folder this script wrote (no SOURCES.md): not replacing it" % args.out)
    shutil.rmtree(args.out, ignore_errors=True)

    rows = []
    for out_name, folder, section in SOURCES:
        upstream, commit = source_info(source_md, section)
        kinds, cel = [], 0
        seen = set()
        for file, crd in crds(os.path.join(args.crds, folder)):
            doc = compact(crd)
            group = doc["spec"]["group"] or "core"
            kind = doc["spec"]["names"]["kind"]
            if (group, kind) in seen:
                sys.exit("%s: %s/%s defined twice" % (folder, group, kind))
            seen.add((group, kind))
            header = ("# Generated by scripts/gen_schemas.py from %s at %s (%s). Do not edit.\n"
                      % (upstream, commit, os.path.relpath(file, args.crds)))
            write(os.path.join(args.out, out_name, group, kind + ".yaml"), header, doc)
            kinds.append(kind)
            cel += cel_count([v.get("schema") for v in crd["spec"]["versions"]])
        rows.append((out_name, upstream, commit, sorted(kinds), cel))

    swagger = os.path.join(args.crds, "kubernetes", "swagger-1.36-definitions.json")
    with open(swagger, encoding="utf-8") as f:
        definitions = json.load(f)["definitions"]
    converter = CoreConverter(definitions)
    upstream, commit = "kubernetes/kubernetes api/openapi-spec/swagger.json", "release-1.36"
    digest = hashlib.sha256(open(swagger, "rb").read()).hexdigest()[:16]
    kinds = []
    for group, version, kind, name in CORE_KINDS:
        doc = converter.kind(group, version, kind, name)
        header = ("# Generated by scripts/gen_schemas.py from the Kubernetes 1.36 OpenAPI "
                  "(%s, sha256 %s), definition %s. Do not edit.\n"
                  % (os.path.relpath(swagger, args.crds), digest, name))
        write(os.path.join(args.out, "kubernetes", group or "core", kind + ".yaml"), header, doc)
        kinds.append(kind)
    rows.append(("kubernetes", upstream, commit, kinds, 0))

    with open(os.path.join(args.out, "SOURCES.md"), "w", encoding="utf-8") as f:
        f.write("# Built-in schemas: where each came from\n\n"
                "Generated by `scripts/gen_schemas.py` from `shared/crds/` (its SOURCE.md); "
                "do not edit.\n\n| folder | upstream | commit | CEL rules | kinds |\n"
                "|---|---|---|---|---|\n")
        for out_name, upstream, commit, kinds, cel in rows:
            f.write("| %s | %s | `%s` | %d | %s |\n"
                    % (out_name, upstream, commit, cel, ", ".join(kinds)))
    print("wrote %d schemas" % sum(len(r[3]) for r in rows), file=sys.stderr)


if __name__ == "__main__":
    main()
