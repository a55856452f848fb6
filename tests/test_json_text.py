"""runtime/json_text.py: which number literals overflow a double, whatever their spelling."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rcs_contracts.engine import json_text
from rcs_contracts.engine.json_text import JsonTextError

OVERFLOW = "a number is too large for a 64-bit float (I-JSON, RFC 7493 section 2.2)"


@pytest.mark.parametrize(
    "text",
    [
        "1e400",
        "-1E+400",
        "1.8e308",
        '[0, {"a": 2e0308}]',
        "1" + "0" * 400 + ".0",  # no exponent: 401 digits before the point
        "-" + "9" * 309 + ".5",
    ],
)
def test_a_literal_past_the_largest_double_is_refused(text: str) -> None:
    with pytest.raises(JsonTextError) as info:
        json_text.parse(text)
    assert str(info.value) == OVERFLOW == json_text.OVERFLOW


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1e-400", 0.0),  # underflow is zero, not an error
        ("1.7e308", 1.7e308),
        ("1" + "0" * 400, 10**400),  # an integer stays exact, however long
        ("9" * 99 + ".0", float("9" * 99)),
    ],
)
def test_a_literal_a_double_holds_or_an_integer_is_read(text: str, value: object) -> None:
    assert json_text.parse(text) == value


def _refused_exactly_when_float_overflows(number: str) -> None:
    """``number`` alone and inside an array: a JsonTextError when float() overflows, else its value."""
    for text, wrap in ((number, float), (f"[{number}]", lambda v: [float(v)])):
        if math.isinf(float(number)):
            with pytest.raises(JsonTextError):
                json_text.parse(text)
        else:
            assert json_text.parse(text) == wrap(number)


@given(digits=st.text("0123456789", min_size=1, max_size=420), fraction=st.text("0123456789", min_size=1, max_size=3))
def test_a_decimal_without_exponent_is_refused_exactly_when_it_overflows(digits: str, fraction: str) -> None:
    _refused_exactly_when_float_overflows(f"{digits.lstrip('0') or '0'}.{fraction}")  # JSON has no leading zero


@given(exponent=st.integers(min_value=300, max_value=330), mantissa=st.floats(min_value=1, max_value=9.99))
def test_an_exponent_is_refused_exactly_when_it_overflows(exponent: int, mantissa: float) -> None:
    text = f"{mantissa!r}e{exponent}"
    _refused_exactly_when_float_overflows(text)


@given(
    digits=st.integers(min_value=1, max_value=320),
    exponent=st.integers(min_value=-99, max_value=99),
    lead=st.sampled_from("123456789"),
)
def test_a_long_mantissa_with_a_short_exponent_is_refused_exactly_when_it_overflows(
    digits: int, exponent: int, lead: str
) -> None:
    # An exponent of at most two digits: only the run of mantissa digits can tell an overflow.
    text = f"{lead}{'0' * (digits - 1)}e{exponent}"
    _refused_exactly_when_float_overflows(text)


@pytest.mark.parametrize("text", ['\ufeff{"a": [1]}', '\ufeff{"a": [1]}'.encode()])
def test_one_leading_byte_order_mark_is_ignored_in_text_and_in_bytes(text: str | bytes) -> None:
    assert json_text.parse(text) == {"a": [1]}
    assert json_text.read(text) == {"a": [1]}


@pytest.mark.parametrize("text", ['\ufeff\ufeff{"a": 1}', '\ufeff\ufeff{"a": 1}'.encode(), ' \ufeff{"a": 1}'])
def test_a_second_or_a_later_byte_order_mark_is_not_json(text: str | bytes) -> None:
    with pytest.raises(JsonTextError):
        json_text.parse(text)


@pytest.mark.parametrize(
    ("text", "where"), [('"\ud800"', "U+D800) at character 1"), ('[1, "a\udfffb"]', "U+DFFF) at character 6")]
)
def test_a_lone_surrogate_in_text_is_refused_in_words_not_a_type_error(text: str, where: str) -> None:
    # Python strings can hold half a character; JSON text cannot (RFC 8259 8.1: UTF-8).
    with pytest.raises(JsonTextError) as info:
        json_text.parse(text)
    assert str(info.value) == f"a lone surrogate ({where} is not Unicode text"


@given(st.text(max_size=30), st.sampled_from(["\ud800", "\udbff", "\udc00", "\udfff"]), st.text(max_size=30))
def test_a_lone_surrogate_anywhere_is_a_json_text_error(before: str, surrogate: str, after: str) -> None:
    text = json.dumps([before])[:-2] + surrogate + json.dumps([after])[2:]
    with pytest.raises(JsonTextError):
        json_text.read(text)


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a": -Infinity}', "[1, nan]"])
def test_nan_and_infinity_are_not_json(text: str) -> None:
    with pytest.raises(JsonTextError):
        json_text.parse(text)
    with pytest.raises(JsonTextError):
        json_text.read(text.encode())
