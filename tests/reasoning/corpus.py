"""Real-looking (invented) secrets in the shapes they take in logs, commands, URLs, configs and
headers, each with what masking must leave of it; and look-alikes that must stay as they are.

Each secret is unique, so a sink test can grep every place a diagnosis writes for every one.
The AWS pair is AWS's own documentation example.
"""

from typing import NamedTuple

from reasoning.masking import MASK


class Case(NamedTuple):
    shape: str
    text: str
    secret: str  # must appear nowhere after masking
    masked: str  # what masking leaves: the text around the secret is kept


def case(shape: str, text: str, secret: str, masked: str | None = None) -> Case:
    return Case(shape, text, secret, masked or text.replace(secret, MASK))


PEM_BODY = (
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7Vq3pLm9sXo4T\\n"
    "yH2bQe8r5dKfWn7uPzG1cJx0aVtM3lR6sY9iEoN4hB2gDk8fQwZp1CvUmLjT5rXa"
)
PEM = f"-----BEGIN PRIVATE KEY-----\\n{PEM_BODY}\\n-----END PRIVATE KEY-----"
JWT = (
    "eyJhbGciOiJSUzI1NiIsImtpZCI6Ik1rUjd2In0.eyJzdWIiOiJwYXltZW50cy1hcGkiLCJleHAiOjE3NjQ2MDAwMDB9"
    ".Xq8vN2mK5pL7wR3tY6uI9oP1aS4dF0gH2jK8lZ5xC7vB3nM"
)

SECRETS: tuple[Case, ...] = (
    # command-line flags
    case("flag", "psql --password Vq8mZ2rT5kLp -h db-1 -U app", "Vq8mZ2rT5kLp"),
    case("flag", "pg_dump --password=Hn4xW7cJ2sQd orders", "Hn4xW7cJ2sQd"),
    case("flag", "mysql -h db -u root -pTg9rB3vN6yKw shop", "Tg9rB3vN6yKw"),
    case("flag", "mysqldump -u backup -p Lc5tM8qX1zRf shop", "Lc5tM8qX1zRf"),
    case("flag", "redis-cli -h cache-0 -a Rw2kP7nD4gVs ping", "Rw2kP7nD4gVs"),
    case("flag", "app --db-password 'Jm6sF3hT9bQx' --port 8080", "Jm6sF3hT9bQx"),
    case("flag", "vault login -method=userpass password=Pz4yH8wL2cNt", "Pz4yH8wL2cNt"),
    # environment assignments
    case("env", "PGPASSWORD=Ks7dG2xV5mRb psql -h db -U app", "Ks7dG2xV5mRb"),
    case("env", "PGPASSWORD Yb3nQ6tJ9wLe psql -h db", "Yb3nQ6tJ9wLe"),
    case("env", "export DB_PASSWORD=Nf8cR1vM4kZs", "Nf8cR1vM4kZs"),
    case(
        "env",
        "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY aws s3 ls",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    case("env", "env: REDIS_PASSWORD Gt5wK9pB2xHn (from secret)", "Gt5wK9pB2xHn"),
    # URL-encoded
    case(
        "url-encoded",
        "POST /login body=user%3Dbob%26passwd%3DQd6mT3rW8yLc%26next%3D1",
        "Qd6mT3rW8yLc",
    ),
    case("url-encoded", "q=%7B%22password%22%3A%22Xv2bN7kS4pJm%22%7D", "Xv2bN7kS4pJm"),
    case("url-encoded", "GET /cb?token%3DWr9hL4cQ7tBz%26state%3Dok", "Wr9hL4cQ7tBz"),
    case("url-encoded", "next=%2Fsso%3Fapi_key%253DMs3vK8nY1dFq", "Ms3vK8nY1dFq"),
    case(
        "url",
        "GET /v1/export?user=ops&password=Hc7xT2mP5wRk&fmt=csv 401",
        "Hc7xT2mP5wRk",
    ),
    # JSON
    case("json", '{"password": "Bz5qW8cN3tLv", "user": "app"}', "Bz5qW8cN3tLv"),
    case("json", '{"client_secret":"Lk2mR9vX6sDp","client_id":"diag"}', "Lk2mR9vX6sDp"),
    case("json", 'body={\\"api_key\\":\\"Fy4tH7bM2nQw\\",\\"n\\":1}', "Fy4tH7bM2nQw"),
    case("json", "{'secret': 'Pn6dK1wZ8rTc', 'ok': True}", "Pn6dK1wZ8rTc"),
    # YAML
    case("yaml", "  password: Tx3vB8mQ5kWn", "Tx3vB8mQ5kWn"),
    case("yaml", "auth:\n  token: 'Rq7cL2nV9xSd'\n  user: ci", "Rq7cL2nV9xSd"),
    case("yaml", 'db_pwd: "Wm5kT8pB1zYh"', "Wm5kT8pB1zYh"),
    # HTTP headers
    case(
        "header",
        "Authorization: Bearer Vt6nM3qZ8wKr.Ld2xP",
        "Bearer Vt6nM3qZ8wKr.Ld2xP",
    ),
    case(
        "header",
        "authorization: Basic YWxlcnQtYm90Ok5zN2ZrUTN3",
        "Basic YWxlcnQtYm90Ok5zN2ZrUTN3",
    ),
    case(
        "header",
        "Cookie: sessionid=Gh8rT2wN5kXq; csrftoken=Jd3vP7mB1sLc",
        "sessionid=Gh8rT2wN5kXq; csrftoken=Jd3vP7mB1sLc",
    ),
    case(
        "header",
        "Set-Cookie: SESSION=Kw4cR9tL6nZb; Path=/; HttpOnly",
        "SESSION=Kw4cR9tL6nZb; Path=/; HttpOnly",
    ),
    case("header", "X-Api-Key: Qm7bV2xT5dNr", "Qm7bV2xT5dNr"),
    case("header", "X-Auth-Token: Zs1nK6wP9cHm sent to upstream", "Zs1nK6wP9cHm"),
    # connection strings
    case(
        "dsn",
        "could not connect: postgresql://orders:Xc4mT9rV2kLp@db-1.internal:5432/orders",
        "Xc4mT9rV2kLp",
    ),
    case(
        "dsn",
        "redis.ConnectionError redis://:Nr8wB3qZ6tJy@cache:6379/0",
        "Nr8wB3qZ6tJy",
    ),
    case(
        "dsn", "mongodb+srv://svc:Lp2vK7nX4mQd@cluster0.mongodb.net/app", "Lp2vK7nX4mQd"
    ),
    case(
        "dsn",
        "Server=sql1;Database=pay;User Id=sa;Password=Dk9tR4wM1bZx;Encrypt=true",
        "Dk9tR4wM1bZx",
    ),
    case("dsn", "Host=db;Username=app;Pwd=Bt5nQ8xW3kLs;", "Bt5nQ8xW3kLs"),
    case(
        "dsn", "dsn=postgres%3A%2F%2Fapp%3AHm6cV1tK9pRw%40db%3A5432%2Fx", "Hm6cV1tK9pRw"
    ),
    case(
        "dsn",
        "DefaultEndpointsProtocol=https;AccountName=logs;AccountKey=Zq3xN8vB5mTk7Lw2Rp4Yc9Hd6Gs1Jf0==;",
        "Zq3xN8vB5mTk7Lw2Rp4Yc9Hd6Gs1Jf0==",
    ),
    # PEM
    case(
        "pem",
        f"ssl: cannot load key {PEM} (bad decrypt)",
        PEM_BODY[:40],
        f"ssl: cannot load key -----BEGIN PRIVATE KEY-----{MASK}-----END PRIVATE KEY----- (bad decrypt)",
    ),
    case(
        "pem",
        "key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
        "QyNTUxOQAAACB7Xk2vQ9mT4nW8pL1cR6dZ3hJ5sY0fGqExample\n-----END OPENSSH PRIVATE KEY-----\nnext",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
        f"key:\n-----BEGIN OPENSSH PRIVATE KEY-----{MASK}-----END OPENSSH PRIVATE KEY-----\nnext",
    ),
    # values that are secrets whatever the key
    case(
        "aws", "assumed role with AKIAIOSFODNN7EXAMPLE in eu-west-1", "IOSFODNN7EXAMPLE"
    ),
    case(
        "github",
        "git clone https://x@github.com/o/r ghp_Rk4mT8vN2xQw6Lc9Bz3Yp7Hd1Js5Gf0Ka",
        "Rk4mT8vN2xQw6Lc9Bz3Yp7Hd1Js5Gf0Ka",
    ),
    case(
        "github",
        "GH auth github_pat_11AB2CD3E0Fg5Hi7Jk9Lm_1No3Pq5Rs7Tu9Vw1Xy3Za5Bc7De9Fg failed",
        "11AB2CD3E0Fg5Hi7Jk9Lm_1No3Pq5Rs7Tu9Vw1Xy3Za5Bc7De9Fg",
    ),
    case(
        "slack",
        "notify via xoxb-7345126-9812374-Tq5wK8nB2vLx failed",
        "7345126-9812374-Tq5wK8nB2vLx",
    ),
    case("jwt", f"jwt rejected: {JWT} expired", JWT[3:]),
    case(
        "google",
        "geocode denied for AIzaSyB7xK2mQ9vT4nW8pL1cR6dZ3hJ5sY0fGqE",
        "SyB7xK2mQ9vT4nW8pL1cR6dZ3hJ5sY0fGqE",
    ),
    case(
        "stripe",
        "charge failed with sk_live_51Nq8Wm3Kx7Tv2Lp9Rb4Yc6Hd",
        "51Nq8Wm3Kx7Tv2Lp9Rb4Yc6Hd",
    ),
    case("gitlab", "runner glpat-Wd3kR8mN5vT2xQ7bL4pZ failed", "Wd3kR8mN5vT2xQ7bL4pZ"),
)

# Look-alikes: keys that merely contain a secret-ish word, prose, and key names in Kubernetes.
LOOK_ALIKES: tuple[str, ...] = (
    '{"signature": "upstream connect error to <ip>:<n>", "count": 12}',
    "signature=payments-gw-502 count=4",
    "token_count=512 max_tokens=4096 total_tokens=900 token_type=Bearer",
    "passwordless=true login via magic link",
    "secret_name=payments-db-creds secretRef: ledger-env",
    'valueFrom: {"secretKeyRef": {"name": "db-creds", "key": "password"}}',
    "password_file=/run/secrets/db password_hint=ask-ops",
    "password reset failed for user 42",
    "TOKEN expired for client ci-bot",
    "invalid token: expired",
    "--password is required",
    "psql -p 5432 -h db-1 -U app orders",
    "docker login --password-stdin registry.internal",
    "tokenizer ready in 35ms",
    "Basic authentication is required for the admin console",
    "has_password=false secret=null token=none",
    "GET https://payments-gw.internal:8443/healthz -> 503 Service Unavailable",
    "pass=12 fail=0 skipped=1",
    "NAME          SECRETS   AGE\ndefault       0         30h",
    "NAME      TYPE     DATA   AGE\ndb-creds  Opaque   2      5d",
)
