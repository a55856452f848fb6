"""Witnesses: for each claimed incompatibility, one instance that one side accepts and the other
rejects, judged by the engine ``rcs validate`` runs (jsonschema-rs, the same options, documents
and format checks), never by the rules that claimed it.

The search is targeted, then general (SPEC.md 2.7):

1. *a local value*: a value of the changed schema node (``Change.node``) that the accepting side's
   node accepts and the other's rejects: the change's own hints first (a removed enum value), then
   hypothesis-jsonschema's draws from the accepting node, searched and shrunk by ``hypothesis.find``;
2. *a host document*: an instance of the kind, valid on the accepting side, in which the node
   applies somewhere (the engine's evaluation says where): the project's examples first, then
   draws; the local value replaces the instance there;
3. failing both, whole documents drawn from the accepting side, until one the other side rejects.

Every candidate is confirmed on the whole document by both sides' validators. Hypothesis runs
derandomized with no database, so the same inputs give the same witness. A claim with no witness
is reported as "possibly", with what was searched.
"""

from __future__ import annotations

import importlib
import json
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jsonschema_rs

from rcs_contracts.base import formats
from rcs_contracts.codegen import engine
from rcs_contracts.codegen.evolution.bundle import bundle, reachable, resolve
from rcs_contracts.codegen.evolution.compare import BACKWARD, Change
from rcs_contracts.codegen.evolution.sides import Side
from rcs_contracts.codegen.keywords import DATA
from rcs_contracts.safeio import files

LOCAL_EXAMPLES = 150  # draws of one schema node while looking for a value that tells the sides apart
HOST_EXAMPLES = 100  # draws of a kind while looking for an instance in which the node applies
WHOLE_EXAMPLES = 150  # draws of whole documents, the last resort
EXAMPLE_MAX_BYTES = 1 << 20  # an example file read as a host document
SHRINK_TRIES = 2000  # validations spent removing what a witness does not need
_FRAGMENT_SAFE = "/~$!&'()*+,;=:@"


@dataclass(frozen=True)
class Witness:
    """The verdict of a search: an instance (``found``), or why there is none (``reason``)."""

    direction: str
    kind: str | None
    instance: Any = None
    found: bool = False
    reason: str = ""


class Judge:
    """One side's validators, compiled as the runtime compiles them."""

    def __init__(self, side: Side) -> None:
        self.side = side
        self._registry = engine.registry(side.documents.items())
        self._formats = formats.checks(engine.FORMAT_SHAPES)
        self._compiled: dict[str, jsonschema_rs.Validator] = {}
        self._strategies: dict[str, Any] = {}

    def _validator(self, uri: str, pointer: str = "") -> jsonschema_rs.Validator:
        key = f"{uri}#{pointer}"
        if key not in self._compiled:
            document = {"$ref": f"{uri}#{quote(pointer, safe=_FRAGMENT_SAFE)}"}
            self._compiled[key] = jsonschema_rs.validator_for(
                document,
                registry=self._registry,
                base_uri=engine.URI_BASE + "__witness__",
                retriever=engine.refuse,
                formats=self._formats,
                pattern_options=engine.pattern_options(),
                **engine.OPTIONS,
            )
        return self._compiled[key]

    def accepts(self, uri: str, value: Any, pointer: str = "") -> bool:
        """Whether the schema at ``uri#pointer`` accepts ``value``."""
        try:
            return bool(self._validator(uri, pointer).is_valid(value))
        except (ValueError, jsonschema_rs.ValidationError):
            return False

    def places(self, uri: str, value: Any, target: str) -> list[str]:
        """Instance locations where the schema at ``target`` (a URI with its fragment) applies
        while the document at ``uri`` judges ``value``."""
        try:
            details = self._validator(uri).evaluate(value).list()["details"]
        except (ValueError, KeyError):
            return []
        return sorted({d["instanceLocation"] for d in details if d.get("schemaLocation") == target})

    def kind_uri(self, kind: str) -> str | None:
        """The URI of ``kind``'s schema on this side, or None when it has no such kind."""
        found = self.side.kinds.get(kind)
        return found.uri if found is not None else None

    def strategy(self, uri: str, pointer: str = "", also: dict[str, Any] | None = None) -> Any | None:
        """hypothesis-jsonschema's strategy for the schema at ``uri#pointer`` (and ``also``), or None."""
        key = f"{uri}#{pointer}" + (json.dumps(also, sort_keys=True) if also else "")
        if key not in self._strategies:
            schema = bundle(self.side.documents, uri, pointer)
            if also and isinstance(schema, dict):
                schema = _steered(schema, also)
            self._strategies[key] = _strategy(schema)
        return self._strategies[key]


def _require(node: dict[str, Any], reach: dict[str, Any]) -> bool:
    """Merge ``reach``'s required properties into ``node`` (with what they depend on), in place;
    False when ``reach`` asks for more than required properties."""
    if set(reach) - {"required", "properties"}:
        return False
    required = list(node.get("required", []))
    todo = list(reach.get("required", []))
    while todo:  # a required name brings what dependentRequired/dependentSchemas ask with it
        name = todo.pop()
        if name in required:
            continue
        required.append(name)
        todo.extend(node.get("dependentRequired", {}).get(name, []))
        dependent = node.get("dependentSchemas", {}).get(name)
        if isinstance(dependent, dict):
            todo.extend(dependent.get("required", []))
    node["required"] = required
    properties = node.get("properties", {})
    for name, inner in reach.get("properties", {}).items():
        child = properties.get(name)
        if inner and not (isinstance(child, dict) and _require(child, inner)):
            return False
    return True


def _steered(schema: dict[str, Any], reach: dict[str, Any]) -> dict[str, Any]:
    """``schema`` that holds only where ``reach`` does. Required properties are merged into the
    schema itself (hypothesis-jsonschema draws from that directly, where an ``allOf`` beside a
    closed object leaves it filtering nearly every draw away); anything else is added as allOf."""
    steered: dict[str, Any] = json.loads(json.dumps(schema))
    body = (
        steered["allOf"][0] if len(steered.get("allOf", [])) == 1 and isinstance(steered["allOf"][0], dict) else steered
    )
    if "properties" in body and _require(body, reach):
        return steered
    return {**schema, "allOf": [*schema.get("allOf", []), reach]}


def _property_path(pointer: str) -> list[str] | None:
    """The property names the schema pointer walks (``/properties/a/properties/b``: a, b), or
    None when it walks anything else."""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    if not parts or len(parts) % 2 or any(parts[i] != "properties" for i in range(0, len(parts), 2)):
        return None
    return parts[1::2]


def reaching(pointer: str) -> dict[str, Any] | None:
    """A schema that holds where the instance reaches the place the schema node at ``pointer``
    judges: each property on the way present, each array on the way long enough. Draws of a kind
    with it host the node far more often than blind draws (``dependentSchemas`` and friends make a
    property rare). None when the way is not made of properties and items alone."""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    steps: list[tuple[str, Any]] = []
    index = 0
    while index < len(parts):
        key = parts[index]
        if key == "properties" and index + 1 < len(parts):
            steps.append(("property", parts[index + 1]))
            index += 2
        elif key == "prefixItems" and index + 1 < len(parts) and parts[index + 1].isdigit():
            steps.append(("position", int(parts[index + 1])))
            index += 2
        elif key in ("items", "additionalProperties"):
            steps.append((key, None))
            index += 1
        elif key in ("allOf", "anyOf", "oneOf") and index + 1 < len(parts):
            index += 2  # a branch judges the same place
        elif key in ("then", "else"):
            index += 1
        else:
            return None
    if not steps:
        return None
    schema: dict[str, Any] = {}
    for step, arg in reversed(steps):
        if step == "property":
            schema = {"required": [arg], "properties": {arg: schema}}
        elif step == "position":
            schema = {"minItems": arg + 1, "prefixItems": [*([{}] * arg), schema]}
        elif step == "items":
            schema = {"minItems": 1, "items": schema}
        else:
            schema = {"minProperties": 1, "additionalProperties": schema}
    return schema


def _generator_dialect(schema: Any) -> Any:
    """``schema`` with 2020-12's ``prefixItems``/``items`` spelt as draft 7's ``items`` list and
    ``additionalItems``, and ``dependentRequired``/``dependentSchemas`` as ``dependencies``: what
    hypothesis-jsonschema draws from (it ignores the 2020-12 spellings).
    Only the draws change: every candidate is still judged by the 2020-12 engine."""
    if isinstance(schema, list):
        return [_generator_dialect(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    spelt = {key: value if key in DATA else _generator_dialect(value) for key, value in schema.items()}
    if isinstance(schema.get("prefixItems"), list):
        prefix = spelt.pop("prefixItems")
        if "items" in spelt:
            spelt["additionalItems"] = spelt["items"]
        spelt["items"] = prefix
    required, schemas = spelt.pop("dependentRequired", None), spelt.pop("dependentSchemas", None)
    if isinstance(required, dict) or isinstance(schemas, dict):
        # draft 7 says both with one keyword; a name in both keeps the schema (draws are only candidates)
        spelt["dependencies"] = {**(required if isinstance(required, dict) else {}), **(schemas or {})}
    return spelt


def _strategy(schema: Any | None) -> Any | None:
    if schema is None:
        return None
    from hypothesis_jsonschema import from_schema

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return from_schema(_generator_dialect(schema))
    except Exception:  # the generator refuses what it cannot draw; a witness then comes from elsewhere
        return None


def _find(strategy: Any, condition: Callable[[Any], bool], examples: int, small: bool = False) -> tuple[bool, Any]:
    """(found, value): the smallest draw of ``strategy`` meeting ``condition``, deterministically."""
    with _without_local_constants():
        return _find_plainly(strategy, condition, examples, small)


@contextmanager
def _without_local_constants() -> Iterator[None]:
    """Hypothesis (6.1xx) also draws constants it reads from the source of every loaded module
    outside site-packages, and keeps them in a process-wide cache: the same search then finds
    different witnesses in an editable install and a wheel, under pytest and from the CLI. For
    ``derandomize`` to mean "same inputs, same witness", the search runs with none. Hypothesis
    offers no setting for this, so its internals are swapped for the call (hypothesis is capped
    below 6.170.10 in pyproject.toml); if they move, the search still runs, only less stable."""
    try:
        providers: Any = importlib.import_module("hypothesis.internal.conjecture.providers")
        saved = (providers._get_local_constants, providers.CONSTANTS_CACHE)
        none = providers.Constants(
            integers=providers.SortedSet(),
            floats=providers.SortedSet(key=providers.float_to_int),
            bytes=providers.SortedSet(),
            strings=providers.SortedSet(),
        )
        providers._get_local_constants = lambda: none
        providers.CONSTANTS_CACHE = providers.LRUCache(1024)
    except (ImportError, AttributeError, TypeError):
        yield
        return
    try:
        yield
    finally:
        providers._get_local_constants, providers.CONSTANTS_CACHE = saved


def _find_plainly(strategy: Any, condition: Callable[[Any], bool], examples: int, small: bool) -> tuple[bool, Any]:
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import HypothesisException

    rules = settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        # Hypothesis shrinks by redrawing: cheap for one node's values (``small``), tens of ms a draw
        # for a whole kind, where ``shrink`` below removes what a witness does not need instead.
        phases=[Phase.generate, Phase.shrink] if small else [Phase.generate],
        report_multiple_bugs=False,
    )

    def judged(value: Any) -> bool:
        # A draw the engine cannot take (an integer beyond 64 bits, say) is no candidate; it must
        # not end the search, which an exception inside ``find`` would.
        try:
            return condition(value)
        except Exception:
            return False

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return True, find(strategy, judged, settings=rules)
    except HypothesisException:
        return False, None
    except Exception:  # a draw the condition cannot judge (the generator's own defect): no witness
        return False, None


def _replace(document: Any, location: str, value: Any) -> Any:
    """A copy of ``document`` with the value at JSON pointer ``location`` replaced."""
    if not location:
        return value
    copy = json.loads(json.dumps(document))
    parts = [p.replace("~1", "/").replace("~0", "~") for p in location.lstrip("/").split("/")]
    parent = (
        resolve(copy, "/" + "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts[:-1]))
        if len(parts) > 1
        else copy
    )
    last = parts[-1]
    if isinstance(parent, list):
        parent[int(last)] = value
    else:
        parent[last] = value
    return copy


def _paths(value: Any, here: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place inside ``value`` (outermost first), as a tuple of keys and indices."""
    yield here
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*here, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*here, index))


def _without(value: Any, path: tuple[Any, ...]) -> Any:
    """A copy of ``value`` with the member at ``path`` (a key or an index) removed."""
    copy = json.loads(json.dumps(value))
    parent = copy
    for step in path[:-1]:
        parent = parent[step]
    del parent[path[-1]]
    return copy


def shrink(value: Any, holds: Callable[[Any], bool], budget: int = SHRINK_TRIES) -> Any:
    """``value`` with every member removed that ``holds`` does not need, greedily, outermost
    first (a witness drawn from a large example keeps only what makes it one)."""
    tries = 0
    changed = True
    while changed and tries < budget:
        changed = False
        for path in list(_paths(value))[1:]:
            if tries >= budget:
                break
            try:
                smaller = _without(value, path)
            except (KeyError, IndexError, TypeError):
                continue  # an earlier removal in this pass moved it
            tries += 1
            if holds(smaller):
                value, changed = smaller, True
                break
    return value


@dataclass
class Search:
    """Witness searches over one pair of sides, sharing compiled validators and host documents."""

    old: Side
    new: Side
    examples: Path | None = None

    def __post_init__(self) -> None:
        self._judges = {id(self.old): Judge(self.old), id(self.new): Judge(self.new)}
        self._smallest: dict[tuple[int, str], Witness] = {}

    def judge(self, side: Side) -> Judge:
        """The validators of ``side`` (the old or the new one)."""
        return self._judges[id(side)]

    @cached_property
    def _example_values(self) -> list[Any]:
        """Every JSON file under the examples folder, parsed (unreadable ones left out)."""
        found: list[Any] = []
        if self.examples is None or not self.examples.is_dir():
            return found
        for path in sorted(self.examples.rglob("*.json")):
            try:
                found.append(json.loads(files.read_text(path, EXAMPLE_MAX_BYTES, "an example")))
            except (OSError, UnicodeDecodeError, ValueError):
                continue
        return found

    def hosts(
        self, judge: Judge, kind: str, target: str, reach: dict[str, Any] | None = None
    ) -> Iterator[tuple[Any, str]]:
        """(instance of ``kind`` valid on ``judge``'s side, a location where ``target`` applies in
        it); draws are steered by ``reach`` (see ``reaching``) when given."""
        uri = judge.kind_uri(kind)
        if uri is None:
            return
        for value in self._example_values:
            if judge.accepts(uri, value):
                for place in judge.places(uri, value, target):
                    yield value, place
        strategies = [judge.strategy(uri, also=reach)] if reach else []
        for strategy in [*strategies, judge.strategy(uri)]:  # steered draws first, then blind ones
            if strategy is None:
                continue
            found, value = _find(strategy, lambda v: bool(judge.places(uri, v, target)), HOST_EXAMPLES)
            if found:
                for place in judge.places(uri, value, target):
                    yield value, place
                return

    def locals(
        self, change: Change, direction: str, accepting: Judge, rejecting: Judge, uri: str, other: str
    ) -> list[Any]:
        """Values of the change's node that the accepting side takes and the other refuses."""
        node = change.node

        def tells(value: Any) -> bool:
            return accepting.accepts(uri, value, node) and not rejecting.accepts(other, value, node)

        values = [v for d, v in change.hints if d == direction and tells(v)]
        steered = [accepting.strategy(uri, node, also=dict(change.steer))] if change.steer else []
        for strategy in [*steered, accepting.strategy(uri, node)]:  # steered draws first (Change.steer)
            if strategy is None:
                continue
            found, value = _find(strategy, tells, LOCAL_EXAMPLES, small=True)
            if found:
                values.append(value)
                break
        return values

    def kinds_hosting(self, judge: Judge, own: str) -> list[str]:
        """The kinds that may host a witness for a change in ``own``'s file: ``own`` first, then
        every other kind of the side whose schema reaches that file by reference (a shared
        definition changes them all)."""
        file_uri = judge.kind_uri(own)
        others = [
            kind
            for kind, source in sorted(judge.side.kinds.items())
            if kind != own and file_uri is not None and file_uri in reachable(judge.side.documents, source.uri)
        ]
        return [own, *others]

    def find(self, change: Change, direction: str, kind: str) -> Witness:
        """A witness that ``change`` (in the schema file of ``kind``) breaks ``direction``
        (backward: the old side accepts it and the new one rejects it)."""
        accepting_side, rejecting_side = (self.old, self.new) if direction == BACKWARD else (self.new, self.old)
        accepting, rejecting = self.judge(accepting_side), self.judge(rejecting_side)
        uri, other = accepting.kind_uri(kind), rejecting.kind_uri(kind)
        assert uri is not None and other is not None, "a change is found only in a kind both sides have"
        values = self.locals(change, direction, accepting, rejecting, uri, other)
        target = f"{uri}#{change.node}"

        def holds_here(v: Any) -> bool:
            return accepting.accepts(uri, v) and not rejecting.accepts(other, v)

        placed = self._placed(accepting_side, kind, change.node, values, holds_here)
        if placed is not None:
            return Witness(direction, kind, shrink(placed, holds_here), True)
        hosted = False
        for host_kind in self.kinds_hosting(accepting, kind) if values else []:
            host_uri, host_other = accepting.kind_uri(host_kind), rejecting.kind_uri(host_kind)
            if host_uri is None or host_other is None:
                continue
            reach = reaching(change.node) if host_kind == kind else None  # the node's own document only
            for host, place in self.hosts(accepting, host_kind, target, reach):
                hosted = True
                for value in values:
                    candidate = _replace(host, place, value)
                    if accepting.accepts(host_uri, candidate) and not rejecting.accepts(host_other, candidate):

                        def holds(v: Any, a: str = host_uri, r: str = host_other) -> bool:
                            return accepting.accepts(a, v) and not rejecting.accepts(r, v)

                        return Witness(direction, host_kind, shrink(candidate, holds), True)
        # Whole documents are the last resort for a node whose values were found but not placed, or
        # that the generator cannot draw; when its own draws told nothing apart, whole ones would not.
        searched = accepting.strategy(uri, change.node) is not None
        whole = self._whole(uri, other, accepting, rejecting) if values or not searched else None
        if whole is not None:
            return Witness(direction, kind, whole, True)
        accept_name, reject_name = ("old", "new") if direction == BACKWARD else ("new", "old")
        where = change.node or "the root"
        if not values:
            reason = (
                f"no value at {where} found that the {accept_name} schema accepts and the {reject_name} one rejects"
            )
        elif not hosted:
            reason = f"no valid {accept_name} instance found in which {where} applies"
        else:
            reason = f"no valid {accept_name} instance found that the {reject_name} schema rejects"
        return Witness(direction, kind, None, False, reason)

    def _placed(self, side: Side, kind: str, node: str, values: list[Any], holds: Callable[[Any], bool]) -> Any | None:
        """The first value set into the smallest valid instance of ``kind`` where the node's
        properties lead (``/properties/a/properties/b`` -> ``a.b``) that ``holds``: a host built,
        not drawn, so it does not hang on the generator reaching a rare property."""
        path = _property_path(node)
        if not values or path is None:
            return None
        smallest = self.instance(side, kind)
        if not smallest.found or not isinstance(smallest.instance, dict):
            return None
        for value in values:
            candidate = json.loads(json.dumps(smallest.instance))
            parent = candidate
            for name in path[:-1]:
                parent = parent.setdefault(name, {})
                if not isinstance(parent, dict):
                    break
            else:
                parent[path[-1]] = value
                if holds(candidate):
                    return candidate
        return None

    def _whole(self, uri: str, other: str, accepting: Judge, rejecting: Judge) -> Any | None:
        strategy = accepting.strategy(uri)
        if strategy is None:
            return None

        def tells(value: Any) -> bool:
            return accepting.accepts(uri, value) and not rejecting.accepts(other, value)

        found, value = _find(strategy, tells, WHOLE_EXAMPLES)
        return shrink(value, tells) if found else None

    def instance(self, side: Side, kind: str) -> Witness:
        """Any valid instance of ``kind`` on ``side``, shrunk: the witness for a kind the other side
        lacks, and the base a host is built on (once per side and kind)."""
        key = (id(side), kind)
        if key not in self._smallest:
            self._smallest[key] = self._instance(side, kind)
        return self._smallest[key]

    def _instance(self, side: Side, kind: str) -> Witness:
        judge = self.judge(side)
        direction = BACKWARD if side is self.old else "forward"
        uri = judge.kind_uri(kind)
        assert uri is not None
        for value in self._example_values:
            if judge.accepts(uri, value):
                return Witness(direction, kind, shrink(value, lambda v: judge.accepts(uri, v)), True)
        strategy = judge.strategy(uri)
        if strategy is not None:
            found, value = _find(strategy, lambda v: judge.accepts(uri, v), HOST_EXAMPLES)
            if found:
                return Witness(direction, kind, shrink(value, lambda v: judge.accepts(uri, v)), True)
        return Witness(direction, kind, None, False, f"no valid instance of {kind} found")


def as_mapping(witness: Witness) -> Mapping[str, Any]:
    """The witness as the JSON report gives it."""
    if witness.found:
        return {"kind": witness.kind, "instance": witness.instance}
    return {"kind": witness.kind, "none": witness.reason}
