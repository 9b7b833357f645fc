"""The JSON API (DESIGN §9): auth, input parsing, idempotency, thin views and the OpenAPI document."""
