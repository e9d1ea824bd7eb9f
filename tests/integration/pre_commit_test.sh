#!/usr/bin/env bash
# Runs the real pre-commit, through `git commit`, on this source tree's .pre-commit-hooks.yaml:
# a clean commit passes, a commit that detaches a route or changes an effective policy without
# its snapshot is blocked with the finding, and a commit of no manifest skips both hooks.
#
#   pre_commit_test.sh POLICYGRAPH_BINARY SOURCE_DIR
#
# Offline, as any user, without reading or writing the user's git or pre-commit configuration:
# everything lives in one temporary folder.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 POLICYGRAPH_BINARY SOURCE_DIR" >&2
  exit 2
fi
binary=$(realpath "$1")
source_dir=$(realpath "$2")
for tool in git pre-commit; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The hooks run `policygraph` from PATH, as for a user who installed it.
export PATH="$(dirname "$binary"):$PATH"
export HOME="$work/home" PRE_COMMIT_HOME="$work/pre-commit-home"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=policygraph-test GIT_AUTHOR_EMAIL=test@policygraph.invalid
export GIT_COMMITTER_NAME=policygraph-test GIT_COMMITTER_EMAIL=test@policygraph.invalid
export PRE_COMMIT_COLOR=never NO_COLOR=1
unset XDG_CONFIG_HOME XDG_CACHE_HOME
mkdir -p "$HOME"

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
# expect_in OUTPUT_FILE EXTENDED_REGEX WHAT
expect_in() {
  grep -Eq -- "$2" "$1" || fail "$3: no line matches /$2/ in the output"
}

# --- the hooks repository: this tree's manifest, committed as it is on disk now
hooks=$work/hooks
git init -q -b main "$hooks"
cp "$source_dir/.pre-commit-hooks.yaml" "$hooks/"
git -C "$hooks" add .pre-commit-hooks.yaml
git -C "$hooks" commit -q -m "hooks under test"
hooks_rev=$(git -C "$hooks" rev-parse HEAD)

# --- the user's repository: one Gateway, one route on it, its Service and a policy
repo=$work/repo
mkdir -p "$repo/infra" "$repo/apps/web"
git init -q -b main "$repo"
cd "$repo"

cat >.pre-commit-config.yaml <<EOF
repos:
  - repo: $hooks
    rev: $hooks_rev
    hooks:
      - id: policygraph-lint
      - id: policygraph-snapshot-check
EOF

cat >.policygraph.yaml <<'EOF'
policies:
  - group: policies.example.com
    kind: TimeoutPolicy
    class: inherited
EOF

cat >infra/gateway.yaml <<'EOF'
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: edge
spec:
  controllerName: example.com/edge-controller
---
apiVersion: v1
kind: Namespace
metadata:
  name: infra
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: edge
  namespace: infra
spec:
  gatewayClassName: edge
  listeners:
    - name: web
      hostname: "*.example.com"
      port: 80
      protocol: HTTP
      allowedRoutes:
        namespaces:
          from: All
EOF

cat >apps/web/web.yaml <<'EOF'
apiVersion: v1
kind: Namespace
metadata:
  name: web
---
apiVersion: v1
kind: Service
metadata:
  name: frontend
  namespace: web
spec:
  ports:
    - name: http
      port: 8080
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: frontend
  namespace: web
spec:
  parentRefs:
    - name: edge
      namespace: infra
      sectionName: web
  hostnames: ["www.example.com"]
  rules:
    - backendRefs:
        - name: frontend
          port: 8080
---
apiVersion: policies.example.com/v1alpha1
kind: TimeoutPolicy
metadata:
  name: frontend-timeouts
  namespace: web
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: frontend
  default:
    requestTimeout: 10s
EOF

policygraph snapshot --update >/dev/null
pre-commit install >/dev/null

# commit MESSAGE OUTPUT_FILE: git commit of everything staged; prints its exit status.
commit() {
  local status=0
  git commit -q -m "$1" >"$2" 2>&1 || status=$?
  echo "$status"
}
lint_passed='^policygraph lint\.+Passed$'
snapshot_passed='^policygraph snapshot --check\.+Passed$'

# 1. A clean repository: both hooks run and pass, the commit happens.
git add -A
status=$(commit "clean repository" "$work/clean.out")
[ "$status" -eq 0 ] || fail "clean commit exited $status"
expect_in "$work/clean.out" "$lint_passed" "clean commit"
expect_in "$work/clean.out" "$snapshot_passed" "clean commit"
git rev-parse -q --verify HEAD >/dev/null || fail "clean commit: no commit was made"
[ "$failures" -eq 0 ] || { cat "$work/clean.out" >&2; exit 1; }

# 2. The route names a listener the Gateway does not have: GW201 at sectionName blocks it.
head_before=$(git rev-parse HEAD)
sed -i 's/sectionName: web$/sectionName: websecure/' apps/web/web.yaml
line=$(grep -n 'sectionName: websecure' apps/web/web.yaml | cut -d: -f1)
git add apps/web/web.yaml
status=$(commit "detach the route" "$work/detached.out")
[ "$status" -ne 0 ] || fail "commit of a detached route exited 0"
expect_in "$work/detached.out" '^policygraph lint\.+Failed$' "detached route"
expect_in "$work/detached.out" "^apps/web/web\\.yaml:$line:7: error: HTTPRoute/web/frontend is not accepted .*\\[GW201\\]$" \
  "detached route"
# The hook runs with --verbose: the detail says why, on the line below.
expect_in "$work/detached.out" "^  .*no listener named websecure" "detached route"
[ "$(git rev-parse HEAD)" = "$head_before" ] || fail "detached route: the commit happened"
[ "$failures" -eq 0 ] || { cat "$work/detached.out" >&2; exit 1; }
git reset -q --hard

# 3. A policy value changes without its snapshot: SN701 from the snapshot hook blocks it,
#    and the same change with `policygraph snapshot --update` goes in.
sed -i 's/requestTimeout: 10s/requestTimeout: 30s/' apps/web/web.yaml
git add apps/web/web.yaml
status=$(commit "raise the timeout" "$work/drift.out")
[ "$status" -ne 0 ] || fail "commit of a policy change without its snapshot exited 0"
expect_in "$work/drift.out" '^policygraph snapshot --check\.+Failed$' "snapshot drift"
expect_in "$work/drift.out" \
  '^\.policygraph/snapshots/HTTPRoute/web/frontend\.yaml:[0-9]+:[0-9]+: error: .*\[SN701\]$' \
  "snapshot drift"
expect_in "$work/drift.out" '^  .*requestTimeout: 10s → 30s' "snapshot drift"
[ "$(git rev-parse HEAD)" = "$head_before" ] || fail "snapshot drift: the commit happened"
[ "$failures" -eq 0 ] || { cat "$work/drift.out" >&2; exit 1; }

policygraph snapshot --update >/dev/null
git add -A
status=$(commit "raise the timeout, with its snapshot" "$work/updated.out")
[ "$status" -eq 0 ] || fail "commit of a policy change with its snapshot exited $status"
expect_in "$work/updated.out" "$snapshot_passed" "updated snapshot"
[ "$(git rev-parse HEAD^)" = "$head_before" ] || fail "updated snapshot: no commit was made"
[ "$failures" -eq 0 ] || { cat "$work/updated.out" >&2; exit 1; }

# 4. A commit without manifests does not start policygraph at all.
echo "# web" >README.md
git add README.md
status=$(commit "readme" "$work/readme.out")
[ "$status" -eq 0 ] || fail "commit of a README exited $status"
expect_in "$work/readme.out" '^policygraph lint\.+\(no files to check\)Skipped$' "README commit"
expect_in "$work/readme.out" '^policygraph snapshot --check\.+\(no files to check\)Skipped$' "README commit"
[ "$failures" -eq 0 ] || { cat "$work/readme.out" >&2; exit 1; }

echo "pre-commit: 4 scenarios passed"
