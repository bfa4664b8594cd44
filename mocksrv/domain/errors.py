"""Typed errors of the sandbox: each carries a code and a kind; the HTTP layer maps the kind."""

from __future__ import annotations

from enum import StrEnum


class ErrorKind(StrEnum):
    INVALID = "invalid"
    NOT_FOUND = "not_found"
    STATE = "state"
    CONFLICT = "conflict"
    AUTH = "auth"
    RATE = "rate"
    TOO_LARGE = "too_large"


class DomainError(Exception):
    """An error a client caused; `kind` decides the HTTP status, `code` the error code."""

    kind: ErrorKind = ErrorKind.INVALID
    code: str = "IR_04"

    def __init__(self, message: str, *, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param


class InvalidField(DomainError):
    """A field is missing or holds a value the sandbox does not accept."""

    def __init__(self, path: str, reason: str | None = None, *, missing: bool = False) -> None:
        message = f"{'Missing required param' if missing else 'Invalid value provided'}: {path}"
        if reason:
            message = f"{message}: {reason}"
        super().__init__(message, param=path)
        # What is wrong, without the path: for a message that names the field its own way.
        self.reason = reason or ("required" if missing else "not a value it takes")


class UnknownField(InvalidField):
    """A field no schema of the sandbox's knows (an API body answers it as MalformedBody does)."""

    def __init__(self, path: str) -> None:
        super().__init__(path, "unknown field")


class MalformedBody(DomainError):
    code = "IR_06"

    def __init__(self, detail: str) -> None:
        super().__init__(f"Json deserialize error: {detail}")


class BodyTooLarge(DomainError):
    kind = ErrorKind.TOO_LARGE
    code = "IR_06"


class Unauthorized(DomainError):
    kind = ErrorKind.AUTH
    code = "IR_01"

    def __init__(self, message: str = "API key not provided or invalid API key used") -> None:
        super().__init__(message)


class PaymentNotFound(DomainError):
    kind = ErrorKind.NOT_FOUND
    code = "IR_05"

    def __init__(self) -> None:
        super().__init__("Payment not found")


class ResourceNotFound(DomainError):
    kind = ErrorKind.NOT_FOUND
    code = "HE_02"

    def __init__(self, resource: str) -> None:
        super().__init__(f"{resource} does not exist in our records")


class DuplicateResource(DomainError):
    code = "HE_01"

    def __init__(self, resource: str, field: str) -> None:
        super().__init__(
            f"The {resource} with the specified {field} already exists in our records", param=field
        )


class ClientSecretMissing(DomainError):
    code = "IR_08"

    def __init__(self) -> None:
        super().__init__("Missing required param: client_secret", param="client_secret")


class ClientSecretExpired(DomainError):
    code = "IR_08"

    def __init__(self) -> None:
        super().__init__("The provided client_secret has expired", param="client_secret")


class ClientSecretInvalid(DomainError):
    code = "IR_09"

    def __init__(self, resource: str = "Payment") -> None:
        super().__init__(
            f"The client_secret provided does not match the client_secret associated with the {resource}",
            param="client_secret",
        )


class PreconditionFailed(DomainError):
    """A request the resource's state makes pointless, with the real service's code for it."""

    code = "IR_16"


class InvalidState(DomainError):
    """The operation is not allowed in the resource's current state."""

    code = "IR_14"

    def __init__(
        self, resource: str, action: str, status: str, expected: list[str], *, conflict: bool = False
    ) -> None:
        states = ", ".join(expected) if expected else "none"
        super().__init__(
            f"This {resource} could not be {action} because it has a status of {status}. "
            f"The expected state is {states}"
        )
        if conflict:
            self.kind = ErrorKind.CONFLICT
        else:
            self.kind = ErrorKind.STATE


class RateLimited(DomainError):
    kind = ErrorKind.RATE
    code = "RL_01"

    def __init__(self, reset_at: int, limit: int = 0) -> None:
        super().__init__(f"Rate limit exceeded; the window resets at {reset_at} (Unix time)")
        self.reset_at = reset_at
        self.limit = limit  # requests a window allows
