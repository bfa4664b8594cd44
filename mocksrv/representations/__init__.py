"""How records look in JSON: one representation per resource, shared by the API, the control plane
and the webhooks; every name is here too."""

from __future__ import annotations

from mocksrv.representations.common import JsonObject as JsonObject
from mocksrv.representations.common import general_list_json as general_list_json
from mocksrv.representations.common import list_json as list_json
from mocksrv.representations.common import paged_list_json as paged_list_json
from mocksrv.representations.common import timestamp as timestamp
from mocksrv.representations.events import AUTOMATIC_RETRY as AUTOMATIC_RETRY
from mocksrv.representations.events import EVENT_CLASS_OF_CONTENT as EVENT_CLASS_OF_CONTENT
from mocksrv.representations.events import INITIAL_ATTEMPT as INITIAL_ATTEMPT
from mocksrv.representations.events import MANUAL_RETRY as MANUAL_RETRY
from mocksrv.representations.events import attempt_json as attempt_json
from mocksrv.representations.events import attempt_kinds as attempt_kinds
from mocksrv.representations.events import event_attempt_json as event_attempt_json
from mocksrv.representations.events import event_item_json as event_item_json
from mocksrv.representations.events import event_json as event_json
from mocksrv.representations.events import event_retry_json as event_retry_json
from mocksrv.representations.events import event_summary as event_summary
from mocksrv.representations.events import events_list_json as events_list_json
from mocksrv.representations.events import outgoing_request_json as outgoing_request_json
from mocksrv.representations.events import outgoing_response_json as outgoing_response_json
from mocksrv.representations.events import resource_json as resource_json
from mocksrv.representations.links import payment_link_json as payment_link_json
from mocksrv.representations.links import payment_link_path as payment_link_path
from mocksrv.representations.links import payment_link_url as payment_link_url
from mocksrv.representations.payments import challenge_path as challenge_path
from mocksrv.representations.payments import ephemeral_key_json as ephemeral_key_json
from mocksrv.representations.payments import net_amount as net_amount
from mocksrv.representations.payments import next_action as next_action
from mocksrv.representations.payments import payment_attempts_json as payment_attempts_json
from mocksrv.representations.payments import payment_captures_json as payment_captures_json
from mocksrv.representations.payments import payment_json as payment_json
from mocksrv.representations.payments import payment_summary as payment_summary
from mocksrv.representations.payments import payment_view as payment_view
from mocksrv.representations.payments import session_tokens_json as session_tokens_json
from mocksrv.representations.records import CONNECTOR_DISPUTE_STATUS as CONNECTOR_DISPUTE_STATUS
from mocksrv.representations.records import PROFILE_CONSTANT_SETTINGS as PROFILE_CONSTANT_SETTINGS
from mocksrv.representations.records import api_key_json as api_key_json
from mocksrv.representations.records import clock_json as clock_json
from mocksrv.representations.records import created_api_key_json as created_api_key_json
from mocksrv.representations.records import credentials_json as credentials_json
from mocksrv.representations.records import customer_details as customer_details
from mocksrv.representations.records import customer_json as customer_json
from mocksrv.representations.records import dispute_json as dispute_json
from mocksrv.representations.records import evidence_json as evidence_json
from mocksrv.representations.records import payout_view as payout_view
from mocksrv.representations.records import profile_json as profile_json
from mocksrv.representations.records import refund_json as refund_json
from mocksrv.representations.records import revoked_api_key_json as revoked_api_key_json
from mocksrv.representations.records import timer_json as timer_json
