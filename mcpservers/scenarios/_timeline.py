"""Times shared by a scenario's dataset and its live listeners, so both tell the same story."""

# tls-expired: the payments-api certificate's notAfter, seconds relative to now.
TLS_EXPIRED_AT = -3000
# proxy-idle-timeout: the edge proxy's idle timeout and the service's SSE heartbeat, in production seconds.
IDLE_TIMEOUT_S = 60
HEARTBEAT_S = 90
