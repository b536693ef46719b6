"""Naming the mistake: the known mistakes' runs and how a student's failures fit
them, localization to one rule (localize, faults, blame, slope_forms,
probe_reader), patterns, slips, errors named from what they raised, and the hints.

May import core/, run/, the judge's own modules below the pipeline and judge/tensor/; never
judge.grading nor judge.hidden_runs, which call it.
"""
