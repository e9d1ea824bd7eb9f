#!/usr/bin/env bash
# Installs the Debian packages policygraph builds and tests with (see README "Dependencies").
# Does nothing when they are all present, so it is cheap to call before every build.
set -euo pipefail

packages=(g++ cmake ninja-build pkg-config libyaml-dev libyaml-cpp-dev libcli11-dev nlohmann-json3-dev
          libpugixml-dev doctest-dev libgit2-dev libmimalloc-dev libre2-dev libssl-dev liblua5.1-0-dev)
# The tests drive git (diff of revisions) and the real pre-commit (the hooks).
packages+=(pre-commit git)
packages+=("$@")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
echo "installing: ${missing[*]}" >&2
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
