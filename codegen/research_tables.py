"""The research tables' own rules (phase18-research.md; R-RS-1..9), beyond what their schemas say.

* Each table is consistent in itself: a tier's tools are listed tools, every tier that may research
  has caps for every environment, stop codes are unique, injection rules have unique ids, their
  macros expand and every pattern compiles both on Python's ``re`` and on the linear-time engine
  (so other languages can run the same rules).
* The contract is frozen (R-RS-9): every research table carries the same ``contract_version``, and
  the fingerprint of the versioned tables must equal the one ``contract.yaml`` froze for that
  version. Changing a stop reason, a cap, the priority order, a sentence or a rule without a new
  version is refused with the fingerprint the new content has.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Iterator, Mapping
from typing import Any

from rcs_contracts.codegen.diagnostics import Diagnostic
from rcs_contracts.codegen.sources import Domain, SourceFile, Table
from rcs_contracts.safeio.regex_set import check_pattern

# The tables whose content the contract version covers, by kind.
VERSIONED = ("research_stop_reasons", "research_policy", "research_responses", "research_injection")
CONTRACT = "contract"
# Of the injection table, the contract covers what the invariant says (which characters are
# invisible, how an obfuscation or an encoded instruction is judged), not the rules' patterns:
# those are measured against the labelled corpora, and tuning them changes which texts are caught,
# not the invariant (SPEC 12.5).
INJECTION_CONTRACT_KEYS = ("invisible", "obfuscation", "bidi_override", "encoded_verdict")  # not readings: tuning
# The fingerprint every released contract version froze. contract.yaml repeats them so a reader
# sees the history; an entry there that differs from this pin was rewritten, which is refused.
RELEASED: dict[str, str] = {
    "18.0.0": "274dab8fb5e1a8253098b5be97067edb747a0a9df66c4e113e67c45af7260d64",
}
_MACRO = re.compile(r"\{([A-Z][A-Z0-9_]*)\}")


def _diag(sf: SourceFile, ptr: str, message: str) -> Diagnostic:
    return Diagnostic(sf.rel, sf.lines.get(ptr, 1), message)


def expand(pattern: str, macros: Mapping[str, str]) -> str:
    """``pattern`` with every ``{NAME}`` replaced by its macro, macros expanded inside macros too.

    Raises KeyError for an unknown name and ValueError for a macro that refers to itself.
    """

    def one(text: str, seen: tuple[str, ...]) -> str:
        def replace(match: re.Match[str]) -> str:
            name = match[1]
            if name in seen:
                raise ValueError(f"macro {name} refers to itself")
            return one(macros[name], (*seen, name))

        return _MACRO.sub(replace, text)

    return one(pattern, ())


ENGINES = ("python", "linear")


def engine_macros(data: Mapping[str, Any], engine: str) -> dict[str, str]:
    """The macros as one engine spells them: the shared ones and that engine's own."""
    return {**data["macros"], **data["engines"][engine]}


def expanded_rules(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The injection rules with their patterns expanded for each engine (what the generated table
    holds): ``pattern`` for Python's re (compiled with re.ASCII) and ``linear`` for the linear
    engine; a co-occurrence rule has ``first`` and ``then`` (each for both engines) instead."""
    python, linear = engine_macros(data, "python"), engine_macros(data, "linear")
    out = []
    for rule in data["rules"]:
        entry = {**rule, "pattern": "", "linear": "", "first": "", "then": "", "first_linear": "", "then_linear": ""}
        entry.update(window=0, either_order=False, as_written=bool(rule.get("as_written", False)))
        if "cooccur" in rule:
            pair = rule["cooccur"]
            entry.update(
                first=expand(pair["first"], python),
                then=expand(pair["then"], python),
                first_linear=expand(pair["first"], linear),
                then_linear=expand(pair["then"], linear),
                window=pair["window"],
                either_order=bool(pair.get("either_order", False)),
            )
        else:
            entry.update(
                pattern=expand(rule["pattern"], python),
                linear=expand(rule.get("prefilter", rule["pattern"]), linear),
            )
        out.append(entry)
    return out


def _versioned_content(table: Table) -> dict[str, Any]:
    """What the contract version covers of one table."""
    return versioned_content(table.kind, table.content)


def versioned_content(kind: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """What the contract version covers of a table of ``kind`` holding ``data`` (no ``$schema``)."""
    content = {k: v for k, v in data.items() if k not in ("contract_version", "$schema")}
    if kind == "research_injection":
        encoded = content.get("encoded", {})
        content["encoded_verdict"] = {"id": encoded.get("id"), "severity": encoded.get("severity")}
        content = {k: content.get(k) for k in INJECTION_CONTRACT_KEYS}
    return content


def fingerprint(domain: Domain) -> str:
    """SHA-256 of the canonical JSON of the versioned research tables, without their version."""
    content = {t.kind: _versioned_content(t) for t in domain.tables if t.kind in VERSIONED}
    text = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def lint_table(table: Table) -> Iterator[Diagnostic]:
    """The rules of one research table (its schema has already accepted it)."""
    sf, data = table.source, table.content
    if table.kind == "research_stop_reasons":
        codes = [r["code"] for r in data["reasons"]]
        for index, code in enumerate(codes):
            if code in codes[:index]:
                yield _diag(sf, f"/reasons/{index}/code", f"stop reason {code} is listed twice")
        if data["reasons"][-1]["action"] != "ANSWER":
            yield _diag(sf, "/reasons", "the last stop reason must be the success one (action ANSWER): R-RS-1")
        for index, reason in enumerate(data["reasons"][:-1]):
            if reason["action"] == "ANSWER":
                yield _diag(sf, f"/reasons/{index}/action", "only the last stop reason may answer")
    elif table.kind == "research_policy":
        yield from _lint_policy(sf, data)
    elif table.kind == "research_injection":
        yield from _lint_injection(sf, data)


def _lint_policy(sf: SourceFile, data: Mapping[str, Any]) -> Iterator[Diagnostic]:
    tools = [t["name"] for t in data["tools"]]
    for index, name in enumerate(tools):
        if name in tools[:index]:
            yield _diag(sf, f"/tools/{index}/name", f"tool {name} is listed twice")
    for tier, entry in data["tiers"].items():
        for index, name in enumerate(entry["tools"]):
            if name not in tools:
                yield _diag(sf, f"/tiers/{tier}/tools/{index}", f"tier {tier} names unknown tool {name!r}")
        if entry["research"]:
            for env in data["environments"]:
                if env not in data["caps"].get(tier, {}):
                    yield _diag(sf, f"/tiers/{tier}", f"tier {tier} may research but has no caps for {env}")
    for tier, per_env in data["caps"].items():
        if tier not in data["tiers"]:
            yield _diag(sf, f"/caps/{tier}", f"caps for unknown tier {tier!r}")
        for env in per_env:
            if env not in data["environments"]:
                yield _diag(sf, f"/caps/{tier}/{env}", f"caps for unknown environment {env!r}")


def _compile(python: str, linear: str) -> str | None:
    """Why a pattern does not compile on both engines, or None."""
    try:
        re.compile(python, re.ASCII)
    except re.error as exc:
        return f"Python re: {exc}"
    problem = check_pattern(linear)
    return f"RE2 (the linear-time engine): {problem}" if problem else None


def _lint_injection(sf: SourceFile, data: Mapping[str, Any]) -> Iterator[Diagnostic]:
    ids = [data["obfuscation"]["id"], data["encoded"]["id"]] + [r["id"] for r in data["rules"]]
    for index, rule_id in enumerate(ids):
        if rule_id in ids[:index]:
            yield _diag(sf, "/rules", f"rule id {rule_id} is used twice")
    readings = data["readings"]
    for a, b in (("confusables_from", "confusables_to"), ("leet_from", "leet_to")):
        if len(readings[a]) != len(readings[b]):
            yield _diag(sf, f"/readings/{b}", f"{b} must have one character for each of {a}")
    for key in ("leet_from", "leet_to", "leet_one_as"):
        if not readings[key].isascii():  # the runtime reads leetspeak from the text's ASCII bytes
            yield _diag(sf, f"/readings/{key}", f"{key} must be ASCII")
    # A mark reading drops what it names: a letter or a sign in its ranges would vanish from it.
    for index, (first, last) in enumerate(readings["marks"]):
        strays = [c for c in range(first, last + 1) if unicodedata.category(chr(c)) not in ("Mn", "Me", "Cn")]
        if strays:
            yield _diag(sf, f"/readings/marks/{index}", f"U+{strays[0]:04X} is not a combining mark")
    # The look-alike reading is only made for text holding a character of confusable_scripts: a
    # look-alike outside them would never be read, a silently weaker filter.
    scripts = readings["confusable_scripts"]
    for char in readings["confusables_from"]:
        if not any(first <= ord(char) <= last for first, last in scripts):
            unread = f"{char!a} is in no range of confusable_scripts: it would never be read"
            yield _diag(sf, "/readings/confusables_from", unread)
    for index, span in enumerate(data["invisible"]):
        if span["first"] > span["last"]:
            yield _diag(sf, f"/invisible/{index}", "first must not be after last")
        if span["first"] < 0x80:  # the runtime takes ASCII text as its own display, unnormalised
            yield _diag(sf, f"/invisible/{index}", "an invisible character must not be ASCII")
    for key in ("pattern", "hex_pattern", "prose"):
        problem = _compile(data["encoded"][key], data["encoded"][key])
        if problem:
            yield _diag(sf, f"/encoded/{key}", f"pattern does not compile on {problem}")
    if set(data["engines"]["python"]) != set(data["engines"]["linear"]):
        yield _diag(sf, "/engines", "both engines must spell the same macros")
        return
    for index, rule in enumerate(data["rules"]):
        parts = (
            [("pattern", rule["pattern"], rule.get("prefilter", rule["pattern"]))]
            if "pattern" in rule
            else [(f"cooccur/{k}", rule["cooccur"][k], rule["cooccur"][k]) for k in ("first", "then")]
        )
        for key, source, prefilter in parts:
            where = f"/rules/{index}/{key}"
            try:
                python = expand(source, engine_macros(data, "python"))
                linear = expand(prefilter, engine_macros(data, "linear"))
            except KeyError as exc:
                yield _diag(sf, where, f"rule {rule['id']}: unknown macro {{{exc.args[0]}}}")
                continue
            except ValueError as exc:
                yield _diag(sf, where, f"rule {rule['id']}: {exc}")
                continue
            problem = _compile(python, linear)
            if problem:
                yield _diag(sf, where, f"rule {rule['id']}: pattern does not compile on {problem}")
            elif re.compile(python, re.ASCII).search(""):
                yield _diag(sf, where, f"rule {rule['id']}: pattern matches the empty text")


def lint_domain(domain: Domain) -> Iterator[Diagnostic]:
    """The contract version rules across a domain's research tables (R-RS-9)."""
    contract = [t for t in domain.tables if t.kind == CONTRACT]
    versioned = [t for t in domain.tables if t.kind in VERSIONED]
    if not versioned and not any("frozen" in t.content for t in contract):
        return  # not a frozen contract: the version alone is checked (codegen/contracts.py, rcs schema diff)
    if not contract:
        for table in versioned:
            yield _diag(table.source, "/contract_version", "a research table needs the domain's contract.yaml (R-RS-9)")
        return
    for kind in VERSIONED:  # a second contract table: codegen/contracts.py
        same = [t for t in domain.tables if t.kind == kind]
        for extra in same[1:]:
            yield _diag(extra.source, "/$schema", f"a second {kind} table ({same[0].source.rel} is the one): R-RS-9")
    head = contract[0]
    version = head.content["contract_version"]
    for index, entry in enumerate(head.content.get("frozen", [])):
        pinned = RELEASED.get(entry["version"])
        if pinned is not None and entry["sha256"] != pinned:
            yield _diag(
                head.source,
                f"/frozen/{index}/sha256",
                f"contract {entry['version']} was released with sha256 {pinned}; a released version's "
                "fingerprint is never rewritten: freeze a new version instead (R-RS-9)",
            )
    for table in versioned:
        if table.content["contract_version"] != version:
            yield _diag(
                table.source,
                "/contract_version",
                f"contract_version {table.content['contract_version']} differs from {head.source.rel}'s {version}",
            )
    kinds = {t.kind for t in versioned}
    for kind in VERSIONED:
        if kind not in kinds:
            yield _diag(head.source, "/contract_version", f"the research domain has no {kind} table")
    digest = fingerprint(domain)
    frozen = [(i, f) for i, f in enumerate(head.content.get("frozen", [])) if f["version"] == version]
    if not frozen:
        yield _diag(
            head.source,
            "/frozen",
            f"contract {version} is not frozen: add {{version: {version}, sha256: {digest}}} (R-RS-9)",
        )
    elif frozen[0][1]["sha256"] != digest:
        yield _diag(
            head.source,
            f"/frozen/{frozen[0][0]}/sha256",
            f"the research tables changed but contract_version is still {version} (frozen sha256 "
            f"{frozen[0][1]['sha256'][:12]}..., now {digest}): bump contract_version and freeze the new "
            "version (phase18-research.md §7.2, R-RS-9)",
        )
