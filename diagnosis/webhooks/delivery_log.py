"""The delivery log as the operations page shows it: each delivery with its target's host,
never its URL (a Slack webhook URL is a credential) or secret."""

from dataclasses import dataclass

from diagnosis.models import Tenant, WebhookDelivery
from diagnosis.webhooks.delivery import recent_deliveries
from diagnosis.webhooks.targets import target_host


@dataclass(frozen=True)
class DeliveryRow:
    delivery: WebhookDelivery
    host: str


def delivery_log(*, tenant: Tenant, limit: int = 20) -> list[DeliveryRow]:
    """The tenant's latest deliveries, newest first."""
    return [
        DeliveryRow(delivery=d, host=target_host(d.target))
        for d in recent_deliveries(tenant=tenant, limit=limit)
    ]
