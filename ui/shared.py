"""Plumbing every page shares: the one Workbench, the signed-in user, the open session, the sidebar, running the loop
with live progress (drawn by ui/live.py).

The open session's thread id lives in `st.session_state` and in the URL (`?session=...`), so a reload reopens it;
so does the reviewer's name in single-user mode (`?reviewer=...`).
A session is read from the checkpointer at most once per rerun (`read_session`): app.py starts each rerun with
`new_rerun`, and every part of the page (sidebar, page body) shares that read.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

import streamlit as st

from core.config import Settings
from core.domain.safe_markdown import md_escape
from core.service import (
    InputError,
    RetrievalError,
    RunResult,
    SessionBusyError,
    SessionNotFoundError,
    Workbench,
)
from ui import live
from ui.frames import answer_markdown
from ui.outcome import flag_answer

log = logging.getLogger(__name__)

THREAD_KEY = "thread_id"
QUERY_KEY = "session"
REVIEWER_KEY = "reviewer"
"""The "Your name" field's key, and its URL query parameter (`?reviewer=`)."""
DEFAULT_REVIEWER = "analyst"
MAX_REVIEWER_CHARS = 100
LOCAL_USER = "local"
RESEARCH_PAGE = "views/research.py"
SESSIONS_PAGE = "views/sessions.py"
READS_KEY = "session-reads"
ASK_GENERATION_KEY = "ask-generation"
"""Bumped to give the Research page's question form fresh (empty) widgets."""


# --------------------------------------------------------------------------------------------- the service
def _secrets() -> Mapping[str, Any]:
    return st.secrets.to_dict() if st.secrets.load_if_toml_exists() else {}


@st.cache_resource(show_spinner="Opening the workbench…")
def workbench() -> Workbench:
    """The process-wide Workbench: graph, checkpointer, vector store and embedder are created once. Its settings
    come from the environment and then Streamlit's secrets file (core.config reads it)."""
    return Workbench(Settings())


def ensure_corpus(wb: Workbench) -> None:
    """On first start (empty store), index the bundled sample corpus with a progress bar."""
    try:
        empty = wb.corpus_empty()
    except RetrievalError as exc:
        st.error(
            f"The corpus store cannot be opened: {md_escape(str(exc))}. Stop the other process using "
            f"{md_escape(str(wb.settings.data_dir))} (the CLI?) or point WORKBENCH_DATA_DIR elsewhere, then reload."
        )
        st.stop()
    if not empty:
        return
    bar = live.LiveBar("First start: indexing the bundled sample corpus (once; the embedding model loads first)…")
    report = wb.ensure_sample_corpus(progress=bar)
    if report is not None:
        flash(f"First start: sample corpus {report.summary()}.", "info")
    bar.finish()


# ------------------------------------------------------------------------------------------------- users
def auth_configured() -> bool:
    """Whether an OIDC login is configured (an `[auth]` section in .streamlit/secrets.toml)."""
    return isinstance(_secrets().get("auth"), Mapping)


def require_user() -> str:
    """The signed-in user's id, or `local` in single-user mode; shows the login screen and stops otherwise."""
    if not auth_configured():
        return LOCAL_USER
    if not st.user.is_logged_in:
        st.title("Compliance Research Workbench")
        st.write("Sign in to open your research sessions.")
        st.button("Log in", on_click=st.login, type="primary")
        st.stop()
    return user_id()


def user_id() -> str:
    """The signed-in user's e-mail (or subject), or `local` in single-user mode."""
    return str(st.user.get("email") or st.user.get("sub")) if auth_configured() else LOCAL_USER


def reviewer() -> str:
    """The one name recorded with every act (uploads, verifications, replacements, review decisions,
    annotations, confirmations, struck claims, exports, questions asked): the signed-in user when a login is
    configured, else the sidebar's "Your name", which the URL keeps (`?reviewer=`) so it survives a reload;
    `local` when no name is given."""
    if auth_configured():
        return user_id()
    return (st.session_state.get(REVIEWER_KEY) or "").strip() or LOCAL_USER


# ---------------------------------------------------------------------------------------- the open session
def sync_session(wb: Workbench, user: str) -> None:
    """Take the session from the URL on a fresh load; keep the URL pointing at the open session afterwards."""
    if THREAD_KEY not in st.session_state:
        wanted = st.query_params.get(QUERY_KEY)
        st.session_state[THREAD_KEY] = None
        if wanted:
            try:
                read_session(wb, wanted, user)
                st.session_state[THREAD_KEY] = wanted
            except SessionNotFoundError:
                flash(
                    f"Session {md_escape(wanted)} does not exist (deleted?); start a new one or pick one on Sessions.",
                    "warning",
                )
    set_thread(st.session_state[THREAD_KEY])


def current_thread() -> str | None:
    """Thread id of the open session, if any."""
    return st.session_state.get(THREAD_KEY)


def set_thread(thread_id: str | None) -> None:
    """Open a session (or none) in this browser tab and in the URL."""
    st.session_state[THREAD_KEY] = thread_id
    if thread_id:
        if st.query_params.get(QUERY_KEY) != thread_id:
            st.query_params[QUERY_KEY] = thread_id
    elif QUERY_KEY in st.query_params:
        del st.query_params[QUERY_KEY]


def clear_question_form() -> None:
    """Empty the Research page's question form on its next render."""
    st.session_state[ASK_GENERATION_KEY] = st.session_state.get(ASK_GENERATION_KEY, 0) + 1


def new_question() -> None:
    """The sidebar's "New question": close the open session and start from an empty form."""
    set_thread(None)
    clear_question_form()


def current_result(wb: Workbench) -> RunResult | None:
    """The open session as stored, or None (closing it when it no longer exists)."""
    thread_id = current_thread()
    if not thread_id:
        return None
    try:
        return read_session(wb, thread_id, user_id())
    except SessionNotFoundError:
        set_thread(None)
        flash(f"Session {md_escape(thread_id)} no longer exists.", "warning")
        return None


def new_rerun() -> None:
    """Start a rerun with no session read yet (app.py calls it first on every rerun)."""
    st.session_state[READS_KEY] = {}


def read_session(wb: Workbench, thread_id: str, user: str) -> RunResult:
    """The session as stored, read from the checkpointer once per rerun and shared by every part of the page."""
    reads = st.session_state.setdefault(READS_KEY, {})
    if (thread_id, user) not in reads:
        reads[(thread_id, user)] = wb.show(thread_id, user_id=user)
    return reads[(thread_id, user)]


def forget_reads() -> None:
    """A run, resume, annotation, branch or delete changed a session: read it again if it is shown again."""
    st.session_state[READS_KEY] = {}


def flash(message: str, kind: str = "success") -> None:
    """A message for the next page render (survives st.rerun and page switches)."""
    st.session_state.setdefault("flash", []).append((kind, message))


def show_flash() -> None:
    """Show and forget the pending messages."""
    for kind, message in st.session_state.pop("flash", []):
        getattr(st, kind)(message)


def no_session_hint() -> None:
    """What to do when a page needs a session and none is open."""
    st.info("No session is open. Ask a question on the Research page, or open one from Sessions.")
    st.page_link(RESEARCH_PAGE, label="Ask a question", icon=":material/travel_explore:")
    st.page_link(SESSIONS_PAGE, label="Open a past session", icon=":material/history:")


# --------------------------------------------------------------------------------------------- the sidebar
def sidebar(wb: Workbench, result: RunResult | None) -> None:
    """Engine, corpus size, the open session and the user mode."""
    with st.sidebar:
        engine = wb.engine_name if wb.engine_name == "offline" else f"{wb.engine_name} ({wb.settings.llm_model})"
        st.markdown(f":material/memory: Engine: **{md_escape(engine)}**")
        stats = wb.corpus_stats()
        st.markdown(f":material/library_books: Corpus: **{stats.documents}** documents · {stats.passages} passages")
        if result is None:
            st.caption("No session open.")
        else:
            st.markdown(f":material/folder_open: Session `{result.thread_id}` {status_badge(result)}")
            st.caption(md_escape(_clip(result.question, 140)))
            st.button("New question", icon=":material/add:", on_click=new_question, width="stretch")
        st.divider()
        if auth_configured():
            st.caption(f"Signed in as {md_escape(user_id())}: your review decisions and annotations carry this name.")
            st.button("Log out", on_click=st.logout)
        else:
            st.text_input(
                "Your name",
                value=DEFAULT_REVIEWER,
                max_chars=MAX_REVIEWER_CHARS,
                key=REVIEWER_KEY,
                bind="query-params",
                help="Recorded with everything you do here: uploads, verifications, review decisions, annotations "
                "and exports; the address keeps it, so a reload or a bookmark remembers it.",
            )
            st.caption(
                "Single-user mode: no login is configured, so every session here is visible to anyone "
                "who can open this address."
            )


def status_badge(result: RunResult) -> str:
    """The session's status badge (Streamlit Markdown), from its outcome (core.domain.outcome): a finished session
    is red with a residual at or above the blocking severity, orange with any other, green with none."""
    return result.outcome.badge_markdown()


def flagged_answer(result: RunResult) -> str:
    """The finished answer for display (inert Markdown) with ` ⚠ [D-…]` after each sentence a residual flags."""
    return flag_answer(answer_markdown(result.current_answer), result.residual_deficiencies)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def run_live(text: str, call: Callable[[live.LiveProgress], RunResult]) -> None:
    """Run the loop with live progress; on success open the session and rerun, else show what went wrong. The
    session changed either way, so this rerun's reads are forgotten."""
    progress = live.LiveProgress(text)
    try:
        result = call(progress)
    except (InputError, SessionBusyError, SessionNotFoundError) as exc:
        progress.fail(str(exc))
        return
    except Exception:
        log.exception("run failed")
        progress.fail(
            "The run stopped on an internal error; the session is kept at its last checkpoint (see the server log)."
        )
        raise
    finally:
        forget_reads()
    st.session_state[THREAD_KEY] = result.thread_id
    progress.finish(result)
