#!/usr/bin/env bash
# Watch a full `rcs autoresearch` run with no Codex installed: the toy mission in a throwaway git
# repository, the scripted fake worker in place of `codex exec`.
#
#   bash examples/autoresearch/demo.sh            (after the README's first set-up command)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
rcs="${RCS:-$here/../../.venv/bin/rcs}"
work="$(mktemp -d "${TMPDIR:-/tmp}/rcs-autoresearch-demo.XXXXXX")"
cp -R "$here/toy" "$work/repo"
cd "$work/repo"
git init -q -b main
git -c user.name=demo -c user.email=demo@example.invalid commit -q --allow-empty -m "empty"
git add -A
git -c user.name=demo -c user.email=demo@example.invalid commit -q -m "toy mission"
RCS_CODEX_BIN="$here/fake_worker.py" "$rcs" autoresearch --max-iterations 10 mission || status=$?
echo
echo "repository: $work/repo   (results: $(ls -d "$work"/repo.rcs-worktrees/*)/results.tsv)"
exit "${status:-0}"
