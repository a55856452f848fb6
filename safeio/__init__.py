"""Input and output rules every layer of rcs shares (the compiler and the runtime alike).

Nothing here knows a schema or a contract: these are the guards around untrusted bytes.

* ``safeio.files``: the one bounded reader (regular files only, a byte cap, symlink rules);
* ``safeio.yaml_data``: YAML read as JSON data only (no anchors, aliases, tags or complex keys);
* ``safeio.regex``: user-supplied regular expressions on a linear-time engine;
* ``safeio.terminal``: text from others made safe to print.

It imports nothing from ``codegen``, ``generated`` or ``runtime``, so both sides of the data flow
can stand on it.
"""
