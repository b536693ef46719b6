"""The sandbox's confinement: namespaces and the file tree a run sees (isolate, tree), landlock,
seccomp and its syscall table, and the cgroups that count a run's memory and processes.

May import core/, run.policy and itself; never the child's side (run/child/, run/guard/) nor the
trusted side's readers.
"""
