"""The rcs spec compiler: schemas and rule tables in, strict models and dispatch tables out.

The pipeline runs in four visible stages, one module each::

    sources.load   read schemas/<domain>/*.schema.json and the YAML rule tables, with line numbers
    lint.check     metaschema, table schemas (R-GEN-2) and the house rules; `file:line: message`
    render.*       datamodel-code-generator for models, jinja2 for tables and SPEC.md sections
    write.apply    write, or with --check compare and print a unified diff (R-GEN-5)

Nothing under ``runtime/`` imports this package: a user who only validates does not pay for it.
"""
