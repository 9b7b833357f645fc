"""manage.py create_api_token: mint a bearer token for a user in a tenant.

Creates the tenant, the user and the membership when absent. The token's scopes default to
those of the membership's role and may not go beyond them (diagnosis.principals.ROLE_SCOPES).
Only the token's SHA-256 is stored; the secret is printed once, alone on the last line of
stdout, so scripts can take `| tail -n 1`.
"""

from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.validators import validate_slug
from django.db import transaction

from diagnosis.models import ApiToken, Membership, Role, Tenant
from diagnosis.principals import (
    ALL_SCOPES,
    new_token_secret,
    role_scopes,
    scopes_beyond_role,
    token_hash,
)


def _scopes(value: str) -> list[str]:
    scopes = sorted({s.strip() for s in value.split(",") if s.strip()})
    unknown = [s for s in scopes if s not in ALL_SCOPES]
    if unknown or not scopes:
        raise CommandError(
            f"--scopes: unknown {', '.join(unknown) or '(none given)'}; "
            f"choose from {', '.join(ALL_SCOPES)}"
        )
    return scopes


class Command(BaseCommand):
    help = "Create an API token (and the tenant, user and membership when absent); print it once."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", required=True, help="tenant slug")
        parser.add_argument("--user", required=True, help="username")
        parser.add_argument(
            "--role",
            choices=Role.values,
            help="role of a new membership (default responder); must match an existing one",
        )
        parser.add_argument(
            "--scopes",
            default=None,
            help=f"comma-separated, from {','.join(ALL_SCOPES)}, within what the role "
            "allows (default: all the role allows)",
        )
        parser.add_argument("--name", default="", help="a label for the token")

    def handle(self, *args: Any, **options: Any) -> None:
        slug, username = options["tenant"], options["user"]
        try:
            validate_slug(slug)
        except ValidationError:
            raise CommandError(f"--tenant: {slug!r} is not a slug") from None
        if not username.strip():
            raise CommandError("--user must not be blank")
        requested = None if options["scopes"] is None else _scopes(options["scopes"])
        name = options["name"]
        limit = ApiToken._meta.get_field("name").max_length
        if limit is not None and len(name) > limit:
            raise CommandError(f"--name: at most {limit} characters")

        with transaction.atomic():
            tenant, created = Tenant.objects.get_or_create(
                slug=slug, defaults={"name": slug}
            )
            if created:
                self.stdout.write(f"created tenant {slug}")
            user_model = get_user_model()
            user = user_model.objects.filter(username=username).first()
            if user is None:
                # No password: create_user() stores an unusable one.
                user = user_model.objects.create_user(username=username)
                self.stdout.write(f"created user {username} (no password)")
            membership = Membership.objects.filter(user=user, tenant=tenant).first()
            role = options["role"]
            if membership is None:
                membership = Membership.objects.create(
                    user=user, tenant=tenant, role=role or Role.RESPONDER
                )
                self.stdout.write(
                    f"created membership {username} @ {slug} ({membership.role})"
                )
            elif role and membership.role != role:
                raise CommandError(
                    f"{username} is already {membership.role} in {slug}, not {role}; "
                    "change the role in the admin"
                )
            if requested is None:
                scopes = sorted(role_scopes(membership.role))
            elif beyond := scopes_beyond_role(membership.role, requested):
                # Raised inside the transaction: a tenant, user or membership made above is undone.
                raise CommandError(
                    f"--scopes: role {membership.role} does not allow "
                    f"{', '.join(beyond)}; it allows "
                    f"{', '.join(sorted(role_scopes(membership.role)))}"
                )
            else:
                scopes = requested
            secret = new_token_secret()
            ApiToken.objects.create(
                membership=membership,
                name=name,
                prefix=secret[:12],
                token_hash=token_hash(secret),
                scopes=scopes,
            )
        self.stdout.write(f"token for {username} @ {slug}, scopes {','.join(scopes)}:")
        self.stdout.write(secret)
