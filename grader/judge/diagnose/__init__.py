"""Naming the mistake: each kind of engine's declared passes (passes) over one exercise's evidence
(evidence), with what they read: known mistakes (known_mistakes, matching), patterns (patterns,
named_errors, hints), sign slips (slips), faults localized to one rule (localize, faults,
slope_forms, blame), the syntax tree's facts (code_facts, code_names, unreached), an exercise's own
code (exercise_code), and a released pack's stored mistakes (released_mistakes).

May import core/, run/, the judge's own modules below the pipeline and judge/tensor/; never
the pipeline's own modules, which call it (tests/test_layers.py names them).
"""
