"""The lifecycle stages a workload passes, one module each, in the order Kubernetes runs them.

Each stage is a function over a `WorkloadView` returning the stage's `Finding` or None; the first
stage that blocks a workload is its fault (the rules table, `reasoning.layered.rules`, lists them in order).
"""
