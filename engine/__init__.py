"""The validation engine every domain and ``rcs validate`` stand on: reading an input (``inputs``,
``json_text``), the JSON Schema verdict (``verdict``), the kinds and their models (``kinds``), the
contract errors of a schema verdict (``schema_errors``), one artifact's validation (``validation``),
and the collect -> report steps of ``rcs validate`` (``collect``, ``report``). It imports the
generated tables and models, ``safeio`` and ``base``; never a domain or the command line."""
