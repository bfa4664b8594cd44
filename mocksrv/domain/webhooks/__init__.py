"""Webhooks in the domain: each event's delivery state, attempts and retries, and webhook chaos."""

from mocksrv.domain.webhooks.chaos import CHAOS as CHAOS
from mocksrv.domain.webhooks.chaos import CHAOS_COLLECTIONS as CHAOS_COLLECTIONS
from mocksrv.domain.webhooks.chaos import HOLDS as HOLDS
from mocksrv.domain.webhooks.chaos import MAX_CHAOS_DELAY as MAX_CHAOS_DELAY
from mocksrv.domain.webhooks.chaos import OUT_OF_ORDER_WINDOW as OUT_OF_ORDER_WINDOW
from mocksrv.domain.webhooks.chaos import RELEASE_TIMER as RELEASE_TIMER
from mocksrv.domain.webhooks.chaos import ChaosMode as ChaosMode
from mocksrv.domain.webhooks.chaos import DeliveryHold as DeliveryHold
from mocksrv.domain.webhooks.chaos import WebhookChaos as WebhookChaos
from mocksrv.domain.webhooks.records import ATTEMPTS as ATTEMPTS
from mocksrv.domain.webhooks.records import DELIVERIES as DELIVERIES
from mocksrv.domain.webhooks.records import DELIVERY_TRANSITIONS as DELIVERY_TRANSITIONS
from mocksrv.domain.webhooks.records import RETRY_DELAYS as RETRY_DELAYS
from mocksrv.domain.webhooks.records import RETRY_TIMER as RETRY_TIMER
from mocksrv.domain.webhooks.records import AttemptResult as AttemptResult
from mocksrv.domain.webhooks.records import DeliveryAttempt as DeliveryAttempt
from mocksrv.domain.webhooks.records import DeliveryEvent as DeliveryEvent
from mocksrv.domain.webhooks.records import DeliveryState as DeliveryState
from mocksrv.domain.webhooks.records import DeliveryTask as DeliveryTask
from mocksrv.domain.webhooks.records import EventDelivery as EventDelivery
from mocksrv.domain.webhooks.records import EventFilter as EventFilter
from mocksrv.domain.webhooks.service import WebhookService as WebhookService
