#!/usr/bin/env bash
# Runs the pre-commit hook the way users do: `pre-commit try-repo` against this checkout, on a
# temporary git repository holding one conflicting and one clean kernel. The hook must fail
# on the first and pass on the second. Installs pre-commit in a virtualenv; nothing is kept.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
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
if "$work/venv/bin/pre-commit" try-repo "$repo" banklint --files conflict.cu > "$work/conflict.log" 2>&1; then
  cat "$work/conflict.log"
  echo "pre-commit: the hook passed on a 32-way conflict" >&2
  exit 1
fi
grep -q "32-way bank conflict on \`tile\`" "$work/conflict.log" || { cat "$work/conflict.log"; echo "pre-commit: no finding in the hook's output" >&2; exit 1; }
if ! "$work/venv/bin/pre-commit" try-repo "$repo" banklint --files clean.cu > "$work/clean.log" 2>&1; then
  cat "$work/clean.log"
  echo "pre-commit: the hook failed on a clean kernel" >&2
  exit 1
fi
# The README's .pre-commit-config.yaml, pointed at this checkout.
rev=$(git -C "$repo" rev-parse HEAD)
sed -n '/<!-- pre-commit-config -->/,/<!-- \/pre-commit-config -->/p' "$repo/README.md" \
  | sed '1,2d;$d' | sed '$d' \
  | sed "s|repo: .*|repo: $repo|; s|rev: .*|rev: $rev|" > .pre-commit-config.yaml
git add .pre-commit-config.yaml
git commit --quiet -m config
if "$work/venv/bin/pre-commit" run --files conflict.cu > "$work/readme.log" 2>&1; then
  cat .pre-commit-config.yaml "$work/readme.log"
  echo "pre-commit: the README's configuration passed a 32-way conflict" >&2
  exit 1
fi
grep -q "32-way bank conflict" "$work/readme.log" || { cat "$work/readme.log"; exit 1; }
"$work/venv/bin/pre-commit" run --files clean.cu > "$work/readme-clean.log" 2>&1 || { cat "$work/readme-clean.log"; exit 1; }
echo "pre-commit: hook fails on conflict.cu and passes on clean.cu (try-repo and the README's config)"
