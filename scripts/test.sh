#!/usr/bin/env bash
# Install the project's runtime and development requirements, run the linters, type check and import contracts
# (scripts/lint.sh), start a throwaway Postgres on 127.0.0.1 when one is installed, then run the real-model tests
# as an early job of their own (tests/llm/test_real_server.py: they skip without WORKBENCH_TEST_LLM_URL, and fail
# without it under CI) and the rest of the suite on two pytest-xdist workers (each loads the embedding model once and
# has its own Postgres database; TEST_WORKERS=0 runs it in one process), printing the wall time of each.
# Usage: bash scripts/test.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q -r requirements-dev.txt
bash scripts/lint.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1

pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -n "${pg_bin}" ] && [ -z "${WORKBENCH_TEST_DATABASE_URL:-}" ] && id postgres >/dev/null 2>&1; then
  pg_data=$(mktemp -d /tmp/workbench-pg.XXXXXX)
  chown postgres "${pg_data}"
  su postgres -s /bin/sh -c "${pg_bin}/initdb -D ${pg_data} -A trust -U postgres" >/dev/null
  su postgres -s /bin/sh -c "${pg_bin}/pg_ctl -D ${pg_data} -l ${pg_data}/log -o '-p 54329 -k /tmp -c listen_addresses=127.0.0.1' -w start" >/dev/null
  trap 'su postgres -s /bin/sh -c "${pg_bin}/pg_ctl -D ${pg_data} -m fast stop" >/dev/null 2>&1 || true' EXIT
  export WORKBENCH_TEST_DATABASE_URL="postgresql://postgres@127.0.0.1:54329/postgres"
fi

status=0
start=$(date +%s)
python -m pytest -q "$@" tests/llm/test_real_server.py || status=$?
echo "real-model tests wall time: $(( $(date +%s) - start )) s"
start=$(date +%s)
python -m pytest -q -n "${TEST_WORKERS:-2}" "$@" --ignore=tests/llm/test_real_server.py tests || status=$?
echo "suite wall time: $(( $(date +%s) - start )) s"
exit "${status}"
