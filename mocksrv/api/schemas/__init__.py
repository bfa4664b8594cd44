"""Request schemas of the payments API, one module per resource; the ones used elsewhere are here too."""

from __future__ import annotations

from mocksrv.api.schemas.common import BrowserInfoSchema as BrowserInfoSchema
from mocksrv.api.schemas.common import ContactSchema as ContactSchema
from mocksrv.api.schemas.common import Country as Country
from mocksrv.api.schemas.common import CustomerDetailsSchema as CustomerDetailsSchema
from mocksrv.api.schemas.common import Limited as Limited
from mocksrv.api.schemas.common import ListQuerySchema as ListQuerySchema
from mocksrv.api.schemas.common import NoFieldsSchema as NoFieldsSchema
from mocksrv.api.schemas.common import OneOf as OneOf
from mocksrv.api.schemas.customers import CustomerCreateSchema as CustomerCreateSchema
from mocksrv.api.schemas.customers import CustomerFieldsSchema as CustomerFieldsSchema
from mocksrv.api.schemas.customers import CustomerListSchema as CustomerListSchema
from mocksrv.api.schemas.method_data import BARE_METHOD_DATA as BARE_METHOD_DATA
from mocksrv.api.schemas.method_data import PaymentMethodDataSchema as PaymentMethodDataSchema
from mocksrv.api.schemas.payments import BrowserConfirmSchema as BrowserConfirmSchema
from mocksrv.api.schemas.payments import CancelSchema as CancelSchema
from mocksrv.api.schemas.payments import CaptureSchema as CaptureSchema
from mocksrv.api.schemas.payments import OrderLineSchema as OrderLineSchema
from mocksrv.api.schemas.payments import PaymentConfirmSchema as PaymentConfirmSchema
from mocksrv.api.schemas.payments import PaymentCreateSchema as PaymentCreateSchema
from mocksrv.api.schemas.payments import PaymentFieldsSchema as PaymentFieldsSchema
from mocksrv.api.schemas.payments import PaymentListSchema as PaymentListSchema
from mocksrv.api.schemas.payments import PaymentRetrieveQuerySchema as PaymentRetrieveQuerySchema
from mocksrv.api.schemas.payments import PaymentUpdateSchema as PaymentUpdateSchema
from mocksrv.api.schemas.payments import ReviewSchema as ReviewSchema
