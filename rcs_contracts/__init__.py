"""rcs: a schema-first contract compiler and runtime for research-agent systems.

The one import package of the ``rcs-contracts`` distribution (the command is ``rcs``). In the
checkout its folders are links to the project's top-level folders; a wheel holds them here::

    base/       exit statuses and the distribution's name: a leaf every layer may import
    safeio/     bounded reading of untrusted files, strict YAML, RE2 patterns (imports only base)
    codegen/    the compiler: schemas -> generated/ (imports only base and safeio)
    generated/  the compiler's output: models, tables, schema documents (imports only itself)
    engine/     validation shared by every domain: read, verdict, models, report
    runtime/    the domains' behaviour, and cli.py, the ``rcs`` command
    schemas/    the schemas and rule tables themselves (data)
"""

from rcs_contracts.base.about import VERSION as __version__

__all__ = ["__version__"]
