"""What a course does with the grader: batches of a
class, releases, exports, validation, in-notebook checks."""
