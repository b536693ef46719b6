"""Running student code: the sandbox, its zygotes and children, the guard, and the records of what a
run saw."""
