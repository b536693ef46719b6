"""What counts, and when, in parts: an assignment's rules as course.toml states them
(`rules`, which grader.service.config reads the course around); the one clock an
upload's time and every shown moment come from (`clock`); where late days go
(`late_days`, which grader.service.standing's one rule of what counts plans with); when
a student's results are released and what a change would release (`release`); an instructor's
corrections (`corrections`); an edit of course.toml held until confirmed (`confirmation`);
the audit log of every change (`audit`); a receipt's words on what an upload does to
what counts (`effects`); and `grade course check` (`course_check`). A module here may
import the core, the judge's catalog, the course's configuration and store, and what
counts (grader.service.standing): never the server's app or pages."""
