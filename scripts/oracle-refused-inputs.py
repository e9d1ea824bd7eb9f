#!/usr/bin/env python3
"""Lists the oracle cases whose input the API server would refuse, one per line with the
refusing rules: objects the upstream CRDs' schemas or the API server's own checks reject
(policygraph's IN120, IN121, IN122 and IN124 errors; a version that is not served, IN123, is
reported but the object is simulated all the same). The controllers' unit tests feed such objects straight to
their translators; a cluster never holds them, and policygraph does not simulate them. The
list is what `compare_status.py --exclude` (and the Istio wrapper's `--exclude`) takes to
score the inputs a cluster admits.

    scripts/oracle-refused-inputs.py envoy-gateway build/policygraph ../shared/oracles/envoy-gateway > refused.txt
    scripts/oracle-refused-inputs.py istio build/policygraph ../shared/oracles/istio > refused.txt
"""
import json
import os
import subprocess
import sys
import tempfile

import yaml

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "shared", "oracles"))
import compare_status as cs  # noqa: E402

REFUSALS = {"IN120", "IN121", "IN122", "IN124"}


def cases(corpus, case_dir):
    if corpus == "envoy-gateway":
        for name, fin, _ in cs.eg_cases(case_dir):
            given = list(cs.objects_of(yaml.safe_load(open(fin))))
            yield name, given
    else:
        for f in sorted(os.listdir(case_dir)):
            if f.endswith(".status.yaml.golden"):
                name = f[: -len(".status.yaml.golden")]
                fin = os.path.join(case_dir, name + ".yaml")
                if os.path.exists(fin):
                    yield name, [o for o in cs.objects_of(list(yaml.safe_load_all(open(fin)))) if o]


def refusals(binary, objects):
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "input.yaml"), "w") as out:
            yaml.safe_dump_all(objects, out)
        p = subprocess.run([binary, "lint", "--no-config", "--format", "json", d],
                           capture_output=True, text=True, timeout=120)
    try:
        findings = json.loads(p.stdout).get("findings", [])
    except ValueError:
        return set()
    return {f["ruleId"] for f in findings if f["ruleId"] in REFUSALS and f["severity"] == "error"}


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("envoy-gateway", "istio"):
        sys.exit(__doc__)
    corpus, binary, case_dir = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
    for name, objects in cases(corpus, case_dir):
        rules = refusals(binary, objects)
        if rules:
            print(name, ",".join(sorted(rules)))


if __name__ == "__main__":
    main()
