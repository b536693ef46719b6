"""Diagnosis for tensor programs: the reference with one rule changed (tensor_variants), patterns of
broadcasting and reduction (tensor_patterns), the rules that keep a name only where the whole
submission backs it (tensor_evidence), and tensor errors named where the syntax tree places them
(tensor_errors).

May import core/, run/ and the judge's modules below the pipeline; never the pipeline's own
(tests/test_layers.py names them).
"""
