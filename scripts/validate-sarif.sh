#!/usr/bin/env bash
# Validates SARIF logs with Microsoft's SARIF Multitool, the validator the SARIF output
# contract names (DESIGN.md, "Output contracts").
#
#   scripts/validate-sarif.sh FILE...
#
# The npm package is installed once into a cache folder, ${PG_NPM_PREFIX} (default
# ~/.cache/policygraph-npm); PG_SARIF_MULTITOOL_VERSION pins its version, and
# PG_SARIF_LEVELS picks what the validator prints ("Error;Warning" by default; add ";Note"
# for its style advice).
#
# Exit status: 0 the validator found no errors; 1 it reported at least one; 2 usage, install
# or tool failure.
set -euo pipefail

prefix="${PG_NPM_PREFIX:-$HOME/.cache/policygraph-npm}"
package="@microsoft/sarif-multitool"
version="${PG_SARIF_MULTITOOL_VERSION:-5.7.0}"
levels="${PG_SARIF_LEVELS:-Error;Warning}"
# The level filter also drops results from the log the verdict is read from.
[[ $levels == *Error* ]] || levels="Error;$levels"

fail() {
  echo "validate-sarif: $*" >&2
  exit 2
}

if [[ $# -eq 0 || $1 == -h || $1 == --help ]]; then
  echo "usage: $0 FILE..." >&2
  exit 2
fi
for file in "$@"; do
  [[ -f $file && -r $file ]] || fail "cannot read $file"
done
for tool in node npm npx; do
  command -v "$tool" >/dev/null || fail "needs $tool (Debian: apt-get install npm)"
done

# The package's launcher hands its arguments to /bin/sh as one string (child_process.spawnSync
# with shell: true), so the tool's own path, which contains the prefix, must survive unquoted.
[[ $prefix =~ ^[A-Za-z0-9_./+@-]+$ ]] ||
  fail "PG_NPM_PREFIX ($prefix) must not contain spaces or shell metacharacters"

if [[ ! -x $prefix/node_modules/.bin/sarif-multitool ]]; then
  echo "validate-sarif: installing $package@$version into $prefix" >&2
  mkdir -p "$prefix"
  npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "$package@$version" >&2 ||
    fail "npm install $package@$version failed"
  # Checked before npx runs: if the launcher is missing, npx looks the bin's name up on the
  # registry as an unscoped package instead.
  [[ -x $prefix/node_modules/.bin/sarif-multitool ]] || fail "$package installed no launcher"
fi
# The launcher runs a native binary from a per-platform package. That package's postinstall
# makes it executable, and npm 11 may skip install scripts it was not told to trust.
binary="$(cd "$prefix" && node -p 'require("@microsoft/sarif-multitool")' 2>/dev/null)" ||
  fail "$package has no binary for this platform; remove $prefix to reinstall"
[[ -x $binary ]] || chmod u+x "$binary"

# For the same reason every argument is quoted for that shell: file names with spaces or
# quotes would otherwise be split or run.
shell_quote() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
report="$work/validation.sarif"

arguments=(validate --level "$(shell_quote "$levels")" --output "$(shell_quote "$report")")
for file in "$@"; do
  [[ $file == -* ]] && file="./$file"  # a file, not an option
  arguments+=("$(shell_quote "$file")")
done

# The validator exits 0 even when it reports errors; only a failure to run is non-zero. Its
# verdict is read from the SARIF log it writes.
status=0
npx --no --prefix "$prefix" sarif-multitool "${arguments[@]}" || status=$?
[[ -s $report ]] || fail "the validator wrote no report (exit status $status)"

errors="$(node -e '
  const log = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  let errors = 0;
  for (const run of log.runs || []) {
    errors += (run.results || []).filter((r) => r.level === "error").length;
    for (const invocation of run.invocations || []) {
      for (const n of [...(invocation.toolExecutionNotifications || []),
                       ...(invocation.toolConfigurationNotifications || [])])
        if (n.level === "error") errors += 1;
    }
  }
  console.log(errors);
' "$report")" || fail "cannot read the validator's report"

if [[ $errors -ne 0 ]]; then
  echo "validate-sarif: INVALID: $errors error(s) in $*" >&2
  exit 1
fi
[[ $status -eq 0 ]] || fail "the validator failed (exit status $status)"
echo "validate-sarif: valid: $*" >&2
