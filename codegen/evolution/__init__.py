"""Schema evolution: what changed between two versions of a project's schemas and rule tables, whom
it breaks, and the instance that proves it (``rcs schema diff``; SPEC.md 2.7).

::

    sides.load      the working tree, and the other side (a git ref, a project folder, an export)
    compare.kinds   every schema change by JSON pointer, with the directions the rules claim it breaks
    tables.changes  every rule-table change (codes, messages, priorities, defaults)
    witness.find    for each claim, an instance one side accepts and the other rejects, confirmed by
                    the engine that judges artifacts; a claim with none is "possibly", with the reason
    versions        the bump each domain's changes need against the version its contract table says
    report          text (file:line: ..., as a compiler prints) or stable JSON

Like the rest of the compiler it imports nothing of the runtime.
"""
