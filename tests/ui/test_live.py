"""A click while the loop runs must not cut the run off: Streamlit's rerun request is held until the call returns."""

from __future__ import annotations

import pytest
from streamlit.runtime.scriptrunner_utils.exceptions import RerunException, StopException
from streamlit.runtime.scriptrunner_utils.script_requests import RerunData

from ui.live import _Live


@pytest.mark.parametrize("request_exc", [RerunException(RerunData()), StopException()])
def test_a_request_raised_while_drawing_is_held_then_raised(request_exc: BaseException) -> None:
    live = _Live()
    drawn: list[int] = []

    def interrupted() -> None:
        raise request_exc

    live._guard(interrupted)
    live._guard(lambda: drawn.append(1))
    assert drawn == [1]
    with pytest.raises(type(request_exc)):
        live._release()


def test_nothing_held_means_nothing_raised() -> None:
    live = _Live()
    live._guard(lambda: None)
    live._release()


@pytest.mark.parametrize("error", [ValueError("broken"), KeyboardInterrupt()])
def test_errors_and_interrupts_pass_through_at_once(error: BaseException) -> None:
    live = _Live()

    def failing() -> None:
        raise error

    with pytest.raises(type(error)):
        live._guard(failing)
    live._release()
