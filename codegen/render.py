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
import keyword
import re
import tempfile
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

from rcs_contracts.base.about import GENERATED_PACKAGE
from rcs_contracts.codegen import engine, research_tables, typescript, verify
from rcs_contracts.codegen.diagnostics import CompileError, Diagnostic
from rcs_contracts.codegen.keywords import objects
from rcs_contracts.codegen.sources import SCHEMA_SUFFIX, Domain, Project, SourceFile, Table
from rcs_contracts.codegen.stamp import compiler_fingerprint, inputs_hash, sha256, stamp

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
        return stamp(self.body, self.inputs, self.inputs_hash, "//" if self.rel.endswith(".ts") else "#")


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
    generated: str = "generated"  # the project's folder for outputs (``[tool.rcs] generated``)
    spec: str = "SPEC.md"  # the file of the sections (``[tool.rcs] spec``)


def _placed(project: Project, outputs: list[Output], sections: list[Section]) -> Plan:
    """The plan with every output under the project's own folder: outputs are named
    ``generated/...`` while rendering, and live under ``[tool.rcs] generated``."""
    folder = project.settings.generated
    moved = [replace(o, rel=folder + o.rel.removeprefix("generated")) for o in outputs]
    return Plan(tuple(sorted(moved, key=lambda o: o.rel)), tuple(sections), folder, project.settings.spec)


def model_module(schema: SourceFile) -> str:
    """The module datamodel-code-generator writes for a schema file (``x.schema.json`` -> ``x_schema``)."""
    return schema.path.name[: -len(".json")].replace(".", "_")


def _domain_hash(fingerprint: str, domain: Domain) -> str:
    return inputs_hash(fingerprint, domain.inputs)


_ALIAS_RE = r"^{name} = TypeAliasType\("


def plan(project: Project) -> Plan:
    """Name every output and its inputs hash, without rendering anything."""
    fingerprint = sha256(compiler_fingerprint() + "\n" + project.settings.fingerprint())
    every_schema = [s for d in project.domains for s in d.schemas]
    global_hash = inputs_hash(fingerprint, every_schema)
    documents_hash = inputs_hash(fingerprint, every_schema + [r.source for r in project.resources])
    catalog_hash = inputs_hash(fingerprint, _catalog_files(project))
    where = project.settings.schemas  # named in each stamp as the project names it
    outputs = [
        Output("generated/__init__.py", f"{where}/", global_hash),
        Output("generated/_documents.py", f"{where}/*/*.schema.json and [tool.rcs.resources]", documents_hash),
        Output("generated/_support.py", "codegen/templates/support.py.j2", global_hash),
        Output("generated/kinds.py", f"{where}/*/*.schema.json", global_hash),
        Output("generated/_catalog.py", f"{where}/ and the rule tables", catalog_hash),
        Output("generated/ts/index.d.ts", f"{where}/*/*.schema.json", global_hash),
    ]
    sections: list[Section] = []
    for domain in project.domains:
        dhash = _domain_hash(fingerprint, domain)
        base = f"generated/{domain.name}"
        outputs.append(Output(f"{base}/__init__.py", f"{where}/{domain.name}/", dhash))
        for schema in domain.schemas:
            outputs.append(Output(f"{base}/{model_module(schema)}.py", schema.rel, dhash))
        for table in domain.tables:
            outputs.append(Output(f"{base}/{table.source.stem}.py", table.source.rel, dhash))
            if (TEMPLATES / f"{table.kind}.md.j2").is_file():
                sections.append(Section(f"{domain.name}-{table.source.stem}", table.source.rel, dhash))
    return _placed(project, outputs, sections)


def _catalog_files(project: Project) -> list[SourceFile]:
    files = {f.rel: f for d in project.domains for f in d.inputs}
    files.update({s.rel: s for s in project.table_schemas})
    return [files[k] for k in sorted(files)]


def catalog(project: Project) -> list[dict[str, str]]:
    """One entry per input file (``generated/_catalog.py``), sorted by path."""
    roles: dict[str, dict[str, str]] = {}
    for domain in project.domains:
        versions = [t.content.get("contract_version") for t in domain.tables]
        version = next((str(v) for v in versions if isinstance(v, str)), "")
        for schema in domain.schemas:
            own = schema.data.get("$id") if isinstance(schema.data, dict) else None
            roles[schema.rel] = {"role": "schema", "kind": f"{domain.name}/{schema.stem}", "schema": "",
                                 "id": own if isinstance(own, str) else "", "version": version}  # fmt: skip
        for table in domain.tables:
            roles[table.source.rel] = {"role": "table", "kind": "", "schema": table.schema.rel, "id": "",
                                       "version": version}  # fmt: skip
    for schema in project.table_schemas:
        own = schema.data.get("$id") if isinstance(schema.data, dict) else None
        roles.setdefault(schema.rel, {"role": "table-schema", "kind": "", "schema": "",
                                      "id": own if isinstance(own, str) else "", "version": ""})  # fmt: skip
    return [{"file": f.rel, **roles[f.rel], "sha256": sha256(f.raw)} for f in _catalog_files(project)]


# --- models -------------------------------------------------------------------------------------

_DMCG_HEADER = "# rcs-dmcg-header"


# Names the generated modules import, and KIND, the kind name each module ends with: a model of
# that name would shadow the import or be hidden by KIND.
_IMPORTED = frozenset(
    {"Annotated", "Any", "BaseModel", "ConfigDict", "Enum", "Field", "JsonInt", "JsonNumber", "KIND", "Literal",
     "MISSING", "RootModel", "StrictModel", "StringConstraints", "TypeAliasType", "Union"}
)  # fmt: skip


def _pascal(text: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^0-9A-Za-z]+", text) if part)


def _other_class_names(schema: Any) -> set[str]:
    """Names the generator may give other classes of the module: $defs keys, titles, property names."""
    names: set[str] = set()
    for current in objects(schema):
        for key in ("$defs", "properties", "patternProperties", "dependentSchemas"):
            if isinstance(current.get(key), dict):
                names.update(current[key])
                names.update(_pascal(k) for k in current[key])
        if isinstance(current.get("title"), str):
            names.update((current["title"], _pascal(current["title"])))
    return names


def class_name(schema: SourceFile) -> str:
    """The model class of a schema file: its ``title`` when that is an ASCII class name, else from the file name.

    ``Document`` is appended while the name is one the module imports or may give another class
    (a ``$defs`` entry, a nested title, a property): the kind must name its own root model.
    """
    title = schema.data.get("title") if isinstance(schema.data, dict) else None
    name = "".join(part.capitalize() for part in schema.stem.split("_") if part) or "Model"
    if isinstance(title, str) and title.isascii() and title.isidentifier() and title[0].isupper():
        name = title
    taken = _IMPORTED | (_other_class_names({k: v for k, v in schema.data.items() if k != "title"})
                         if isinstance(schema.data, dict) else set())  # fmt: skip
    while name in taken or keyword.iskeyword(name):
        name += "Document"
    return name


def class_names(domain: Domain) -> dict[str, str]:
    """The model class of every schema file of a domain, by its path."""
    return {schema.rel: class_name(schema) for schema in domain.schemas}


def _views(domain: Domain, registry: Any) -> dict[str, dict[str, Any]]:
    """The model view (codegen/view.py) of every schema of the domain, by file name."""
    import jsonschema_rs
    from pydantic import Field, TypeAdapter

    from rcs_contracts.codegen import engine
    from rcs_contracts.codegen.view import ModelView

    def pattern_ok(pattern: str) -> bool:
        try:
            TypeAdapter(Annotated[str, Field(pattern=pattern)])
        except Exception:  # pydantic-core's regex errors have no public class
            return False
        return True

    from rcs_contracts.codegen.view import file_references

    viewer_for: dict[str, ModelView] = {}
    views: dict[str, dict[str, Any]] = {}
    siblings = frozenset(s.path.name for s in domain.schemas)
    references = {s.path.name: file_references(s.data) & siblings for s in domain.schemas}
    names = class_names(domain)
    for schema in domain.schemas:

        def is_valid(sub: Any, value: Any, uri: str = schema.uri) -> bool:
            try:
                return bool(engine.compile_schema(sub, uri, registry).is_valid(value))
            except (jsonschema_rs.ValidationError, ValueError, jsonschema_rs.ReferencingError, UnicodeError):
                return False

        viewer_for[schema.rel] = ModelView(siblings, is_valid, pattern_ok, references)
        views[schema.path.name] = viewer_for[schema.rel].document(schema.path.name, schema.data, names[schema.rel])
    return views


def render_models(domain: Domain, registry: Any) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
    """Model module bodies of one domain by module name, generated from the model views (by file name)."""
    if not domain.schemas:
        return {}, {}
    from datamodel_code_generator import (
        InputFileType,
        LiteralType,
        TargetPydanticVersion,
        generate,
    )
    from datamodel_code_generator.enums import DataModelType
    from datamodel_code_generator.format import Formatter, PythonVersion

    views = _views(domain, registry)
    where = Path(domain.schemas[0].rel).parent.as_posix() if domain.schemas else domain.name  # for diagnostics
    with tempfile.TemporaryDirectory(prefix="rcs-views-") as temp:
        directory = Path(temp)
        for name, view in views.items():
            (directory / name).write_text(json.dumps(view, indent=2, ensure_ascii=True) + "\n", encoding="utf-8")
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result = generate(
                    directory,
                    input_file_type=InputFileType.JsonSchema,
                    output_model_type=DataModelType.PydanticV2BaseModel,
                    target_python_version=PythonVersion.PY_311,
                    base_class=f"{GENERATED_PACKAGE}._support.StrictModel",
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
                    custom_file_header=_DMCG_HEADER,
                    allow_remote_refs=False,
                )
        except Exception as exc:  # the generator's own errors are many and unexported
            raise CompileError([Diagnostic(where, 0, f"datamodel-code-generator: {exc}")]) from None
    # The view holds only what the generator expresses exactly: a warning means it would not.
    problems = sorted({str(w.message) for w in caught if issubclass(w.category, UserWarning)})
    if problems:
        raise CompileError(
            [Diagnostic(where, 0, f"datamodel-code-generator: {p}") for p in problems]
        )
    modules: dict[str, str] = {}
    items = result.items() if isinstance(result, dict) else [(("single.py",), result or "")]
    for key, text in items:
        name = "/".join(key)
        if not name.endswith(".py") or name == "__init__.py":
            continue
        modules[name[: -len(".py")]] = _strip_dmcg_header(str(text))
    return modules, views


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
    elif table.kind == "research_injection":
        extra["rules"] = research_tables.expanded_rules(data)
    elif table.kind == "contract":
        extra["fingerprint"] = research_tables.fingerprint(domain) if "frozen" in data else ""
    template = env.get_template(f"{table.kind}{suffix}")
    text: str = template.render(domain=domain.name, source=table.source.rel, table=data, raw_json=_py(data), **extra)
    return text


# --- the whole project --------------------------------------------------------------------------

_CLASS_RE = re.compile(r"^class (\w+)\(", re.MULTILINE)
_KIND_RE = re.compile(r"^(?:class )?KIND\b", re.MULTILINE)
KIND_TAKEN = (
    "a class or alias named KIND (a $defs entry, a nested title or a property) "
    "would be hidden by the module's kind name"
)


def render(project: Project) -> Plan:
    """Render every output body named by ``plan``."""
    skeleton = plan(project)
    env = _environment()
    documents = [(s.uri, s.data) for d in project.domains for s in d.schemas]
    documents += [(r.uri, r.source.data) for r in project.resources]
    registry = engine.registry(documents + [(s.uri, s.data) for s in project.table_schemas])
    bodies: dict[str, str] = {}
    section_bodies: dict[str, str] = {}
    kinds: list[dict[str, str]] = []
    views: dict[str, dict[str, Any]] = {}
    for domain in project.domains:
        base = f"generated/{domain.name}"
        modules, domain_views = render_models(domain, registry)
        views.update({s.rel: domain_views[s.path.name] for s in domain.schemas})
        for schema in domain.schemas:
            module = model_module(schema)
            if module not in modules:
                raise CompileError([Diagnostic(schema.rel, 1, f"datamodel-code-generator wrote no module {module}")])
            title = views[schema.rel]["title"]
            if title not in _CLASS_RE.findall(modules[module]) and not re.search(
                _ALIAS_RE.format(name=title), modules[module], re.MULTILINE
            ):
                raise CompileError([Diagnostic(schema.rel, 1, f"no model named {title!r} in the generated module")])
            kind = f"{domain.name}/{schema.path.name[: -len(SCHEMA_SUFFIX)]}"
            if _KIND_RE.search(modules[module]):
                raise CompileError([Diagnostic(schema.rel, 1, KIND_TAKEN)])
            # The module names its own kind, so code that validates one imports the name with the
            # model: a renamed schema breaks that import, not a lookup at run time.
            bodies[f"{base}/{module}.py"] = f"{modules[module].rstrip()}\n\n\nKIND = {json.dumps(kind)}\n"
            kinds.append(
                {
                    "kind": kind,
                    "domain": domain.name,
                    "name": schema.path.name[: -len(SCHEMA_SUFFIX)],
                    "module": f"{project.settings.package}.{domain.name}.{module}",
                    "model": title,
                    "schema": schema.rel,
                    "uri": schema.uri,
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
    bodies["generated/_catalog.py"] = env.get_template("catalog.py.j2").render(entries=catalog(project))
    bodies["generated/ts/index.d.ts"] = typescript.render(project)
    bodies["generated/_documents.py"] = env.get_template("documents.py.j2").render(
        options=repr(dict(sorted(engine.OPTIONS.items()))),
        pattern_options=engine.PATTERN_OPTIONS,
        documents=sorted((uri, engine.compact(engine.engine_document(doc))) for uri, doc in documents),
        shapes=repr(dict(sorted(engine.FORMAT_SHAPES.items()))),
        patterns=sorted({k: v for _, doc in documents for k, v in engine.rewritten_patterns(doc).items()}.items()),
    )
    problems = sorted(verify.check(bodies, kinds, views, project.settings.package))
    if problems:
        raise CompileError(problems)
    folder = skeleton.generated
    outputs = [
        Output(o.rel, o.inputs, o.inputs_hash, bodies["generated" + o.rel.removeprefix(folder)])
        for o in skeleton.outputs
    ]
    sections = [Section(s.name, s.inputs, s.inputs_hash, section_bodies[s.name]) for s in skeleton.sections]
    return Plan(tuple(outputs), tuple(sections), folder, skeleton.spec)
