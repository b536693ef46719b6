"""Writing a report down: the text and JSON reports,
the LMS formats, feedback pages and the class summary."""
