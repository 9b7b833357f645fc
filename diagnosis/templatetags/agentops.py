"""Template tags of the pages: the header's tenant switcher."""

from typing import Any

from django import template

from diagnosis import principals
from diagnosis.pages.forms import TenantSwitchForm

register = template.Library()


@register.inclusion_tag("diagnosis/tenant_switcher.html", takes_context=True)
def tenant_switcher(context: template.Context) -> dict[str, Any]:
    """The switcher, for a logged-in user in more than one tenant; nothing otherwise."""
    request = context.get("request")
    user = getattr(request, "user", None)
    if request is None or not getattr(user, "is_authenticated", False):
        return {"form": None}
    form = TenantSwitchForm(user=user)
    if not form.has_choice:
        return {"form": None}
    principal = principals.principal_from_user(user, session=request.session)
    if principal is not None:
        form.fields["tenant"].initial = str(principal.tenant.pk)
    return {"form": form, "csrf_token": context.get("csrf_token")}
