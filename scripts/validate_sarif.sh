#!/usr/bin/env bash
# Validates banklint's SARIF output against the official SARIF 2.1.0 JSON schema, which
# Microsoft ships in the npm package @microsoft/jest-sarif. Nothing is kept in the repo.
# Usage: scripts/validate_sarif.sh path/to/banklint
set -euo pipefail
bin=${1:?usage: validate_sarif.sh BANKLINT}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent @microsoft/jest-sarif@1.0.0-beta.0 >/dev/null && tar xzf microsoft-jest-sarif-*.tgz)
schema="$work/package/lib/schemas/sarif-2.1.0-rtm.5.json"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet jsonschema==4.23.0
# Conflicts, unknowns, skipped code, capacity errors and fixes all appear in the fixtures.
set +e
"$bin" check "$here/fixtures" -I "$here/fixtures/include" --format sarif > "$work/out.sarif"
status=$?
set -e
if [ "$status" -ne 1 ]; then
  echo "banklint exited $status, expected 1 (findings)" >&2
  exit 1
fi
"$work/venv/bin/python" - "$schema" "$work/out.sarif" <<'PY'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
validator = jsonschema.Draft7Validator(schema)
errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
for e in errors[:20]:
    print(f"SARIF schema error at {'/'.join(map(str, e.path))}: {e.message}", file=sys.stderr)
results = doc["runs"][0]["results"]
fixes = sum(1 for r in results if r.get("fixes"))
print(f"SARIF: {len(results)} results, {fixes} with fixes, {len(errors)} schema errors")
sys.exit(1 if errors or not results or not fixes else 0)
PY
