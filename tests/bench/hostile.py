#!/usr/bin/env python3
"""Times policygraph on inputs written to make it slow (issue 34 point 3).

Each case is a small repository whose size grows with one number: the conflict among many
policies on many targets (PA304), a MeshTrafficPermission with many `from` items, a
MeshHTTPRoute with many rules, a single line of nested placeholder openers. Every size is run
once (after writing the repository) and the whole process is timed; a case is quadratic when
doubling its size quadruples the time. Nothing is asserted: the figures go in README.md.

usage: tests/bench/hostile.py [POLICYGRAPH] [--case NAME] [--scale K]
  POLICYGRAPH   the binary (default build-bench/policygraph, a Release build)
  --case NAME   one of the cases below (default: all)
  --scale K     multiply every size by K (default 1)
"""
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TIMEOUT = 300


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


# --- the cases: each writes a repository and returns the command to time -----------------------

def gateway_preamble(ns):
    return f"""apiVersion: v1
kind: Namespace
metadata:
  name: {ns}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: eg
spec:
  controllerName: gateway.envoyproxy.io/gatewayclass-controller
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: edge
  namespace: {ns}
spec:
  gatewayClassName: eg
  listeners:
  - name: http
    protocol: HTTP
    port: 80
---
apiVersion: v1
kind: Service
metadata:
  name: backend
  namespace: {ns}
spec:
  ports:
  - port: 8080
"""


def pa304(repo, n):
    """n/10 BackendTrafficPolicies, each setting its own request timeout, whose targetSelectors
    all match n HTTPRoutes: every pair of policies conflicts on every route."""
    ns, policies = "shop", max(2, n // 10)
    docs = [gateway_preamble(ns)]
    for i in range(n):
        docs.append(f"""apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: route-{i:05d}
  namespace: {ns}
  labels:
    app: shop
spec:
  parentRefs:
  - name: edge
  hostnames:
  - r{i}.example.com
  rules:
  - backendRefs:
    - name: backend
      port: 8080
""")
    for i in range(policies):
        docs.append(f"""apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: timeout-{i:04d}
  namespace: {ns}
spec:
  targetSelectors:
  - kind: HTTPRoute
    matchLabels:
      app: shop
  timeout:
    http:
      requestTimeout: {i + 1}s
""")
    write(os.path.join(repo, "all.yaml"), "---\n".join(docs))
    return ["lint", "--no-config", repo], f"{policies} policies x {n} routes"


def universal_mesh(n_services):
    docs = ["""type: Mesh
name: default
mtls:
  enabledBackend: ca-1
  backends:
  - name: ca-1
    type: builtin
"""]
    for i in range(n_services):
        docs.append(f"""type: Dataplane
mesh: default
name: web-{i}
networking:
  address: 10.0.{i // 250}.{i % 250 + 1}
  inbound:
  - port: 8080
    tags:
      kuma.io/service: svc-{i}
      kuma.io/protocol: http
""")
    return docs


def kuma_from(repo, n):
    """A MeshTrafficPermission on a Universal mesh with one `from` item per service."""
    docs = universal_mesh(2)
    items = "".join(f"""  - targetRef:
      kind: MeshService
      name: caller-{i}
    default:
      action: {'Allow' if i % 2 else 'Deny'}
""" for i in range(n))
    docs.append(f"""type: MeshTrafficPermission
mesh: default
name: many-from
spec:
  targetRef:
    kind: Mesh
  from:
{items}""")
    write(os.path.join(repo, "mesh.yaml"), "---\n".join(docs))
    return (["explain", "Dataplane/web-1", "--format", "kuma-inspect", "--mesh", "default", repo],
            f"{n} from items")


def kuma_from_access(repo, n):
    """The same permission, asked by `access` for the last caller (its item is the last one)."""
    cmd, what = kuma_from(repo, n)
    return (["access", "--from", f"service:caller-{n - 1}", "--to", "Dataplane/web-1:8080",
             "--mesh", "default", repo], what)


def kuma_rules(repo, n):
    """A MeshHTTPRoute with n rules, each matching its own path."""
    docs = universal_mesh(2)
    rules = "".join(f"""    - matches:
      - path:
          type: PathPrefix
          value: /p{i}
      default:
        backendRefs:
        - kind: MeshService
          name: svc-0
""" for i in range(n))
    docs.append(f"""type: MeshHTTPRoute
mesh: default
name: many-rules
spec:
  targetRef:
    kind: Mesh
  to:
  - targetRef:
      kind: MeshService
      name: svc-0
    rules:
{rules}""")
    write(os.path.join(repo, "mesh.yaml"), "---\n".join(docs))
    return ["explain", "Dataplane/web-1", repo], f"{n} route rules"


def placeholder_line(repo, n):
    """A ConfigMap named with n*100 placeholder openers (`${`, `{{`, `<`) and nothing closing
    them: the name is invalid, and before reporting it the placeholder check reads it; a check
    that searches ahead for the close from every opener is quadratic."""
    value = ("${" * 40 + "{{" * 40 + "<a" * 20) * n
    write(os.path.join(repo, "cm.yaml"), f"""apiVersion: v1
kind: ConfigMap
metadata:
  name: "{value}"
  namespace: default
""")
    return ["lint", "--no-config", repo], f"{len(value) // 1000} KB line"


CASES = {
    "pa304": (pa304, [1250, 2500, 5000]),
    "kuma-from": (kuma_from, [16000, 32000, 64000]),
    "kuma-from-access": (kuma_from_access, [16000, 32000, 64000]),
    "kuma-rules": (kuma_rules, [1000, 2000, 4000]),
    "placeholder-line": (placeholder_line, [5000, 10000, 20000]),
}


def run(binary, args):
    """Wall time, peak RSS in MB, exit status and output bytes of one process; None on timeout."""
    with tempfile.TemporaryFile() as out:
        start = time.monotonic()
        proc = subprocess.Popen([binary] + args, stdout=out, stderr=subprocess.DEVNULL)
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > TIMEOUT:
                proc.kill()
                os.wait4(proc.pid, 0)
                return None
            time.sleep(0.005)
        wall = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        return wall, usage.ru_maxrss // 1024, proc.returncode, out.tell()


def main():
    args = sys.argv[1:]
    binary = os.path.join(ROOT, "build-bench", "policygraph")
    only, scale = None, 1.0
    i = 0
    while i < len(args):
        if args[i] == "--case":
            only = args[i + 1]
            i += 2
        elif args[i] == "--scale":
            scale = float(args[i + 1])
            i += 2
        else:
            binary = args[i]
            i += 1
    if only and only not in CASES:
        sys.exit(f"hostile.py: no case {only}; cases: {', '.join(CASES)}")
    print(f"{'case':18} {'size':28} {'wall s':>8} {'max RSS MB':>10} {'exit':>4} {'output':>10}")
    for name, (make, sizes) in CASES.items():
        if only and name != only:
            continue
        for size in sizes:
            with tempfile.TemporaryDirectory(prefix="pg-hostile.") as repo:
                cmd, what = make(repo, max(1, int(size * scale)))
                result = run(binary, cmd)
                if result is None:
                    print(f"{name:18} {what:28} {'>' + str(TIMEOUT):>8}")
                else:
                    wall, rss, rc, out = result
                    print(f"{name:18} {what:28} {wall:8.2f} {rss:10} {rc:4} {out:10}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
