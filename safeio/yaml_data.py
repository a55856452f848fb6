"""YAML read as JSON data, and nothing more: every YAML reader of rcs goes through ``load``.

What a YAML file may hold here is exactly what a JSON file may: mappings with string keys,
sequences, strings, numbers, booleans and null. Refused, each with its line:

* anchors (``&a``), aliases (``*a``) and merge keys (``<<``): an alias is how a few hundred bytes
  expand into gigabytes ("billion laughs"), and none of them has a JSON meaning;
* explicit tags (``!!python/object``, ``!!binary``, ``!!set``, even ``!!str``);
* keys that are not strings (``? [a, b]``, ``1: x``, ``null: x``) and duplicate keys;
* ``.inf``, ``.nan`` and floats too large for a double (not JSON numbers), and integers with more
  decimal digits than Python writes out (``sys.get_int_max_str_digits``), hex and octal ones too;
* collections nested deeper than 64 levels;
* a raw NEL, LS or PS character (U+0085, U+2028, U+2029): PyYAML folds it like a line break where
  YAML 1.2 keeps it; written as an escape in a double-quoted string it is read exactly;
* a raw U+FEFF anywhere but the very start (a byte-order mark there is skipped): the two readers
  below disagree on it; escaped (``"\\ufeff"``) it is read as itself;
* a lone surrogate escape (``"\\ud83d"``): not a character. An escaped pair (``"\\ud83d\\ude00"``)
  is the one character it encodes, as in JSON (PyYAML alone would keep two halves no UTF-8 can hold).

Plain scalars are resolved by the YAML 1.2 core schema, not PyYAML's YAML 1.1 default: ``1e3`` is
a number, ``yes``/``on``/``no`` and ``2024-01-01`` are strings, ``012`` is twelve, ``0o17`` and
``0x1F`` are integers, ``true``/``false``/``null`` (and their ``True``/``TRUE`` spellings) are what
they say.

Two readers, one verdict: libyaml scans and parses first when PyYAML has it (its wheels do),
about ten times faster than PyYAML's Python reader; the composer and constructors above stay the
Python ones, refusals included. A text libyaml refuses goes to the Python reader, whose verdict
(and line) stands. The two differ on a few corners of YAML 1.1 syntax (a tab after a plain scalar,
some flow collections, escaped surrogates): a text either reads is read, and where both read it
they read the same data (tests/hostile/test_yaml.py). Without libyaml the Python reader alone
decides (SPEC.md 11.2).
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode
from yaml.resolver import BaseResolver

STR, INT, FLOAT, BOOL, NULL = (f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null"))


class YamlError(ValueError):
    """YAML that is not JSON data rcs reads; ``line`` is 1-based, ``problem`` one line of text."""

    def __init__(self, line: int, problem: str) -> None:
        super().__init__(f"line {line}: {problem}")
        self.line = line
        self.problem = problem


# Collections inside collections, at most (as for JSON sources, codegen/sources.py). Checked as
# nodes are composed, so that no reader ever runs near Python's recursion limit: libyaml's events
# are built in C, and one interrupted there by a RecursionError is never freed.
MAX_DEPTH = 64


class _Refused(yaml.MarkedYAMLError):
    """Raised inside the loader with a mark; turned into a YamlError by ``load``."""


class _Loader(yaml.SafeLoader):
    """PyYAML's safe pipeline with the YAML 1.2 core schema and the refusals above: the composer
    never builds an alias."""

    # Start from no implicit resolvers at all (not YAML 1.1's): only those added below apply.
    yaml_implicit_resolvers = {}  # noqa: RUF012 - PyYAML's own class-level registry
    _depth = 0  # collections open around the node being composed

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent):
            problem = f"aliases (*{event.anchor}) are not supported: write the value out"
            raise _Refused(None, None, problem, event.start_mark)  # type: ignore[arg-type]
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            raise _Refused(None, None, f"anchors (&{anchor}) are not supported: write the value out", event.start_mark)
        tag = getattr(event, "tag", None)
        if tag is not None:
            shown = tag.replace("tag:yaml.org,2002:", "!!")
            raise _Refused(None, None, f"tags ({shown}) are not supported: JSON data only", event.start_mark)
        if not isinstance(event, yaml.CollectionStartEvent):
            return super().compose_node(parent, index)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                problem = f"nested deeper than {MAX_DEPTH} levels"
                raise _Refused(None, None, problem, event.start_mark)  # type: ignore[arg-type]
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


_Loader.add_implicit_resolver(BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
_Loader.add_implicit_resolver(NULL, re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""])
_Loader.add_implicit_resolver(INT, re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"), list("-+0123456789"))
_Loader.add_implicit_resolver(
    FLOAT,
    re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+0123456789."),
)


def _int(loader: _Loader, node: ScalarNode) -> int:
    text = node.value
    try:
        if text.startswith(("0o", "0x")):
            value = int(text[2:], 8 if text[1] == "o" else 16)
            # Python reads any number of octal or hex digits, but writes (and JSON carries) no more
            # decimal digits than it reads: such a number could not be written out again.
            if value.bit_length() > _DECIMAL_BITS:
                str(value)
            return value
        return int(text, 10)
    except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits)
        raise _Refused(None, None, f"an integer of {len(text)} digits is too long", node.start_mark) from None


# Integers up to this many bits have fewer decimal digits than any digit limit Python allows (640).
_DECIMAL_BITS = 2000


def _float(loader: _Loader, node: ScalarNode) -> float:
    text = node.value
    if text.lstrip("+-").lower() in (".inf", ".nan") or math.isinf(value := float(text)):
        raise _Refused(None, None, f"{node.value} is not a JSON number", node.start_mark)
    return value


_SURROGATE = re.compile("[\ud800-\udfff]")


def _text(value: str, node: Node) -> str:
    """A string with its escaped surrogate pairs joined into the characters they encode."""
    if _SURROGATE.search(value) is None:
        return value
    try:
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    except UnicodeDecodeError:
        # The first half without its partner: a high one not followed by a low one, or a low one alone.
        halves = [m.start() for m in _SURROGATE.finditer(value)]
        lone = next(
            i for i in halves
            if not ("\ud800" <= value[i] <= "\udbff" and "\udc00" <= value[i + 1 : i + 2] <= "\udfff")
            and not ("\udc00" <= value[i] <= "\udfff" and "\ud800" <= value[i - 1 : i] <= "\udbff")
        )  # the decoder failed, so one exists
        problem = f"\\u{ord(value[lone]):04x} is half of a surrogate pair, not a character: write the character itself"
        raise _Refused(None, None, problem, node.start_mark) from None


def _str(loader: _Loader, node: ScalarNode) -> str:
    return _text(loader.construct_scalar(node), node)


def _mapping(loader: _Loader, node: MappingNode) -> dict[str, Any]:
    result: dict[str, Any] = {}
    first: dict[str, int] = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, ScalarNode) or key_node.tag != STR:
            shown = key_node.value if isinstance(key_node, ScalarNode) else f"a {key_node.id}"
            raise _Refused(
                None, None, f"a key must be a string, not {shown!s} (quote it)", key_node.start_mark
            )
        key = _text(key_node.value, key_node)
        if key == "<<" and not key_node.style:  # plain: None from PyYAML's parser, "" from libyaml's
            raise _Refused(None, None, "merge keys (<<) are not supported: write the keys out", key_node.start_mark)
        if key in first:
            raise _Refused(None, None, f"duplicate key {key!r} (first at line {first[key]})", key_node.start_mark)
        first[key] = key_node.start_mark.line + 1
        result[key] = loader.construct_object(value_node, deep=True)
    return result


_Loader.add_constructor(STR, _str)
_Loader.add_constructor(INT, _int)
_Loader.add_constructor(FLOAT, _float)
_Loader.add_constructor(BaseResolver.DEFAULT_MAPPING_TAG, _mapping)

_CParser: Any
try:
    from yaml._yaml import CParser as _CParser
except ImportError:  # PyYAML built without libyaml: the Python reader alone
    _CParser = None

if _CParser is not None:

    class _FastLoader(_CParser, _Loader):  # type: ignore[misc]
        """The same loader on libyaml's events: only scanning and parsing move to C (about ten times
        faster); composing, with the refusals above, and constructing stay the Python ones."""

        get_single_node = yaml.composer.Composer.get_single_node
        get_node = yaml.composer.Composer.get_node
        check_node = yaml.composer.Composer.check_node

        def __init__(self, stream: str) -> None:
            _CParser.__init__(self, stream)
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)


# NEL, LS and PS: line breaks to PyYAML (YAML 1.1), ordinary characters to YAML 1.2. Raw, one would
# be folded into a space inside a quoted string; escaped (\u2028) it is read as itself.
_AMBIGUOUS_BREAK = re.compile("[\x85\u2028\u2029]")


def load(text: str) -> Any:
    """The JSON data of one YAML document (None for an empty one); raises YamlError with a line."""
    text = text.removeprefix("\ufeff")
    if text.startswith("\ufeff"):  # PyYAML would skip this one too: only one is a byte-order mark
        raise YamlError(1, "a second byte-order mark at the start")
    mark = text.find("\ufeff")
    if mark >= 0:  # libyaml skips one at a line's start, PyYAML's Python reader keeps it: write it escaped
        line = text[:mark].count("\n") + 1
        raise YamlError(line, "a raw U+FEFF (byte-order mark) inside the text: write it as \\uFEFF")
    odd = _AMBIGUOUS_BREAK.search(text)
    if odd is not None:
        line = text[: odd.start()].count("\n") + 1
        code = ord(odd.group())
        problem = f"a raw U+{code:04X} is a line break to PyYAML but not to YAML 1.2: write it as \\u{code:04X}"
        raise YamlError(line, problem)
    if _CParser is None:
        return _python_reading(text)
    if not text.isascii() and _SURROGATE.search(text):  # libyaml's reader takes UTF-8 only
        return _python_reading(text)  # which refuses the character, with its line
    fast = _FastLoader(text)
    try:
        return fast.get_single_data()
    except (yaml.YAMLError, RecursionError):
        pass
    finally:
        fast.dispose()
    # The Python reader's verdict, with its line: libyaml refuses a few texts it reads (an escaped
    # surrogate pair, some flow collections).
    return _python_reading(text)


def _python_reading(text: str) -> Any:
    loader: _Loader | None = None
    try:
        loader = _Loader(text)  # the reader checks every character here already
        return loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        raise YamlError(mark.line + 1 if mark is not None else 1, str(problem)) from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow; it has no mark
        line = text[: exc.position].count("\n") + 1
        code = exc.character if isinstance(exc.character, int) else ord(exc.character)
        raise YamlError(line, f"the character U+{code:04X} is not allowed in YAML") from None
    except yaml.YAMLError as exc:
        raise YamlError(1, str(exc).replace("\n", " ")) from None
    except RecursionError:
        raise YamlError(loader.line + 1 if loader is not None else 1, "nested too deeply") from None
    except ValueError:  # PyYAML's scanner hands an escape beyond U+10FFFF ("\U00110000") to chr()
        line = loader.line + 1 if loader is not None else 1
        raise YamlError(line, "an escape beyond U+10FFFF is not a character") from None
    finally:
        if loader is not None:
            loader.dispose()
