"""The trusted side's bounded, total reading of a submission: a .py file or a notebook (with its
magics), and its syntax.

May import core/ and itself: reading never runs anything.
"""
