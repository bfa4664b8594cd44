"""Values the real service's v1 API takes, beside the spec's own: accepted so that its clients run unchanged.

Each tuple is the complete set of one of its enums, in its order.
"""

from __future__ import annotations

PAYMENT_METHODS = (
    "card",
    "card_redirect",
    "pay_later",
    "wallet",
    "bank_redirect",
    "bank_transfer",
    "crypto",
    "bank_debit",
    "reward",
    "real_time_payment",
    "upi",
    "voucher",
    "gift_card",
    "open_banking",
    "mobile_payment",
    "network_token",
)

PAYMENT_METHOD_TYPES = (
    "ach",
    "affirm",
    "afterpay_clearpay",
    "alfamart",
    "ali_pay",
    "ali_pay_hk",
    "alma",
    "amazon_pay",
    "paysera",
    "apple_pay",
    "atome",
    "bacs",
    "bancontact_card",
    "becs",
    "benefit",
    "bizum",
    "blik",
    "bluecode",
    "boleto",
    "bca_bank_transfer",
    "bni_va",
    "breadpay",
    "bri_va",
    "bhn_card_network",
    "card_redirect",
    "cimb_va",
    "classic",
    "credit",
    "crypto_currency",
    "cashapp",
    "dana",
    "danamon_va",
    "debit",
    "duit_now",
    "efecty",
    "eft",
    "eps",
    "flexiti",
    "fps",
    "evoucher",
    "giropay",
    "givex",
    "google_pay",
    "go_pay",
    "gcash",
    "ideal",
    "interac",
    "indomaret",
    "klarna",
    "kakao_pay",
    "local_bank_redirect",
    "mandiri_va",
    "knet",
    "mb_way",
    "mobile_pay",
    "momo",
    "momo_atm",
    "multibanco",
    "online_banking_thailand",
    "online_banking_czech_republic",
    "online_banking_finland",
    "online_banking_fpx",
    "online_banking_poland",
    "online_banking_slovakia",
    "oxxo",
    "pago_efectivo",
    "permata_bank_transfer",
    "open_banking_uk",
    "pay_bright",
    "payjustnow",
    "paypal",
    "paze",
    "pix",
    "pay_safe_card",
    "przelewy24",
    "prompt_pay",
    "pse",
    "red_compra",
    "red_pagos",
    "samsung_pay",
    "sepa",
    "sepa_bank_transfer",
    "sepa_guarenteed_debit",
    "skrill",
    "sofort",
    "swish",
    "touch_n_go",
    "trustly",
    "twint",
    "upi_collect",
    "upi_intent",
    "upi_qr",
    "vipps",
    "viet_qr",
    "venmo",
    "walley",
    "we_chat_pay",
    "seven_eleven",
    "lawson",
    "mini_stop",
    "family_mart",
    "seicomart",
    "pay_easy",
    "local_bank_transfer",
    "mifinity",
    "open_banking_pis",
    "direct_carrier_billing",
    "instant_bank_transfer",
    "instant_bank_transfer_finland",
    "instant_bank_transfer_poland",
    "revolut_pay",
    "indonesian_bank_transfer",
    "open_banking",
    "network_token",
)

CAPTURE_METHODS = ("automatic", "manual", "manual_multiple", "scheduled", "sequential_automatic")

FUTURE_USAGES = ("off_session", "on_session")

PAYMENT_EXPERIENCES = (
    "redirect_to_url",
    "invoke_sdk_client",
    "display_qr_code",
    "one_click",
    "link_wallet",
    "invoke_payment_app",
    "display_wait_screen",
    "collect_otp",
)

PAYMENT_TYPES = ("normal", "new_mandate", "setup_mandate", "recurring_mandate")

SCA_EXEMPTIONS = ("low_value", "transaction_risk_analysis")

THREE_DS_COMPLETION = ("Y", "N", "U")

# A line's kind of product (`order_details[].product_type`).
PRODUCT_TYPES = ("physical", "digital", "travel", "ride", "event", "accommodation")

# Inside `three_ds_data`, the result of an authentication made elsewhere: its transaction status,
# its exemption, and the CAVV algorithm of the Cartes Bancaires network.
THREE_DS_TRANSACTION_STATUSES = ("Y", "N", "U", "A", "R", "C", "D", "I")
EXEMPTION_INDICATORS = (
    "low_value",
    "secure_corporate_payment",
    "trusted_listing",
    "transaction_risk_assessment",
    "three_ds_outage",
    "sca_delegation",
    "out_of_sca_scope",
    "other",
    "low_risk_program",
    "recurring_operation",
)
CAVV_ALGORITHMS = ("00", "01", "02", "03", "04", "A")

TAX_STATUSES = ("taxable", "exempt")

MIT_CATEGORIES = ("installment", "unscheduled", "recurring", "resubmission")

TOKENIZATIONS = ("skip_psp", "tokenize_at_psp")

# The kinds of a payment's split among accounts (`split_payments`), by processor.
STRIPE_CHARGE_TYPES = ("direct", "destination")
ADYEN_SPLIT_TYPES = (
    "BalanceAccount",
    "AcquiringFees",
    "PaymentFee",
    "AdyenFees",
    "AdyenCommission",
    "AdyenMarkup",
    "Interchange",
    "SchemeFee",
    "Commission",
    "TopUp",
    "Vat",
)

# A payout's entity type (`PayoutEntityType`) and send priority (`PayoutSendPriority`).
PAYOUT_ENTITY_TYPES = (
    "Individual",
    "Company",
    "NonProfit",
    "PublicSector",
    "NaturalPerson",
    "lowercase",
    "Personal",
)
PAYOUT_PRIORITIES = ("instant", "fast", "regular", "wire", "cross_border", "internal")

ACCEPTANCE_TYPES = ("online", "offline")
RECURRING_DETAIL_TYPES = (
    "mandate_id",
    "payment_method_id",
    "processor_payment_token",
    "network_transaction_id_and_card_details",
    "network_transaction_id_and_network_token_details",
)

SDK_DISPLAY_MODES = ("default_sdk_message", "custom_message", "hidden")
# A payment link page's looks (PaymentLinkConfigRequest).
LINK_DETAILS_LAYOUTS = ("layout1", "layout2")
LINK_LABEL_TYPES = ("above", "floating", "never")
LINK_CARD_TERMS = ("always", "auto", "never")
ELEMENT_POSITIONS = (
    "left",
    "top left",
    "top",
    "top right",
    "right",
    "bottom right",
    "bottom",
    "bottom left",
    "center",
)
ELEMENT_SIZE_VARIANTS = ("cover", "contain")

# The kinds of payment method data, one of which a request sends (as `{kind: {...}}`).
PAYMENT_METHOD_DATA_KINDS = (
    "card",
    "card_redirect",
    "wallet",
    "pay_later",
    "bank_redirect",
    "bank_debit",
    "bank_transfer",
    "real_time_payment",
    "crypto",
    "upi",
    "voucher",
    "gift_card",
    "card_token",
    "open_banking",
    "mobile_payment",
    "network_token",
)

CARD_NETWORKS = (
    "Visa",
    "Mastercard",
    "AmericanExpress",
    "JCB",
    "DinersClub",
    "Discover",
    "CartesBancaires",
    "UnionPay",
    "Interac",
    "RuPay",
    "Maestro",
    "Star",
    "Pulse",
    "Accel",
    "Nyce",
)

# Who issued a saved method, by the real service's codes (`payment_method_issuer_code`).
PAYMENT_METHOD_ISSUER_CODES = (
    "jp_hdfc",
    "jp_icici",
    "jp_googlepay",
    "jp_applepay",
    "jp_phonepay",
    "jp_wechat",
    "jp_sofort",
    "jp_giropay",
    "jp_sepa",
    "jp_bacs",
)

# IntentStatus, and PayoutStatus: the statuses a profile's webhook settings list (the real document
# types the refund list as IntentStatus too).
INTENT_STATUSES = (
    "succeeded",
    "failed",
    "cancelled",
    "cancelled_post_capture",
    "processing",
    "requires_customer_action",
    "requires_merchant_action",
    "requires_payment_method",
    "requires_confirmation",
    "requires_capture",
    "partially_captured",
    "partially_captured_and_capturable",
    "partially_authorized_and_requires_capture",
    "partially_captured_and_processing",
    "conflicted",
    "expired",
)
PAYOUT_STATUSES = (
    "success",
    "failed",
    "cancelled",
    "initiated",
    "expired",
    "reversed",
    "pending",
    "ineligible",
    "requires_creation",
    "requires_confirmation",
    "requires_payout_method_data",
    "requires_fulfillment",
    "requires_vendor_account_creation",
)
