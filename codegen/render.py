"""Render: turn loaded, linted inputs into output texts (nothing is written here).

* models: datamodel-code-generator, in-process, one pass per domain over ``schemas/<domain>/``;
* tables: one jinja2 template per kind of rule table (``templates/<kind>.py.j2``);
* SPEC.md sections: ``templates/<kind>.md.j2`` where a table kind has one;
* glue: ``generated/_support.py`` (base classes), ``generated/kinds.py`` (R-GEN-7), package inits.

``plan`` names every output and its inputs hash without rendering, which is what lets
``rcs codegen --check`` skip rendering on an unchanged tree.
"""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codegen.diagnostics import CompileError, Diagnostic
from codegen.sources import SCHEMA_SUFFIX, Domain, Project, SourceFile, Table
from codegen.stamp import compiler_fingerprint, inputs_hash, stamp_python

TEMPLATES = Path(__file__).parent / "templates"
FORMATTER_SETTINGS = Path(__file__).parent / "formatter"
PY_TYPES = {"str": "str", "int": "int", "float": "float", "number": "int | float"}


@dataclass(frozen=True)
class Output:
    """One generated Python file."""

    rel: str
    inputs: str
    inputs_hash: str
    body: str = ""

    def text(self) -> str:
        """The file's full text: header, then body."""
        return stamp_python(self.body, self.inputs, self.inputs_hash)


@dataclass(frozen=True)
class Section:
    """One generated SPEC.md section."""

    name: str
    inputs: str
    inputs_hash: str
    body: str = ""


@dataclass(frozen=True)
class Plan:
    """Every output of a project, with or without rendered bodies."""

    outputs: tuple[Output, ...]
    sections: tuple[Section, ...]


def model_module(schema: SourceFile) -> str:
    """The module datamodel-code-generator writes for a schema file (``x.schema.json`` -> ``x_schema``)."""
    return schema.path.name[: -len(".json")].replace(".", "_")


def _domain_hash(fingerprint: str, domain: Domain) -> str:
    return inputs_hash(fingerprint, domain.inputs)


def plan(project: Project) -> Plan:
    """Name every output and its inputs hash, without rendering anything."""
    fingerprint = compiler_fingerprint()
    every_schema = [s for d in project.domains for s in d.schemas]
    global_hash = inputs_hash(fingerprint, every_schema)
    outputs = [
        Output("generated/__init__.py", "schemas/", global_hash),
        Output("generated/_support.py", "codegen/templates/support.py.j2", global_hash),
        Output("generated/kinds.py", "schemas/*/*.schema.json", global_hash),
    ]
    sections: list[Section] = []
    for domain in project.domains:
        dhash = _domain_hash(fingerprint, domain)
        base = f"generated/{domain.name}"
        outputs.append(Output(f"{base}/__init__.py", f"schemas/{domain.name}/", dhash))
        for schema in domain.schemas:
            outputs.append(Output(f"{base}/{model_module(schema)}.py", schema.rel, dhash))
        for table in domain.tables:
            outputs.append(Output(f"{base}/{table.source.stem}.py", table.source.rel, dhash))
            if (TEMPLATES / f"{table.kind}.md.j2").is_file():
                sections.append(Section(f"{domain.name}-{table.source.stem}", table.source.rel, dhash))
    return Plan(tuple(sorted(outputs, key=lambda o: o.rel)), tuple(sections))


# --- models -------------------------------------------------------------------------------------

_DMCG_HEADER = "# rcs-dmcg-header"


def render_models(domain: Domain) -> dict[str, str]:
    """Model module bodies of one domain, keyed by module name."""
    if not domain.schemas:
        return {}
    from datamodel_code_generator import (
        DatetimeClassType,
        InputFileType,
        LiteralType,
        TargetPydanticVersion,
        generate,
    )
    from datamodel_code_generator.enums import DataModelType
    from datamodel_code_generator.format import Formatter, PythonVersion

    directory = domain.schemas[0].path.parent
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = generate(
                directory,
                input_file_type=InputFileType.JsonSchema,
                output_model_type=DataModelType.PydanticV2BaseModel,
                target_python_version=PythonVersion.PY_311,
                base_class="generated._support.StrictModel",
                collapse_root_models=True,
                use_type_alias=True,
                enum_field_as_literal=LiteralType.All,
                field_constraints=True,
                use_annotated=True,
                use_double_quotes=True,
                use_standard_collections=True,
                use_union_operator=True,
                use_schema_description=True,
                strict_nullable=True,
                # An optional property that is absent is MISSING, not None: JSON null is then rejected
                # where the schema does not allow it, and dumps omit absent properties (as in the input).
                use_missing_sentinel=True,
                target_pydantic_version=TargetPydanticVersion.V2_14,
                disable_timestamp=True,
                formatters=[Formatter.BUILTIN],
                builtin_format_line_length=120,
                settings_path=FORMATTER_SETTINGS,
                output_datetime_class=DatetimeClassType.Awaredatetime,
                custom_file_header=_DMCG_HEADER,
                allow_remote_refs=False,
            )
    except Exception as exc:  # the generator's own errors are many and unexported
        raise CompileError([Diagnostic(f"schemas/{domain.name}", 0, f"datamodel-code-generator: {exc}")]) from None
    # A warning means the model would not say what the schema says (e.g. a dropped constraint): fail.
    problems = sorted({str(w.message) for w in caught if issubclass(w.category, UserWarning)})
    if problems:
        raise CompileError(
            [Diagnostic(f"schemas/{domain.name}", 0, f"datamodel-code-generator: {p}") for p in problems]
        )
    modules: dict[str, str] = {}
    items = result.items() if isinstance(result, dict) else [(("single.py",), result or "")]
    for key, text in items:
        name = "/".join(key)
        if not name.endswith(".py") or name == "__init__.py":
            continue
        modules[name[: -len(".py")]] = _rfc3339(_strip_dmcg_header(str(text)))
    return modules


_PYDANTIC_IMPORT = re.compile(r"^from pydantic import (.+)$", re.MULTILINE)


def _rfc3339(text: str) -> str:
    """Use the RFC 3339 date-time type for ``format: date-time``.

    Pydantic's AwareDatetime also takes unix seconds and other ISO 8601 spellings that JSON Schema's
    ``date-time`` (RFC 3339) rejects; ``generated._support.Rfc3339Datetime`` holds it to the format.
    """
    if "AwareDatetime" not in text:
        return text

    def drop(match: re.Match[str]) -> str:
        names = [n.strip() for n in match[1].split(",") if n.strip() != "AwareDatetime"]
        return "from pydantic import " + ", ".join(names)

    text = _PYDANTIC_IMPORT.sub(drop, text, count=1)
    text = re.sub(r"\bAwareDatetime\b", "Rfc3339Datetime", text)
    return text.replace(
        "from generated._support import StrictModel", "from generated._support import Rfc3339Datetime, StrictModel", 1
    )


def _strip_dmcg_header(text: str) -> str:
    if text.startswith(_DMCG_HEADER):
        text = text[len(_DMCG_HEADER) :]
    return "\n" + text.lstrip("\n")


# --- tables -------------------------------------------------------------------------------------


def _doc(text: str) -> str:
    """Make text safe inside a triple-quoted docstring."""
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


def _py(value: Any) -> str:
    """A Python literal for a JSON-like value (JSON strings are valid Python strings)."""
    return json.dumps(value, ensure_ascii=False)


def _pynone(value: Any) -> str:
    """Like ``py``, with ``None`` for a missing value."""
    return "None" if value is None else _py(value)


def _snake(code: str) -> str:
    return code.lower()


def _pytype(kind: str) -> str:
    return PY_TYPES[kind]


def _environment() -> Any:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters.update(doc=_doc, py=_py, pynone=_pynone, snake=_snake, pytype=_pytype, ord=ord, pyascii=json.dumps)
    return env


def exception_tree(table: dict[str, Any]) -> list[str]:
    """The error classes drawn as an indented tree, base first (for the module docstring)."""
    children: dict[str, list[str]] = {}
    base = table["base"]["name"]
    for cls in table["classes"]:
        children.setdefault(cls.get("parent") or base, []).append(cls["name"])
    lines = [base]

    def walk(name: str, prefix: str) -> None:
        kids = children.get(name, [])
        for index, kid in enumerate(kids):
            last = index == len(kids) - 1
            lines.append(f"{prefix}{'└── ' if last else '├── '}{kid}")
            walk(kid, prefix + ("    " if last else "│   "))

    walk(base, "")
    return lines


def render_table(env: Any, domain: Domain, table: Table, suffix: str) -> str:
    """Render one rule table with the template of its kind."""
    data = table.content
    extra: dict[str, Any] = {}
    if table.kind == "errors":
        extra["tree"] = exception_tree(data)
    template = env.get_template(f"{table.kind}{suffix}")
    text: str = template.render(domain=domain.name, source=table.source.rel, table=data, raw_json=_py(data), **extra)
    return text


# --- the whole project --------------------------------------------------------------------------

_CLASS_RE = re.compile(r"^class (\w+)\(", re.MULTILINE)


def render(project: Project) -> Plan:
    """Render every output body named by ``plan``."""
    skeleton = plan(project)
    env = _environment()
    bodies: dict[str, str] = {}
    section_bodies: dict[str, str] = {}
    kinds: list[dict[str, str]] = []
    for domain in project.domains:
        base = f"generated/{domain.name}"
        modules = render_models(domain)
        for schema in domain.schemas:
            module = model_module(schema)
            if module not in modules:
                raise CompileError([Diagnostic(schema.rel, 1, f"datamodel-code-generator wrote no module {module}")])
            title = schema.data["title"]
            if title not in _CLASS_RE.findall(modules[module]):
                raise CompileError([Diagnostic(schema.rel, 1, f"no model class named after the title {title!r}")])
            bodies[f"{base}/{module}.py"] = modules[module]
            kinds.append(
                {
                    "kind": f"{domain.name}/{schema.path.name[: -len(SCHEMA_SUFFIX)]}",
                    "domain": domain.name,
                    "name": schema.path.name[: -len(SCHEMA_SUFFIX)],
                    "module": f"generated.{domain.name}.{module}",
                    "model": title,
                    "schema": schema.rel,
                }
            )
        for table in domain.tables:
            bodies[f"{base}/{table.source.stem}.py"] = render_table(env, domain, table, ".py.j2")
            if (TEMPLATES / f"{table.kind}.md.j2").is_file():
                section_bodies[f"{domain.name}-{table.source.stem}"] = render_table(env, domain, table, ".md.j2")
        bodies[f"{base}/__init__.py"] = env.get_template("package_init.py.j2").render(
            domain=domain.name,
            models=[model_module(s) for s in domain.schemas],
            tables=[t.source.stem for t in domain.tables],
        )
    bodies["generated/__init__.py"] = env.get_template("package_init.py.j2").render(
        domain=None, models=[], tables=[d.name for d in project.domains]
    )
    bodies["generated/_support.py"] = env.get_template("support.py.j2").render()
    bodies["generated/kinds.py"] = env.get_template("kinds.py.j2").render(kinds=sorted(kinds, key=lambda k: k["kind"]))
    outputs = tuple(Output(o.rel, o.inputs, o.inputs_hash, bodies[o.rel]) for o in skeleton.outputs)
    sections = tuple(Section(s.name, s.inputs, s.inputs_hash, section_bodies[s.name]) for s in skeleton.sections)
    return Plan(outputs, sections)
