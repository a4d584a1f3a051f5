#!/usr/bin/env bash
# Runs the pre-commit hook the way users do, on a temporary git repository holding one
# conflicting and one clean kernel; the hook must fail on the first and pass on the second:
#
# 1. `pre-commit try-repo` on this checkout: the hook as defined by the commit checked out
#    (uncommitted changes included, as try-repo does).
# 2. The README's `.pre-commit-config.yaml` snippet, byte for byte: it names this
#    repository's URL and a release tag (`rev:`). git's own URL rewriting
#    (`url.<checkout>.insteadOf <URL>`, given in the environment) sends pre-commit's clone of
#    that URL to this checkout, so the tag must exist here, as a clone of the repository has
#    it (a clone without tags: see below); and it must be the release of the version its
#    Cargo.toml names.
#
# Installs pre-commit in a virtualenv; nothing is kept.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "pre-commit test: $*" >&2
  exit 1
}

# The README's snippet, exactly: the lines between the fences after the marker.
snippet="$work/snippet.yaml"
awk '/<!-- pre-commit-config -->/ { on = 1; next }
     on && /^```/ { if (started) exit; started = 1; next }
     on && started { print }' "$repo/README.md" > "$snippet"
[ -s "$snippet" ] || fail "no pre-commit-config snippet in README.md"
url=$(sed -n 's/^ *- repo: *\([^ ]*\).*/\1/p' "$snippet")
rev=$(sed -n 's/^ *rev: *\([^ ]*\).*/\1/p' "$snippet")
[ -n "$url" ] && [ -n "$rev" ] || fail "the snippet names no repo or rev"

# The release the snippet names is in this repository, and is that version.
# A clone made without tags (some CI checkouts) lacks it: then a temporary clone gets the tag
# on the commit checked out, when that commit is of the version the rev names. (Not the commit
# that first set the version: the hook's definition came later than that, so such a tag would
# test a release that never existed.)
origin="$repo"
if ! git -C "$repo" rev-parse --quiet --verify "refs/tags/$rev" >/dev/null; then
  released=$(git -C "$repo" rev-parse HEAD)
  head_version=$(git -C "$repo" show HEAD:Cargo.toml | sed -n 's/^version = "\(.*\)"/\1/p' | head -n 1)
  [ "v$head_version" = "$rev" ] ||
    fail "the README's rev \`$rev\` is not a tag of this repository, and the commit checked out is version $head_version"
  echo "pre-commit test: this clone has no tag $rev; tagging the commit checked out, $released (version ${rev#v}), in a temporary clone"
  origin="$work/origin"
  git clone --quiet --no-local "$repo" "$origin"
  git -C "$origin" tag "$rev" "$released"
fi
tagged_version=$(git -C "$origin" show "$rev:Cargo.toml" | sed -n 's/^version = "\(.*\)"/\1/p' | head -n 1)
[ "v$tagged_version" = "$rev" ] || fail "tag $rev holds version $tagged_version"
git -C "$origin" cat-file -e "$rev:.pre-commit-hooks.yaml" || fail "tag $rev has no .pre-commit-hooks.yaml"

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet pre-commit==4.0.1
export PRE_COMMIT_HOME="$work/cache"
mkdir "$work/project"
cd "$work/project"
git init --quiet
git config user.email ci@example.invalid
git config user.name ci
cat > conflict.cu <<'CU'
__global__ void k(float *out) {
    __shared__ float tile[32][32];
    tile[threadIdx.x][0] = out[threadIdx.x];
}
CU
cat > clean.cu <<'CU'
__global__ void k(float *out) {
    __shared__ float tile[32][32 + 1];
    tile[threadIdx.x][0] = out[threadIdx.x];
}
CU
git add conflict.cu clean.cu
git commit --quiet -m kernels

# 1. The hook of this checkout.
if "$work/venv/bin/pre-commit" try-repo "$repo" banklint --files conflict.cu > "$work/conflict.log" 2>&1; then
  cat "$work/conflict.log"
  fail "try-repo: the hook passed on a 32-way conflict"
fi
grep -q "32-way bank conflict on \`tile\`" "$work/conflict.log" || { cat "$work/conflict.log"; fail "try-repo: no finding in the hook's output"; }
if ! "$work/venv/bin/pre-commit" try-repo "$repo" banklint --files clean.cu > "$work/clean.log" 2>&1; then
  cat "$work/clean.log"
  fail "try-repo: the hook failed on a clean kernel"
fi

# 2. The README's configuration, byte for byte, its URL sent to this checkout by git.
cp "$snippet" .pre-commit-config.yaml
cmp -s .pre-commit-config.yaml "$snippet" || fail "the configuration is not the README's"
git add .pre-commit-config.yaml
git commit --quiet -m config
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0="url.$origin.insteadOf" GIT_CONFIG_VALUE_0="$url"
if "$work/venv/bin/pre-commit" run --files conflict.cu > "$work/readme.log" 2>&1; then
  cat .pre-commit-config.yaml "$work/readme.log"
  fail "the README's configuration passed a 32-way conflict"
fi
grep -q "32-way bank conflict on \`tile\`" "$work/readme.log" || { cat "$work/readme.log"; fail "the README's configuration printed no finding"; }
"$work/venv/bin/pre-commit" run --files clean.cu > "$work/readme-clean.log" 2>&1 || { cat "$work/readme-clean.log"; fail "the README's configuration failed a clean kernel"; }
# pre-commit's store names the repository and revision it cloned: the README's.
python3 - "$PRE_COMMIT_HOME/db.db" "$url" "$rev" <<'PY' || fail "pre-commit did not clone the README's repo at its rev"
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute("SELECT repo, ref FROM repos").fetchall()
sys.exit(0 if (sys.argv[2], sys.argv[3]) in rows else 1)
PY
echo "pre-commit: the hook fails on conflict.cu and passes on clean.cu (try-repo on this checkout; the README's configuration, $url at $rev)"
