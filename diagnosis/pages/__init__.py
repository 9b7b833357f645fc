"""The pages: htmx views, their forms and the read models they draw (the investigation
snapshot, the trace, operations, the incident list)."""
