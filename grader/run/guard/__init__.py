"""The guard inside a run: what it refuses (guard_rules, guard_code), the half a submission may call
(guard_public), and the signed reply.

Runs between a submission's lines, so it imports only core/, run.policy and itself.
"""
