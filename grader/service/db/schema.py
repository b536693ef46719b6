"""The store's tables (SQLAlchemy Core), as the newest
migration leaves them; the migrations make them.

Times are epoch seconds (a double): one type on SQLite
and PostgreSQL, compared and indexed as numbers.

- students, tokens: who may submit (tokens stored as SHA-256 digests,
  never in clear), sessions and the one-time login links of the pages,
  each belonging to the token that made it (it ends with the token);
- submissions: every upload, its bytes, its receipt time and how late it was;
  unique per student, assignment and idempotency key, so a retried upload is
  stored once (and a key reused for another assignment is not a retry);
- jobs: the queue. A job is claimed with a lease (`FOR UPDATE SKIP LOCKED` on
  PostgreSQL), lowest priority, then turn (round-robin by student), then id first;
  a worker that dies stops renewing it, and another claims the job when it lapses;
- results: one row per job at most (the job id is its key),
  so a result is written once however many workers graded it;
- workers: each worker's host, load and last heartbeat, for the instructor page;
- rule_overrides, audit_log: deadlines and extensions set from the
  instructor's pages over course.toml's, and every change made from the
  pages (grader.service.deadlines; migration v0004_pages_deadlines_audit);
- corrections: an instructor's corrections of what counts for one student's
  assignment, set from the pages: a score set by hand, the submission chosen, the
  assignment excused (grader.service.policy.corrections; migration v0008_corrections);
- lti_platforms, lti_states, lti_sessions: LTI 1.3 launch (grader.service.lti.lti): the deployments
  accepted, the logins under way (single-use state and nonce), and the sessions launches made, each
  tied to its platform and LTI user (migration v0003_lti_launch); lti_contexts: each LMS context
  launched from, with its Names and Roles URL (migration v0009_lti_contexts);
- lti_lineitems: each assignment's LMS column as its links' launches name it (the AGS
  endpoint claim's `lineitem`), with lti_platforms' `lineitems_url`, the line items
  service of the LMS course (migration v0006_lti_lineitems; grader.service.lti.columns);
- stale_packs: who last showed a pack holding an older version of an exercise
  than the course's (migration v0007_stale_packs; grader.service.packs).
"""

from __future__ import annotations

from sqlalchemy import (
    Column,
    Double,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

students = Table(
    "students",
    metadata,
    Column("id", String(200), primary_key=True),
    Column("name", Text, nullable=False, default=""),
    Column("email", Text, nullable=False, default=""),
    Column("sis_user_id", Text, nullable=False, default=""),
    Column("sis_login_id", Text, nullable=False, default=""),
    Column("section", Text, nullable=False, default=""),
    Column("role", String(20), nullable=False, default="student"),
    #: the roster's LTI user id, where it differs from the gradebook's id (migration 0002)
    Column("lti_user_id", Text, nullable=False, default="", server_default=""),
)

tokens = Table(
    "tokens",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("student_id", String(200), ForeignKey("students.id"), nullable=False, index=True),
    Column("digest", String(64), nullable=False),
    Column("created_at", Double, nullable=False),
    Column("revoked_at", Double, nullable=True),
)

sessions = Table(
    "sessions",
    metadata,
    Column("digest", String(64), primary_key=True),
    Column("student_id", String(200), ForeignKey("students.id"), nullable=False),
    #: a login link is a session that is not yet used: it turns into a session cookie once
    Column("kind", String(10), nullable=False),
    Column("expires_at", Double, nullable=False),
    #: the token a login link and its session were made from: they live
    #: only while it does (migration v0004_i31); none for a launch's
    #: session (kind "lti"), which lives while its platform and LTI user do
    Column("token_id", String(32), nullable=True),
)

submissions = Table(
    "submissions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("student_id", String(200), ForeignKey("students.id"), nullable=False),
    Column("assignment", String(200), nullable=False),
    Column("idempotency_key", String(100), nullable=False),
    Column("sha256", String(64), nullable=False),
    #: what the student called the file, for their own
    #: pages only (never a path: the grader names its copy)
    Column("filename", Text, nullable=False),
    Column("suffix", String(10), nullable=False),
    Column("content", LargeBinary, nullable=False),
    Column("received_at", Double, nullable=False),
    #: whole days after the student's own deadline (0: on time)
    Column("days_late", Double, nullable=False, default=0.0),
    Column("seed", Integer, nullable=False),
    Column("seed_token", String(40), nullable=False),
    UniqueConstraint("student_id", "assignment", "idempotency_key", name="uq_submission_key"),
    Index("ix_submissions_student", "student_id", "assignment", "received_at"),
)

jobs = Table(
    "jobs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("submission_id", Integer, ForeignKey("submissions.id"), nullable=False, index=True),
    #: 0 for a new submission; regrades wait behind every
    #: new submission (1), so a rerun never stalls them
    Column("priority", Integer, nullable=False, default=0),
    #: queued, running or done
    Column("state", String(10), nullable=False, default="queued"),
    Column("attempts", Integer, nullable=False, default=0),
    Column("worker", String(100), nullable=True),
    Column("lease_until", Double, nullable=True),
    Column("queued_at", Double, nullable=False),
    Column("started_at", Double, nullable=True),
    Column("finished_at", Double, nullable=True),
    #: the job's turn among its student's jobs of its priority: one past the student's
    #: others queued or running when it was queued (0 when none was). A claim takes
    #: the lowest turn first, so a student's second queued job waits behind every
    #: other student's first: round-robin by student (migration v0005_fair)
    Column("turn", Integer, nullable=False, default=0, server_default="0"),
    Index("ix_jobs_claim", "state", "priority", "turn", "id"),
)

results = Table(
    "results",
    metadata,
    Column("job_id", Integer, ForeignKey("jobs.id"), primary_key=True),
    Column("submission_id", Integer, ForeignKey("submissions.id"), nullable=False, index=True),
    #: graded, unreadable or grader-error
    Column("outcome", String(20), nullable=False),
    Column("score", Double, nullable=False),
    Column("max_score", Double, nullable=False),
    Column("public_score", Double, nullable=False),
    #: our JSON report (grader/schemas/report.schema.json), whole, as graded
    Column("report", Text, nullable=False),
    Column("error", Text, nullable=False, default=""),
    Column("worker", String(100), nullable=False),
    Column("graded_at", Double, nullable=False),
    Column("seconds", Double, nullable=False),
)

workers = Table(
    "workers",
    metadata,
    Column("id", String(100), primary_key=True),
    Column("host", Text, nullable=False),
    Column("pid", Integer, nullable=False),
    Column("started_at", Double, nullable=False),
    Column("heartbeat_at", Double, nullable=False),
    #: the job it is grading now, if any
    Column("job_id", Integer, nullable=True),
    Column("graded", Integer, nullable=False, default=0),
    #: the host's load average over a minute, and its cores: how busy the machine under it is
    Column("load", Double, nullable=False, default=0.0),
    Column("cores", Integer, nullable=False, default=1),
    Column("stopped_at", Double, nullable=True),
    #: seconds between its heartbeats: two missed and the
    #: instructor's page shows it lost (migration v0005_fair)
    Column("beat", Double, nullable=True),
)

lti_platforms = Table(
    "lti_platforms",
    metadata,
    #: a digest of (issuer, client_id, deployment_id): one
    #: row per deployment course.toml's platform accepts
    Column("id", String(64), primary_key=True),
    Column("issuer", Text, nullable=False),
    Column("client_id", Text, nullable=False),
    Column("deployment_id", Text, nullable=False),
    #: no longer written: each context's Names and Roles URL
    #: is in lti_contexts (migration v0009_lti_contexts)
    Column("memberships_url", Text, nullable=False, default="", server_default=""),
    Column("context_id", Text, nullable=False, default="", server_default=""),
    #: the last launch's AGS line items service (its endpoint claim's `lineitems`), for publishing
    Column("lineitems_url", Text, nullable=False, default="", server_default=""),
)

stale_packs = Table(
    "stale_packs",
    metadata,
    Column("student", String(200), primary_key=True),
    Column("exercise", String(200), primary_key=True),
    #: the exercise's fingerprint in the student's pack (grader.course.pack.fingerprint)
    Column("fingerprint", String(64), nullable=False),
    Column("seen_at", Double, nullable=False),
)

lti_lineitems = Table(
    "lti_lineitems",
    metadata,
    #: a digest of (assignment, line item): a row per column a launch of the assignment's link named
    Column("id", String(64), primary_key=True),
    Column("assignment", String(200), nullable=False, index=True),
    Column("lineitem", Text, nullable=False),
    #: the resource link whose launch named it
    Column("resource_link", Text, nullable=False),
    Column("seen_at", Double, nullable=False),
)

lti_contexts = Table(
    "lti_contexts",
    metadata,
    #: a deployment's LMS context (a course, a section) a launch came from, with its own Names and
    #: Roles URL: grade roster sync reads every one, and removes only a member none of them lists
    Column(
        "platform", String(64), ForeignKey("lti_platforms.id", ondelete="CASCADE"), primary_key=True
    ),
    Column("context_id", Text, primary_key=True),
    Column("memberships_url", Text, nullable=False, default="", server_default=""),
    Column("seen_at", Double, nullable=False, default=0.0, server_default="0"),
)

lti_states = Table(
    "lti_states",
    metadata,
    #: the SHA-256 of the OIDC state: a login under way, spent once by its launch
    Column("digest", String(64), primary_key=True),
    Column("nonce", String(64), nullable=False),
    #: the login initiation's parameters (JSON), to start it again in a window of its own
    Column("login", Text, nullable=False),
    Column("expires_at", Double, nullable=False, index=True),
)

lti_sessions = Table(
    "lti_sessions",
    metadata,
    #: a session a launch made lives while its platform's
    #: row does and the student's lti_user_id is `subject`
    Column(
        "digest", String(64), ForeignKey("sessions.digest", ondelete="CASCADE"), primary_key=True
    ),
    Column(
        "platform",
        String(64),
        ForeignKey("lti_platforms.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    Column("subject", Text, nullable=False),
)

rule_overrides = Table(
    "rule_overrides",
    metadata,
    Column("assignment", String(200), primary_key=True),
    #: "" for the class's deadline, else the student whose own deadline (extension) this is
    Column("student", String(200), primary_key=True),
    #: epoch seconds; NULL: no deadline (no extension)
    Column("moment", Double, nullable=True),
    Column("set_by", String(200), nullable=False),
    Column("set_at", Double, nullable=False),
)

audit_log = Table(
    "audit_log",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", Double, nullable=False),
    #: who: the instructor's id (their token's or their launch's)
    Column("actor", String(200), nullable=False),
    #: deadline, extension, regrade, publish, score, choose, excuse, clear or confirm
    Column("action", String(40), nullable=False),
    Column("assignment", String(200), nullable=False, default=""),
    Column("student", String(200), nullable=False, default=""),
    #: the value before and after, as the page showed it
    #: (ISO 8601 in the course's zone, "none", a count)
    Column("old", Text, nullable=False, default=""),
    Column("new", Text, nullable=False, default=""),
)

corrections = Table(
    "corrections",
    metadata,
    Column("assignment", String(200), primary_key=True),
    Column("student", String(200), primary_key=True),
    #: score (set by hand), submission (chosen to count) or excused
    Column("kind", String(20), nullable=False),
    Column("score", Double, nullable=True),
    Column("submission", Integer, nullable=True),
    #: the instructor's words, which the student reads
    Column("reason", Text, nullable=False, default=""),
    Column("set_by", String(200), nullable=False),
    Column("set_at", Double, nullable=False),
)
