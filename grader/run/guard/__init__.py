"""The guard inside a run: the audit hook that signs the reply and refuses tampering (guard), what
it reads of frames, files and code (guard_code), and what it hands a submission (guard_public).

Runs between a submission's lines, so it imports only core/, run.policy and itself.
"""
