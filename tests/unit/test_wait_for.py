"""cluster.helpers.wait_for, which every real-cluster test waits with: its timeout says how the
last call ended, so that a failed start in CI can be read from its message alone."""

from __future__ import annotations

import pytest

from cluster.helpers import wait_for


def calls(*outcomes):
    """A predicate that gives each outcome in turn (an exception is raised), then the last forever."""
    left = list(outcomes)

    def predicate():
        outcome = left.pop(0) if len(left) > 1 else left[0]
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    return predicate


def test_a_wait_whose_last_call_failed_quotes_that_error():
    with pytest.raises(TimeoutError, match=r"waiting for x \(last error: refused\)$"):
        wait_for(calls("", ConnectionRefusedError("refused")), 0.05, 0.01, what="x")


def test_a_wait_whose_calls_answered_not_yet_after_an_error_says_so():
    # a manager respawning (refused), then a standby serving an empty page: the refusal is not
    # the last word
    with pytest.raises(TimeoutError) as raised:
        wait_for(calls(ConnectionRefusedError("refused"), ""), 0.05, 0.01, what="x")
    assert str(raised.value) == (
        "timed out after 0.05s waiting for x (the last call answered not yet; an earlier one failed: refused)"
    )


def test_a_wait_that_never_failed_quotes_nothing_and_a_ready_one_returns_the_value():
    with pytest.raises(TimeoutError) as raised:
        wait_for(calls(0), 0.05, 0.01, what="x")
    assert str(raised.value) == "timed out after 0.05s waiting for x"
    assert wait_for(calls(ConnectionRefusedError("refused"), "", "ready"), 5, 0.01) == "ready"
