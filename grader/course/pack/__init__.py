"""What a course hands out: the students' pack (`release`, with `readme` its README,
`markdown` its task cells and `course_file` its grade-course.toml) and Gradescope's autograder
(`export`).
May import the reference engines, core, run, judge, outputs, the course secret
and itself: a pack is made from the exercises, never from a class's results."""
