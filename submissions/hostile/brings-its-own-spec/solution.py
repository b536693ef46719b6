# Run by the oracle, in the grading process, if this spec were ever loaded: proof that it was.
from pathlib import Path

Path("/tmp/autograd-grader-escape.txt").write_text("the grading process ran a student's spec\n")


def answer():
    return 1.0
