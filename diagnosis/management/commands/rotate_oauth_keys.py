"""manage.py rotate_oauth_keys: re-encrypt every stored OAuth grant under the first key.

Put the new Fernet key first in OAUTH_TOKEN_KEYS (keeping the old ones after it), run this, then
drop the old keys: no grant is lost. Prints the number of grants rewritten.
"""

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from diagnosis.oauth_grants import GrantUnavailable, rotate_keys


class Command(BaseCommand):
    help = "Re-encrypt the stored OAuth grants under the first key of OAUTH_TOKEN_KEYS."

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            count = rotate_keys()
        except GrantUnavailable as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"re-encrypted {count} OAuth grant(s)")
