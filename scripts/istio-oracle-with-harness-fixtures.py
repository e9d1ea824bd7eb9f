#!/usr/bin/env python3
"""Scores policygraph against Istio's gateway controller goldens with the Secrets and
ConfigMaps its test harness really holds.

`../shared/oracles/compare_status.py istio` injects the harness's Secrets with placeholder
bytes ("cert", "key") and leaves its ConfigMaps out. Istio parses a listener's certificate
(tls.X509KeyPair) and a frontend CA bundle, so every listener that the harness gives a good
certificate is refused under the placeholders, and a CA reference to a ConfigMap the harness
holds is not found. This wrapper reads the same Go source (`conversion_test.go.txt`), builds
every Secret and ConfigMap of its `objects` list with the data written there, stands a
certificate generated here with openssl in for the harness's `rsaCertPEM`/`rsaKeyPEM`, and
then runs the unchanged scorer. Everything else (Services, Namespaces, comparison) is the
scorer's own.

    scripts/istio-oracle-with-harness-fixtures.py build/policygraph ../shared/oracles/istio [--show N] [--case NAME] [--exclude FILE]
"""
import base64
import os
import re
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
oracles = os.path.join(here, "..", "..", "shared", "oracles")
sys.path.insert(0, oracles)
import compare_status as cs  # noqa: E402


def generated_pair():
    with tempfile.TemporaryDirectory() as d:
        key, crt = os.path.join(d, "key.pem"), os.path.join(d, "crt.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", crt,
                        "-days", "3650", "-subj", "/CN=example.com"], check=True, capture_output=True)
        return open(crt, "rb").read(), open(key, "rb").read()


def harness_objects(case_dir):
    """The Secrets and ConfigMaps of the harness's `objects` list, as Kubernetes objects."""
    path = os.path.join(case_dir, "conversion_test.go.txt")
    if not os.path.exists(path):
        return []
    src = open(path).read()
    cert, key = generated_pair()
    named = {"rsaCertPEM": cert, "rsaKeyPEM": key}
    out = []
    for m in re.finditer(r"&corev1\.(Secret|ConfigMap)\{(.*?)\n\t\t\},\n", src, re.S):
        kind, body = m.group(1), m.group(2)
        name = re.search(r'\bName:\s*"([^"]+)"', body)
        ns = re.search(r'\bNamespace:\s*"([^"]+)"', body)
        data = {}
        for k, v in re.findall(r'"([^"]+)":\s*(?:\[\]byte\()?([A-Za-z]\w*|"(?:[^"\\]|\\.)*")\)?,', body):
            raw = named.get(v) if not v.startswith('"') else v[1:-1].encode()
            if raw is None:
                continue
            data[k] = raw
        if not name:
            continue
        obj = {"apiVersion": "v1", "kind": kind,
               "metadata": {"name": name.group(1), "namespace": ns.group(1) if ns else "default"}}
        if kind == "Secret":
            obj["data"] = {k: base64.b64encode(v).decode() for k, v in data.items()}
        else:
            obj["data"] = {k: v.decode() for k, v in data.items()}
        out.append(obj)
    return out


placeholder_fixtures = cs.istio_fixtures


def fixtures(case_dir):
    objs, labels = placeholder_fixtures(case_dir)
    real = harness_objects(case_dir)
    replaced = {cs.key(o) for o in real}
    return [o for o in objs if cs.key(o) not in replaced] + real, labels


cs.istio_fixtures = fixtures
# --exclude FILE (case names, first word of each line: scripts/oracle-refused-inputs.py writes
# the cases whose input the API server refuses) scores the other cases: the scorer takes it for
# Envoy Gateway only, so the cases are left out of a folder of links to the rest.
args = sys.argv[1:]
if "--exclude" in args:
    i = args.index("--exclude")
    skip = {l.split()[0] for l in open(args[i + 1]) if l.strip() and not l.startswith("#")}
    del args[i:i + 2]
    source = os.path.abspath(args[1])
    kept = tempfile.mkdtemp()
    for f in os.listdir(source):
        if f.split(".", 1)[0] not in skip:
            os.symlink(os.path.join(source, f), os.path.join(kept, f))
    args[1] = kept
sys.argv = [sys.argv[0], "istio"] + args
cs.main()
