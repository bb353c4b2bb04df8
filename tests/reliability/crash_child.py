"""A workbench process for the crash tests: runs one service call, reports on stdout, then waits to be killed.

    python -m tests.reliability.crash_child [--block NODE [--block-at N]] start QUESTION AS_OF USER_ID
    python -m tests.reliability.crash_child [--block NODE [--block-at N]] continue THREAD_ID
    python -m tests.reliability.crash_child [--block NODE [--block-at N]] resume THREAD_ID DECISIONS_JSON
    python -m tests.reliability.crash_child --block-checkpoint CHANNEL ...

Configuration comes from the environment like the app's (WORKBENCH_DATA_DIR, WORKBENCH_DATABASE_URL), so the
process uses the real Qdrant Edge store and checkpointer. `--block NODE` parks a NODE task for good when the
N-th one (default: the first) has done its work (`critique`: the critic returned; `correct`: the correction's
search returned; through the Workbench's public critic and store, so core has no test code): that task's writes
are never saved, exactly as if the process died in the middle of the step, while parallel tasks that finished
earlier are saved as usual. `--block-checkpoint CHANNEL` parks the
process when it is about to save the first checkpoint that updates CHANNEL (e.g. `branch:to:revise`, written when
the parallel corrections have all finished; `__start__`, the session's first checkpoint): every write of the step
is saved, its checkpoint is not. Every report is one JSON line: {"event": "blocked", "node": ...} or {"event": "returned", ...the result}.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from typing import Any

from core.service import Workbench

_report_lock = threading.Lock()


def report(**fields: object) -> None:
    with _report_lock:
        print(json.dumps(fields, default=str), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--block", default=None)
    parser.add_argument("--block-at", type=int, default=1)
    parser.add_argument("--block-checkpoint", default=None)
    parser.add_argument("action", choices=["start", "continue", "resume"])
    parser.add_argument("args", nargs="*")
    args = parser.parse_args()
    wb = Workbench()

    if args.block:
        owner, method = {"critique": (wb.critic, "critique"), "correct": (wb.store(), "search")}[args.block]
        work = getattr(owner, method)
        finished: list[int] = []

        def park(*call: Any, **kw: Any) -> Any:
            out = work(*call, **kw)
            with _report_lock:
                finished.append(1)
                nth = len(finished)
            if nth == args.block_at:
                report(event="blocked", node=args.block)
                time.sleep(3600)
            return out

        setattr(owner, method, park)

    if args.block_checkpoint:
        saver = wb.persistence.checkpointer
        put = saver.put

        def park_put(config: dict, checkpoint: dict, metadata: dict, new_versions: dict) -> dict:
            if args.block_checkpoint in new_versions:
                report(event="blocked", checkpoint=args.block_checkpoint)
                time.sleep(3600)
            return put(config, checkpoint, metadata, new_versions)

        saver.put = park_put

    if args.action == "start":
        question, as_of, user = args.args
        result = wb.start(question, as_of=as_of, approve="manual", user_id=user)
    elif args.action == "continue":
        result = wb.continue_run(args.args[0])
    else:
        result = wb.resume(args.args[0], json.loads(args.args[1]))
    report(event="returned", **result.to_json())
    time.sleep(3600)


if __name__ == "__main__":
    main()
