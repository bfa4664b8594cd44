"""What /payment_methods, the customers' saved methods and /mandates answer."""

from __future__ import annotations

from marshmallow import fields

from mocksrv.api.answers.payments import METHOD_KINDS
from mocksrv.contract import AnswerSchema, one_of
from mocksrv.domain.recurring.records import MandateStatus


class LockerCardAnswerSchema(AnswerSchema):
    """A saved card: of its number, the first six and the last four digits only."""

    scheme = fields.String(allow_none=True)
    issuer_country = fields.String(allow_none=True)
    issuer_country_code = fields.String(allow_none=True)
    last4_digits = fields.String(allow_none=True)
    expiry_month = fields.String(allow_none=True)
    expiry_year = fields.String(allow_none=True)
    card_token = fields.String(allow_none=True)
    card_holder_name = fields.String(allow_none=True)
    card_fingerprint = fields.String(allow_none=True)
    nick_name = fields.String(allow_none=True)
    card_network = fields.String(allow_none=True)
    card_isin = fields.String(allow_none=True)
    card_issuer = fields.String(allow_none=True)
    card_type = fields.String(allow_none=True)
    saved_to_locker = fields.Boolean()


class PaymentMethodAnswerSchema(AnswerSchema):
    merchant_id = fields.String()
    customer_id = fields.String(allow_none=True)
    payment_method_id = fields.String()
    payment_method = one_of(METHOD_KINDS)
    payment_method_type = fields.String(allow_none=True)
    card = fields.Nested(LockerCardAnswerSchema, allow_none=True)
    recurring_enabled = fields.Boolean()
    installment_payment_enabled = fields.Boolean()
    payment_experience = fields.List(fields.String(), allow_none=True)
    metadata = fields.Dict(allow_none=True)
    created = fields.String()
    bank_transfer = fields.Dict(allow_none=True)
    last_used_at = fields.String(allow_none=True)
    client_secret = fields.String(allow_none=True)


class PaymentMethodDeletedAnswerSchema(AnswerSchema):
    payment_method_id = fields.String()
    deleted = fields.Boolean()


class CustomerPaymentMethodAnswerSchema(AnswerSchema):
    payment_token = fields.String()
    payment_method_id = fields.String()
    customer_id = fields.String()
    payment_method = one_of(METHOD_KINDS)
    payment_method_type = fields.String(allow_none=True)
    payment_method_issuer = fields.String(allow_none=True)
    payment_method_issuer_code = fields.String(allow_none=True)
    recurring_enabled = fields.Boolean()
    installment_payment_enabled = fields.Boolean()
    payment_experience = fields.List(fields.String(), allow_none=True)
    card = fields.Nested(LockerCardAnswerSchema, allow_none=True)
    metadata = fields.Dict(allow_none=True)
    created = fields.String()
    bank_transfer = fields.Dict(allow_none=True)
    bank = fields.Dict(allow_none=True)
    surcharge_details = fields.Dict(allow_none=True)
    requires_cvv = fields.Boolean()
    last_used_at = fields.String(allow_none=True)
    default_payment_method_set = fields.Boolean()
    billing = fields.Dict(allow_none=True)


class CustomerPaymentMethodsAnswerSchema(AnswerSchema):
    customer_payment_methods = fields.List(fields.Nested(CustomerPaymentMethodAnswerSchema))
    is_guest_customer = fields.Boolean()


class DefaultPaymentMethodAnswerSchema(AnswerSchema):
    default_payment_method_id = fields.String(allow_none=True)
    customer_id = fields.String()
    payment_method = one_of(METHOD_KINDS)
    payment_method_type = fields.String(allow_none=True)


class CardNetworkAnswerSchema(AnswerSchema):
    card_network = fields.String()
    surcharge_details = fields.Dict(allow_none=True)
    eligible_connectors = fields.List(fields.String())


class EnabledMethodTypeAnswerSchema(AnswerSchema):
    payment_method_type = fields.String()
    payment_experience = fields.List(fields.String(), allow_none=True)
    card_networks = fields.List(fields.Nested(CardNetworkAnswerSchema), allow_none=True)
    bank_names = fields.List(fields.Dict(), allow_none=True)
    bank_debits = fields.Dict(allow_none=True)
    bank_transfers = fields.Dict(allow_none=True)
    required_fields = fields.Dict(allow_none=True)
    surcharge_details = fields.Dict(allow_none=True)
    pm_auth_connector = fields.String(allow_none=True)


class EnabledMethodAnswerSchema(AnswerSchema):
    payment_method = one_of(METHOD_KINDS)
    payment_method_types = fields.List(fields.Nested(EnabledMethodTypeAnswerSchema))


class SdkNextActionAnswerSchema(AnswerSchema):
    next_action = one_of(["confirm"])


class AccountPaymentMethodsAnswerSchema(AnswerSchema):
    redirect_url = fields.String(allow_none=True)
    currency = fields.String(allow_none=True, metadata={"description": "null without a payment"})
    payment_methods = fields.List(fields.Nested(EnabledMethodAnswerSchema))
    mandate_payment = fields.Dict(allow_none=True)
    merchant_name = fields.String(allow_none=True)
    show_surcharge_breakup_screen = fields.Boolean()
    payment_type = one_of(["normal", "new_mandate", "setup_mandate", "recurring_mandate"], allow_none=True)
    request_external_three_ds_authentication = fields.Boolean()
    collect_shipping_details_from_wallets = fields.Boolean()
    collect_billing_details_from_wallets = fields.Boolean()
    is_tax_calculation_enabled = fields.Boolean()
    sdk_next_action = fields.Nested(SdkNextActionAnswerSchema)
    is_guest_customer = fields.Boolean()


class MandateCardAnswerSchema(AnswerSchema):
    last4_digits = fields.String(allow_none=True)
    card_exp_month = fields.String(allow_none=True)
    card_exp_year = fields.String(allow_none=True)
    card_holder_name = fields.String(allow_none=True)
    card_token = fields.String(allow_none=True)
    scheme = fields.String(allow_none=True)
    issuer_country = fields.String(allow_none=True)
    card_fingerprint = fields.String(allow_none=True)
    card_isin = fields.String(allow_none=True)
    card_issuer = fields.String(allow_none=True)
    card_network = fields.String(allow_none=True)
    card_type = fields.String(allow_none=True)
    nick_name = fields.String(allow_none=True)


class MandateAnswerSchema(AnswerSchema):
    mandate_id = fields.String()
    status = one_of(MandateStatus)
    payment_method_id = fields.String()
    payment_method = fields.String()
    payment_method_type = fields.String(allow_none=True)
    card = fields.Nested(MandateCardAnswerSchema, allow_none=True)
    customer_acceptance = fields.Dict(allow_none=True)


class MandateRevokedAnswerSchema(AnswerSchema):
    mandate_id = fields.String()
    status = one_of(MandateStatus)
    error_code = fields.String(allow_none=True)
    error_message = fields.String(allow_none=True)
