# Conveniences over the two commands; ./run and ./test need only python3.11 and a POSIX shell.
.PHONY: run test check services

run:
	./run

test:
	./test

services:
	sh scripts/bootstrap.sh
	.venv/bin/python -m agentops.launcher services

check:
	sh scripts/bootstrap.sh
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy agentops diagnosis mcpclient reasoning
