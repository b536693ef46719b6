"""What runs inside the sandbox: the zygote's main loop, the child that executes a submission, its
probes' helpers and the evidence of what autograd did, all under the guard.

May import core/, run.policy, run.inputs, run.observed, run/guard/ and run/confine/ (the zygote
confines itself); never the trusted side (run.sandbox, run.zygote, run.running, run.reply,
run/read/) nor any layer above run/.
"""
