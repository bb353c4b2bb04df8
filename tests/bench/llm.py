"""LLM benchmark: the loop against a real OpenAI-compatible model server, on questions of q1-q6.yaml over the sample
corpus, against a single-call baseline (one drafter call on the same passages) in the same run.

Prints per run: prompt and completion tokens per call and in total, wall time, the share of calls the model
answered (in which structured-output mode), what validation dropped, claims kept (the model's, the offline
drafter's in hybrid mode), and the same figures of the baseline call.

Usage: python tests/bench/llm.py --url http://127.0.0.1:8765/v1 [--engine hybrid] [--questions Q1,Q3]
       [--max-cycles 0] [--context-tokens 8192] [--max-tokens 1024]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("NO_PROXY", "127.0.0.1,localhost")

import httpx  # noqa: E402

from core.config import Settings  # noqa: E402
from core.domain.records import ModelCall  # noqa: E402
from core.engines.llm import LlmClient, LlmDrafter, LlmUnavailableError  # noqa: E402
from core.evaluation.questions import load_questions  # noqa: E402
from core.loop.deps import Deps  # noqa: E402
from core.retrieval.ingest import ingest_paths  # noqa: E402
from core.retrieval.plan_search import search_plan  # noqa: E402
from core.retrieval.registry import close_all  # noqa: E402
from core.service import Workbench  # noqa: E402


def call_line(c: ModelCall) -> str:
    """One model call: part, outcome and mode, tokens, seconds, what was dropped and cut."""
    how = c.mode if c.outcome == "answered" else f"FAILED {c.reason}"
    return (
        f"  {c.role:8} {how:22} prompt {c.prompt_tokens:5} (estimated {c.prompt_estimate:5}) completion "
        f"{c.completion_tokens:4}  {c.seconds:6.1f} s  dropped {c.dropped}  passages cut {c.left_out}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", default=os.environ.get("WORKBENCH_TEST_LLM_URL", "http://127.0.0.1:8765/v1"))
    parser.add_argument("--engine", default="hybrid", choices=["llm", "hybrid"])
    parser.add_argument("--questions", default="Q1")
    parser.add_argument("--max-cycles", type=int, default=0)
    parser.add_argument("--context-tokens", type=int, default=8192)
    parser.add_argument("--max-tokens", type=int, default=1024)
    args = parser.parse_args()
    model = httpx.get(f"{args.url.rstrip('/')}/models", timeout=60).json()["data"][0]["id"]
    wanted = set(args.questions.split(","))
    questions = [q for q in load_questions(ROOT / "questions" / "q1-q6.yaml") if q.label in wanted]
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            data_dir=Path(tmp),
            engine=args.engine,
            openai_base_url=args.url,
            llm_model=model,
            llm_context_tokens=args.context_tokens,
            llm_max_tokens=args.max_tokens,
            llm_timeout_s=300,
            llm_deadline_s=360,
            max_cycles=args.max_cycles,
        )
        wb = Workbench(settings)
        ingest_paths(wb.store(), [ROOT / "core" / "corpus"], settings=settings)
        print(
            f"server {args.url}, model {model}, engine {args.engine}, context {args.context_tokens}, "
            f"max tokens {args.max_tokens}, max cycles {args.max_cycles}"
        )
        for q in questions:
            started = time.perf_counter()
            r = wb.start(q.question, as_of=q.as_of.isoformat(), approve="all")
            wall = time.perf_counter() - started
            calls = [c for rec in r.evaluation_history for c in rec.model_calls]
            answered = [c for c in calls if c.outcome == "answered"]
            claims = [c for _, c in r.answer.claims()] if r.answer else []
            print(f"\n{q.label}: {r.status}, {len(r.evaluation_history)} cycle(s), {wall:.1f} s wall")
            for c in calls:
                print(call_line(c))
            print(
                f"  run: {len(calls)} calls, {len(answered)} answered by the model ({len(answered) / max(1, len(calls)):.0%}), "
                f"prompt {sum(c.prompt_tokens for c in calls)} + completion {sum(c.completion_tokens for c in calls)} "
                f"tokens, max prompt {max((c.prompt_tokens for c in calls), default=0)}, dropped "
                f"{sum(c.dropped for c in calls)}; claims kept {sum(not c.written_by for c in claims)} by the model, "
                f"{sum(bool(c.written_by) for c in claims)} by the offline drafter"
            )
            print(f"  {r.written_by}")
            if r.plan is None:
                continue
            hits, _ = search_plan(wb.store(), r.plan, k=settings.retrieval_k)
            ctx = Deps.context_of(wb.store(), q.as_of)
            one = LlmDrafter(LlmClient(settings), fallback=None, max_claims=settings.llm_max_claims)
            started = time.perf_counter()
            try:
                base = one.draft(r.plan, hits, ctx)
            except LlmUnavailableError as exc:
                print(f"  baseline failed: {exc}")
                for c in exc.usage.calls:
                    print(call_line(c))
                continue
            took = time.perf_counter() - started
            for c in base.usage.calls:
                print("  baseline (one drafter call on the same passages):")
                print(call_line(c))
            print(f"  baseline: {took:.1f} s, claims kept {len(base.answer.claims())}")
        close_all()


if __name__ == "__main__":
    main()
