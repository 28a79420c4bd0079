#!/usr/bin/env bash
# The import floors of pyproject.toml's [tool.importlinter] contracts, checked by import-linter on the
# package as it is built: setuptools' package-dir puts agents/, ui/, benchmarks/ and prompts/ inside
# `autoalign`, which an editable install does only through an import hook that import-linter (grimp,
# which reads files under the package's folder) does not follow. So this builds the wheel from the
# working tree, checks that it holds nothing but the `autoalign` package (no experiments/, no tests/),
# and runs `lint-imports` on the unpacked wheel.  Usage: bash scripts/lint_imports.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/wheel" "$tmp/site"

# A clean copy of the working tree (tracked and new files, not ignored ones), so that no stale build/
# folder can put a deleted module back into the wheel.
(cd "$root" && git ls-files -z --cached --others --exclude-standard \
  | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
  | tar -cf - --null -T -) | tar -xf - -C "$tmp/src"
python -m pip wheel -q --no-deps "$tmp/src" -w "$tmp/wheel" 2>&1 | grep -v "^WARNING: Location" || true
wheel="$(ls "$tmp"/wheel/autoalign-*.whl)"
python -m zipfile -e "$wheel" "$tmp/site"

stray="$(cd "$tmp/site" && ls -A | grep -v -x -e autoalign -e 'autoalign-.*\.dist-info' || true)"
if [ -n "$stray" ]; then
  echo "the wheel holds more than the autoalign package: $stray" >&2
  exit 1
fi

# From the temporary folder, so that the repository's own autoalign/ folder (which lacks the mapped
# packages) is not on the path; PYTHONPATH puts the built package ahead of the editable install's hook.
cd "$tmp"
PYTHONPATH="$tmp/site" lint-imports --no-cache "$root/pyproject.toml"
