"""The server's HTML pages: a student's own, the instructor's class table,
deadlines and summary, the login link's confirmation, the upload form; with
their forms, the session cookie and the Origin check on each state change.
"""
