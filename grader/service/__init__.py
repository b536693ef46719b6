"""The course server and its client (grade serve, grade
submit, grade tokens, grade worker): a layer above course/."""
