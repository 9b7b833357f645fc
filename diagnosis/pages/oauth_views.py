"""The admin's Connect of an OAuth server (diagnosis.oauth_connect): the button's POST, which
sends the browser to the provider, and the callback the provider sends it back to."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from diagnosis import oauth_connect
from diagnosis.models import Role
from diagnosis.principals import Principal, principal_from_user


def _admin(request: HttpRequest) -> Principal:
    principal = principal_from_user(request.user, session=request.session)
    if principal is None:
        raise Http404("no tenant membership")
    if principal.role != Role.ADMIN:
        raise PermissionDenied("connecting a server is for the admin role")
    return principal


def _failed(request: HttpRequest, error: oauth_connect.ConnectFailed) -> HttpResponse:
    return render(
        request,
        "diagnosis/oauth_connect_failed.html",
        {"message": error.message},
        status=400,
    )


@login_required
@require_POST
def oauth_connect_start(request: HttpRequest) -> HttpResponse:
    """The Connect button: on to the provider's authorization page (PKCE, resource, state).

    A page that moves on by itself (meta refresh, and a link), not a redirect: the
    Content-Security-Policy's form-action 'self' refuses a form whose answer redirects to
    another origin, and the provider's origin is only known once discovered.
    """
    principal = _admin(request)
    try:
        url = oauth_connect.connect_begin(
            tenant=principal.tenant,
            environment=request.POST.get("environment", ""),
            server=request.POST.get("server", ""),
            redirect_uri=request.build_absolute_uri(
                reverse("diagnosis:oauth-callback")
            ),
            session=request.session,
        )
    except oauth_connect.ConnectFailed as error:
        return _failed(request, error)
    return render(
        request, "diagnosis/oauth_connect_continue.html", {"authorize_url": url}
    )


@login_required
@require_GET
def oauth_callback(request: HttpRequest) -> HttpResponse:
    """Where the provider sends the admin back: check the state, exchange the code, store."""
    principal = _admin(request)
    try:
        grant = oauth_connect.connect_finish(
            tenant=principal.tenant,
            session=request.session,
            callback_url=request.get_full_path(),
            user=request.user,
        )
    except oauth_connect.ConnectFailed as error:
        return _failed(request, error)
    messages.success(request, f"Connected {grant.environment}/{grant.server}.")
    return HttpResponseRedirect(reverse("diagnosis:operations") + "#oauth-title")
