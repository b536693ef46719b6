"""The grading queue and its workers: jobs claimed under a lease, round-robin by student
(queue), `grade worker` (worker), one stored submission graded in a warm sandbox
(grading), and a waiting request's report delivered as soon as it is stored (delivery).

May import core/, the layers below service/ and service/db/; never the pages nor the app.
"""
