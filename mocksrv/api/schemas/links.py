"""Request schemas of /payment_link, and the link configuration a payment create may carry."""

from __future__ import annotations

from typing import Any

from marshmallow import fields, post_load, validate

from mocksrv.api import real_values
from mocksrv.api.schemas.common import Amount, Currency, OneKind, OneOf, PageSchema
from mocksrv.domain.links.records import CARD, LinkType, PaymentLinkStatus
from mocksrv.domain.store import Query
from mocksrv.fieldtypes import (
    RESOURCE_ID,
    Entries,
    FreeForm,
    FreeFormLimits,
    HttpUrl,
    StrictBoolean,
    StrictInteger,
    Text,
    Timestamp,
)
from mocksrv.schema import QuerySchema, RequestSchema


def _Short(**kwargs: Any) -> fields.String:  # noqa: N802 - reads as a field type
    return fields.String(validate=validate.Length(max=255), **kwargs)


_INT32 = validate.Range(-(2**31), 2**31 - 1)
_SIZE = validate.Range(0, 2**31 - 1)


class UiConfigurationSchema(RequestSchema):
    position = StrictInteger(validate=_INT32)
    is_key_bold = StrictBoolean()
    is_value_bold = StrictBoolean()


class TransactionDetailSchema(RequestSchema):
    key = _Short(required=True)
    value = _Short(required=True)
    ui_configuration = fields.Nested(UiConfigurationSchema)


class ElementSizeSchema(OneKind):
    """A size in one unit, named as the real service names it."""

    kinds = ("Variants", "Percentage", "Pixels")
    Variants = OneOf(real_values.ELEMENT_SIZE_VARIANTS)
    Percentage = StrictInteger(validate=_SIZE)
    Pixels = StrictInteger(validate=_SIZE)


class BackgroundImageSchema(RequestSchema):
    url = fields.String(required=True)
    position = OneOf(real_values.ELEMENT_POSITIONS)
    size = fields.Nested(ElementSizeSchema)


def _Rules(**kwargs: Any) -> fields.Dict:  # noqa: N802 - reads as a field type
    """Rules of a page's looks: for each selector, its properties' values, all text."""
    return Entries(
        keys=fields.String(),
        values=Entries(keys=fields.String(), values=fields.String()),
        validate=FreeFormLimits(),
        **kwargs,
    )


class CustomMessageSchema(RequestSchema):
    value = Text(required=True)
    display_mode = OneOf(real_values.SDK_DISPLAY_MODES)  # absent: custom_message


class CustomTermsSchema(RequestSchema):
    """The message a link's page shows under its payment form while a method type is chosen."""

    payment_method_type = OneOf(real_values.PAYMENT_METHOD_TYPES, required=True)
    message = fields.Nested(CustomMessageSchema, required=True)


class PaymentMethodConfigSchema(RequestSchema):
    payment_method = OneOf(real_values.PAYMENT_METHODS, required=True)
    payment_method_types = fields.List(fields.Nested(CustomTermsSchema), required=True)


class PaymentLinkConfigSchema(RequestSchema):
    """How the link's page looks: the spec's fields and the rest of the real service's."""

    seller_name = _Short()
    sdk_layout = _Short()  # "tabs" (the default) or "accordion"
    # The real method types, and the spec's `card` (a credit or debit card).
    allowed_payment_method_types = fields.List(OneOf((CARD, *real_values.PAYMENT_METHOD_TYPES)))
    theme = _Short()
    logo = _Short()
    display_sdk_only = StrictBoolean()
    enabled_saved_payment_method = StrictBoolean()
    hide_card_nickname_field = StrictBoolean()
    show_card_form_by_default = StrictBoolean()
    transaction_details = fields.List(fields.Nested(TransactionDetailSchema))
    background_image = fields.Nested(BackgroundImageSchema)
    details_layout = OneOf(real_values.LINK_DETAILS_LAYOUTS)
    payment_button_text = Text()
    custom_message_for_card_terms = Text()
    custom_message_for_payment_method_types = fields.List(fields.Nested(PaymentMethodConfigSchema))
    payment_button_colour = fields.String()
    skip_status_screen = StrictBoolean()
    payment_button_text_colour = fields.String()
    background_colour = fields.String()
    sdk_ui_rules = _Rules()
    payment_link_ui_rules = _Rules()
    enable_button_only_on_form_ready = StrictBoolean()
    payment_form_header_text = Text()
    payment_form_label_type = OneOf(real_values.LINK_LABEL_TYPES)
    show_card_terms = OneOf(real_values.LINK_CARD_TERMS)
    is_setup_mandate_flow = StrictBoolean()
    color_icon_card_cvc_error = fields.String()


class PaymentLinkCreateSchema(RequestSchema):
    amount = Amount(required=True)
    currency = Currency(required=True)
    profile_id = fields.String()  # the merchant's default profile when absent
    description = Text()
    link_type = OneOf(tuple(t.value for t in LinkType))
    expiry = Timestamp()  # 15 minutes after creation when absent
    customer_id = fields.String(validate=RESOURCE_ID)
    send_email = StrictBoolean()
    email = fields.Email()
    capture_method = OneOf(real_values.CAPTURE_METHODS)
    authentication_type = OneOf(("three_ds", "no_three_ds"))
    require_customer_info = StrictBoolean()
    payment_link_config = fields.Nested(PaymentLinkConfigSchema)
    return_url = HttpUrl()
    metadata = FreeForm()


class PaymentLinkListSchema(PageSchema):
    status = OneOf(tuple(s.value for s in PaymentLinkStatus))

    @post_load
    def to_query(self, data: dict[str, Any], **kwargs: Any) -> Query:
        return Query.of(**data)


class PaymentLinkQuerySchema(QuerySchema):
    client_secret = fields.String()


class CustomerInfoSchema(RequestSchema):
    """What a link's page asks the customer for, when the link requires it."""

    client_secret = fields.String()  # required: IR_08 when missing, as every route that takes one says
    name = fields.String(required=True, validate=validate.Length(1, 255))
    email = fields.Email(required=True)
