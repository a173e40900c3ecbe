"""Errors as exceptions with the caret drawn; limits as keyword arguments; Ctrl-C and timeouts."""

from __future__ import annotations

import _thread
import threading
import time
import warnings

import pytest

import omen_dice as omen

# A computation that charges the work budget all along and runs for minutes at a raised budget:
# a product of two 1000d6 sums, each of 5001 outcomes.
LONG = "let a = 1000d6; let b = 1000d6; a * b"
# A roll that recurses without end: 2**40 calls of a body that rolls a die.
LONG_ROLL = "fn f(n) = if n <= 0 then d2 else f(n - 1) + f(n - 1); f(40)"


def test_an_error_carries_kind_span_message_hint_and_draws_the_caret():
    with pytest.raises(omen.OmenError) as caught:
        omen.prob("4d6 kh3")
    e = caught.value
    assert e.kind == "spaced-modifier"
    assert e.source[slice(*e.span)] == "kh"
    assert "whitespace ends a dice term" in e.message
    assert e.hint and "4d6kh" in e.hint
    lines = str(e).splitlines()
    assert lines[0].startswith("error: ")
    assert lines[2] == "1 | 4d6 kh3"
    assert lines[3] == "  |     ^^"
    assert "help:" in lines[4]
    assert "^^" in e._repr_html_() and e._repr_markdown_().startswith("```")


def test_an_error_survives_pickling_as_a_process_pool_sends_it():
    import pickle

    with pytest.raises(omen.OmenLimitError) as caught:
        omen.prob("20d6", max_dice=10)
    again = pickle.loads(pickle.dumps(caught.value))
    assert type(again) is omen.OmenLimitError
    assert (again.kind, again.span, str(again)) == (caught.value.kind, caught.value.span, str(caught.value))


def test_the_signature_lists_every_limit_with_its_default():
    import inspect

    parameters = inspect.signature(omen.prob).parameters
    for name, default in omen.LIMITS.items():
        assert parameters[name].default == default
    assert parameters["explode_depth"].default == 20


def test_spans_count_characters_not_bytes():
    # `é` is two bytes in UTF-8; the span must still slice the Python string at the error.
    with pytest.raises(omen.OmenError) as caught:
        omen.prob('"é" + 4d6 kh3')
    e = caught.value
    assert e.source[slice(*e.span)] == "kh"


def test_every_error_found_is_kept():
    with pytest.raises(omen.OmenError) as caught:
        omen.prob("1d6 + nope + zilch")
    assert len(caught.value.errors) >= 1
    assert all(d.severity == "error" for d in caught.value.errors)


def test_a_limit_error_is_an_omen_limit_error_naming_the_keyword():
    with pytest.raises(omen.OmenLimitError) as caught:
        omen.prob("1000d6", work_budget=10)
    assert caught.value.kind == "work-budget"
    assert "work_budget=" in str(caught.value)
    with pytest.raises(omen.OmenLimitError) as caught:
        omen.prob("20d6", max_dice=10)
    assert caught.value.kind == "too-many-dice"
    with pytest.raises(omen.OmenLimitError):
        omen.prob("1d6", max_output=10)


def test_limit_keywords_are_checked_like_the_cli_flags():
    with pytest.raises(TypeError, match="unknown limit `max_dies`"):
        omen.prob("1d6", max_dies=3)
    with pytest.raises(ValueError, match="explode_depth must be from 0 to 1000"):
        omen.prob("1d6!", explode_depth=1001)
    with pytest.raises(ValueError, match="max_sides must be from 1"):
        omen.prob("1d6", max_sides=0)
    with pytest.raises(TypeError):
        omen.prob("1d6", max_dice="10")
    # A limit takes effect: one extra die at most, so 1d6! reaches 12 and no further.
    d = omen.prob("1d6!", explode_depth=1)
    assert max(d.outcomes) == 12
    assert d.truncated == omen.prob("1d6").probability(6) ** 2


def test_warnings_go_through_pythons_warnings_and_stay_on_the_result():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        d = omen.prob("3d6>=10")
    assert [w.category for w in caught] == [omen.OmenWarning]
    assert "^^^^" in str(caught[0].message)
    assert d.warnings[0].kind and d.warnings[0].severity == "warning"


def test_a_timeout_stops_the_computation():
    start = time.monotonic()
    with pytest.raises(omen.OmenCancelled) as caught:
        omen.prob(LONG, work_budget=10**12, timeout=0.2)
    assert caught.value.kind == "deadline"
    assert time.monotonic() - start < 5


@pytest.mark.parametrize("call", [lambda: omen.prob(LONG, work_budget=10**12),
                                  lambda: omen.roll(LONG_ROLL, seed=1, work_budget=10**12)])
def test_ctrl_c_interrupts_a_long_computation(call):
    timer = threading.Timer(0.3, _thread.interrupt_main)
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
    finally:
        timer.cancel()
    assert time.monotonic() - start < 5
    # The engine is usable at once afterwards.
    assert omen.prob("1d6").denominator == 6


def test_the_gil_is_released_while_computing():
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.005)

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        with pytest.raises(omen.OmenCancelled):
            omen.prob(LONG, work_budget=10**12, timeout=0.5)
    finally:
        stop.set()
        ticker.join()
    # Ticks every ~5 ms during half a second of computation: far more than a held GIL would allow.
    assert len(ticks) > 30


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_a_forked_child_computes_although_the_parents_threads_stayed_behind():
    import multiprocessing

    omen.prob("1d6")  # the parent now keeps an idle worker thread
    context = multiprocessing.get_context("fork")
    with context.Pool(1) as pool:
        result = pool.apply_async(_denominator_of, ("3d6",))
        assert result.get(timeout=30) == 216


def _denominator_of(expression: str) -> int:
    return omen.prob(expression).denominator
