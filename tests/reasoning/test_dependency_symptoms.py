"""Issue 21, a caller confirmed from its own errors about a dependency: a driver's exception, a
statement or server-selection timeout, a callee's timing quoted in the line is the dependency's
symptom in the caller, never the caller's own fault (reasoning/layered/reading.py
`about_dependency`, read by the application and new-messages rules).

Names and wordings are invented; the drivers' vocabularies are their own.
"""

import pytest

from reasoning.layered.facts import ErrorGroup
from reasoning.layered.new_messages import is_direct
from reasoning.layered.reading import about_dependency
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    NO_NETCHECK,
    group,
    lines,
    logged,
    run_with_schemas,
)

# Client-side symptoms of a dependency, several products and languages each.
DEPENDENCY_LINES = [
    # PostgreSQL: Python, Go, Java, .NET, Ruby
    "PUT /v2/till 500: psycopg2.errors.QueryCanceled: canceling statement due to statement timeout",
    'level=error msg="ledger write failed" err="pq: the database system is in recovery mode"',
    "org.postgresql.util.PSQLException: ERROR: canceling statement due to user request",
    "Npgsql.NpgsqlException (0x80004005): Exception while reading from stream",
    "PG::ConnectionBad: could not connect to server: Connection timed out",
    "asyncpg.exceptions.QueryCanceledError: canceling statement due to statement timeout",
    # MySQL, Oracle, SQL Server
    "pymysql.err.OperationalError: (2013, 'Lost connection to MySQL server during query')",
    "com.mysql.cj.jdbc.exceptions.CommunicationsException: Communications link failure",
    "cx_Oracle.DatabaseError: ORA-12170: TNS:Connect timeout occurred",
    "System.Data.SqlClient.SqlException (0x80131904): Execution Timeout Expired",
    # MongoDB: Node, Python, Java
    "MongoServerSelectionError: Server selection timed out after 30000 ms",
    "pymongo.errors.ServerSelectionTimeoutError: tray-db-0:27017: timed out",
    "com.mongodb.MongoTimeoutException: Timed out after 30000 ms while waiting for a server",
    # Redis, memcached
    "redis.exceptions.ReadOnlyError: You can't write against a read only replica.",
    "redis.clients.jedis.exceptions.JedisConnectionException: Unexpected end of stream",
    "io.lettuce.core.RedisCommandTimeoutException: Command timed out after 1 minute(s)",
    "ReplyError: READONLY You can't write against a read only replica. (ioredis)",
    "pymemcache.exceptions.MemcacheUnexpectedCloseError",
    # Kafka, AMQP
    "org.apache.kafka.common.errors.RecordTooLargeException: The message is 2300112 bytes",
    "kafka.errors.KafkaTimeoutError: Failed to update metadata after 60.0 secs.",
    "KafkaJSNumberOfRetriesExceeded: Broker: Not leader for partition",
    "pika.exceptions.AMQPConnectionError: Connection to 10.0.0.5:5672 failed",
    # Elasticsearch / OpenSearch, Cassandra
    "elasticsearch.exceptions.ConnectionTimeout: ConnectionTimeout caused by ReadTimeoutError",
    "OpenSearchStatusException[OpenSearch exception [type=es_rejected_execution_exception]]",
    "cassandra.cluster.NoHostAvailable: ('Unable to connect to any servers')",
    # A callee's timing or count quoted in the caller's own line
    "slow render /basket: 2900 ms (pricing 2400 ms)",
    "GET /tray/9 slow: stock-svc 17 calls, 1210 ms",
    # a limit beside a timing in a line that names no slow work of its own: still not the caller's
    "tray token refresh took 2900ms (threshold 400ms)",
    "search trays took 5100ms (timeout 2s)",
    "GET /v2/tray-report took 6.4s (budget 2s)",
]

# The caller's own faults: its pool run dry, its memory, its crash, its code.
OWN_LINES = [
    "HikariPool-1 - Connection is not available, request timed out after 30000ms.",
    "pgx: failed to acquire connection: context deadline exceeded (pool tills max_conns=10)",
    "sqlalchemy QueuePool limit of size 5 overflow 10 reached, connection timed out",
    "java.lang.OutOfMemoryError: Java heap space",
    "panic: runtime error: invalid memory address or nil pointer dereference",
    "Traceback (most recent call last):\nKeyError: 'tray_id'",
    "GET /v1/till 500 after 31 ms",
    # a server's own clock and a plain duration name no callee
    "Produce request to trays-7 took 4100 ms (LocalTime 3900 ms)",
    "tray 9 closed (took 40 ms)",
]


# A service's own work being slow (a slow query, statement or handler, a query plan): its own
# fault, a limit or setting quoted beside it (`statement_timeout`, `threshold`, `budget`) no callee.
OWN_SLOW_LINES = [
    "slow query: SELECT * FROM tray_slots took 7.4 s (statement_timeout 8 s)",
    "slow query 3.2s (threshold 250ms): slips by tray; plan: Sort -> Seq Scan on slips",
    "slow statement took 8100 ms (statement timeout 10 s): UPDATE tray_slots SET n = n + 1",
    "slow handler POST /tray/close took 4.4 s (budget 800 ms)",
    "query plan regressed: Seq Scan on tray_items, 6200 ms (long_query_time 2 s)",
    "slow query (query timeout of 5s): SELECT count(*) FROM till_rows",
    "slow sql 2.9 s (log_min_duration_statement 500 ms): till totals",
]
# The same words with a driver's exception, a server's timeout or a callee's timing quoted: the
# caller's symptom of its dependency still.
SLOW_BUT_DEPENDENCY_LINES = [
    "slow query: psycopg.errors.QueryCanceled: canceling statement due to statement timeout",
    "slow query on tray-store: statement timeout 10 s exceeded",
    "slow handler GET /till/4: 3300 ms (tray-store 2900 ms)",
    "slow query gave up: query timed out after 10 s",
    "slow query: MongoServerSelectionError: Server selection timed out after 30000 ms",
]


@pytest.mark.rule("board.application", "board.new-messages")
def test_a_services_own_slow_work_is_its_own_fault_not_a_dependencys_symptom():
    for text in OWN_SLOW_LINES:
        assert not about_dependency(text), text
        assert is_direct(ErrorGroup(signature=text, sample=text, count=5, before=0)), (
            text
        )
    for text in SLOW_BUT_DEPENDENCY_LINES:
        assert about_dependency(text), text
        assert not is_direct(
            ErrorGroup(signature=text, sample=text, count=5, before=0)
        ), text


@pytest.mark.rule("board.application", "board.new-messages")
def test_a_drivers_exception_or_a_quoted_timing_is_a_dependencys_symptom():
    for text in DEPENDENCY_LINES:
        assert about_dependency(text), text
        assert not is_direct(
            ErrorGroup(signature=text, sample=text, count=5, before=0)
        ), text
    for text in OWN_LINES:
        assert not about_dependency(text), text


def _world(caller_error, *, store_line=None):
    world = {
        ("service_health", "till-web"): health("till-web", "unhealthy", FAILING),
        ("top_errors", "till-web"): logged(
            "till-web", errors=[group(caller_error, count=600)]
        ),
        ("search_logs", ""): lines(),
    }
    if store_line is not None:
        world[("service_health", "tray-store")] = health("tray-store", "degraded")
        world[("top_errors", "tray-store")] = logged(
            "tray-store", errors=[group(store_line, count=40)]
        )
    return World(world)


@pytest.mark.rule("board.application", "board.new-messages")
@pytest.mark.parametrize(
    "caller_error",
    [
        "POST /till/close 500 after 30001ms: psycopg.errors.QueryCanceled: "
        "canceling statement due to statement timeout",
        "MongoServerSelectionError: Server selection timed out after 30000 ms "
        "(readPreference: secondary)",
        'Traceback (most recent call last):\n  File "/app/till.py", line 40, in save\n'
        "redis.exceptions.ReadOnlyError: You can't write against a read only replica.",
        "slow page /till: 3300 ms (api 1300 ms)",
    ],
)
def test_a_caller_is_not_confirmed_from_its_dependencys_symptom(caller_error):
    world = _world(caller_error)

    _, _, report = run_with_schemas(
        world, incident("till-web", title="tills slow"), names=NO_NETCHECK
    )

    caller = next(
        (h for h in report.hypotheses if h.id == "application:till-web"), None
    )
    assert caller is None or caller.status != "confirmed"
    assert caller is None or caller.confidence < 0.78


@pytest.mark.rule("board.application")
def test_a_callers_own_fault_beside_failing_metrics_still_confirms_it():
    world = _world("java.lang.OutOfMemoryError: Java heap space in TillWorker")

    _, _, report = run_with_schemas(
        world, incident("till-web", title="tills fail"), names=NO_NETCHECK
    )

    assert report.top.id == "application:till-web"
    assert report.top.status == "confirmed"


@pytest.mark.rule("board.application", "board.new-messages")
@pytest.mark.parametrize("own_line", OWN_SLOW_LINES[:4])
def test_a_services_own_slow_query_beside_failing_metrics_confirms_it(own_line):
    world = _world(own_line)

    _, _, report = run_with_schemas(
        world, incident("till-web", title="tills slow"), names=NO_NETCHECK
    )

    assert report.top.id == "application:till-web"
    assert report.top.status == "confirmed"


@pytest.mark.rule("board.application", "board.new-messages")
@pytest.mark.timeout(60)
def test_hostile_dependency_vocabulary_inputs_finish():
    for text in (
        "(a " * 70_000,
        "x 1 calls, " * 20_000,
        "psycopg." + "a" * 200_000,
        "Mongo" * 40_000 + "Error",
        "pool " * 40_000 + "canceling statement due to",
        "slow query " + "(statement_timeout 1 s)" * 20_000,
        "slow query " + "statement timeout " * 20_000,
        "(a_timeout 1 s) " * 30_000 + "query timeout",
    ):
        about_dependency(text)
