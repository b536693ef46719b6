"""Library courses on the trusted side: the course's reference package,
evaluating a student's traced results with it, and the course's own repositories
(its reference, its starter, its known mistakes) as package submissions."""
