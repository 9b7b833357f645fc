"""Create the demo tenant, its admin user and a first API token (idempotent; the run command calls it).

The password comes from $AGENTOPS_DEMO_PASSWORD, else from <data dir>/demo-password, generated on
first use. The token secret is printed once, when it is created; only its hash is stored.
"""

import os
import secrets
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from diagnosis.models import ApiToken, Membership, Role, Tenant
from diagnosis.principals import ALL_SCOPES, new_token_secret, token_hash

DEMO_TENANT = "demo"
DEMO_USER = "demo"
TOKEN_NAME = "demo"


def demo_password(data_dir: Path) -> str:
    """The demo password: from the environment, else a 0600 file made once under the data dir."""
    given = os.environ.get("AGENTOPS_DEMO_PASSWORD")
    if given:
        return given
    path = data_dir / "demo-password"
    if path.exists():
        return path.read_text().strip()
    data_dir.mkdir(parents=True, exist_ok=True)
    password = secrets.token_urlsafe(12)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(password + "\n")
    return password


class Command(BaseCommand):
    help = (
        "Create the demo tenant, user (role admin) and API token; print how to log in."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--url", default="http://127.0.0.1:8000/", help="where to log in"
        )
        parser.add_argument(
            "--new-token",
            action="store_true",
            help="issue another API token even if the demo user has one",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        base = Path(__file__).resolve().parents[3]
        data_dir = Path(os.environ.get("AGENTOPS_DATA_DIR") or base / "var")
        password = demo_password(data_dir)
        secret = None
        with transaction.atomic():
            tenant, _ = Tenant.objects.get_or_create(
                slug=DEMO_TENANT, defaults={"name": "Demo"}
            )
            user, created = get_user_model().objects.get_or_create(
                username=DEMO_USER, defaults={"is_staff": True, "is_superuser": True}
            )
            if created or not user.check_password(password):
                user.set_password(password)
                user.save()
            membership, _ = Membership.objects.update_or_create(
                user=user, tenant=tenant, defaults={"role": Role.ADMIN}
            )
            has_token = membership.tokens.filter(revoked_at__isnull=True).exists()
            if options["new_token"] or not has_token:
                secret = new_token_secret()
                ApiToken.objects.create(
                    membership=membership,
                    name=TOKEN_NAME,
                    prefix=secret[:12],
                    token_hash=token_hash(secret),
                    scopes=list(ALL_SCOPES),
                )
        self.stdout.write(
            f"Log in at {options['url']} as user {DEMO_USER!r}, password {password!r} "
            f"(tenant {DEMO_TENANT!r}, role admin)."
        )
        if secret:
            self.stdout.write(
                "API token for the demo user (shown once, store it now):\n"
                f"  Authorization: Bearer {secret}"
            )
        else:
            self.stdout.write(
                "API token: issued on an earlier run (shown once); "
                "`manage.py seed_demo --new-token` issues another."
            )
