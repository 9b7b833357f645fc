"""Incidents from alerts, in Zulip's webhook layout: a pure parser per source
(`alertmanager.py`, `pagerduty.py`: a body → a Notification of `model.py`), the mapping to the
incident it opens (`mapping.py`, by the registry's `[alerts]` rules), and `receive.py`, which
applies a Notification for a tenant (group, merge, open: the writes, under the group's lock).
"""
