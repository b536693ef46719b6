"""Diagnosis for tensor programs: the first wrong gradient in backward order (tensor_chain),
the reference with one rule changed (tensor_variants), patterns of broadcasting and
reduction, batch norm's parts, and tensor errors named where the syntax tree places them.

May import core/, run/ and the judge's modules below the pipeline; never judge.grading nor
judge.hidden_runs.
"""
