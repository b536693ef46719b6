"""Mutant of scalar.

mistake: method-applies-another-function
hint: Each method applies its own function: relu applies ReLU (a copy of sigmoid left unchanged applies Sigmoid).
"""


class Scalar:
    def relu(self):
        return Sigmoid.apply(self)
