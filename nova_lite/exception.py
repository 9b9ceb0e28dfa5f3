"""Exceptions that carry an HTTP code; the API fault wrapper maps them once."""


class NovaLiteException(Exception):
    msg_fmt = 'An unknown exception occurred.'
    code = 500
    headers = {}

    def __init__(self, message=None, **kwargs):
        self.kwargs = kwargs
        if not message:
            try:
                message = self.msg_fmt % kwargs
            except (KeyError, TypeError):
                message = self.msg_fmt
        self.message = message
        super().__init__(message)

    def format_message(self):
        return self.message


class Invalid(NovaLiteException):
    msg_fmt = 'Bad request: %(reason)s'
    code = 400


class ValidationError(Invalid):
    msg_fmt = 'Invalid input for field/attribute %(field)s. %(detail)s'


class InvalidInput(Invalid):
    msg_fmt = 'Invalid input received: %(reason)s'


class Forbidden(NovaLiteException):
    msg_fmt = 'Not authorized.'
    code = 403


class PolicyNotAuthorized(Forbidden):
    msg_fmt = "Policy doesn't allow %(action)s to be performed."


class NotFound(NovaLiteException):
    msg_fmt = 'Resource could not be found.'
    code = 404


class Conflict(NovaLiteException):
    msg_fmt = 'Conflict: %(reason)s'
    code = 409


class ServiceNotFound(NotFound):
    msg_fmt = 'Service %(service_id)s could not be found.'


class HostBinaryNotFound(NotFound):
    msg_fmt = 'Could not find binary %(binary)s on host %(host)s.'


class ServiceExists(Conflict):
    msg_fmt = 'Service with host %(host)s binary %(binary)s exists.'


class ComputeHostNotFound(NotFound):
    msg_fmt = 'Compute host %(host)s could not be found.'


class ComputeNodeNotFound(NotFound):
    msg_fmt = 'Compute node %(node)s could not be found.'


class HypervisorNotFound(NotFound):
    msg_fmt = 'Hypervisor %(hypervisor)s could not be found.'


class CellMappingNotFound(NotFound):
    msg_fmt = 'Cell %(uuid)s has no mapping.'


class CellMappingExists(Conflict):
    msg_fmt = 'A cell named %(name)s already exists.'


class CellNotEmpty(Conflict):
    msg_fmt = 'Cell %(uuid)s still has %(what)s mapped to it.'


class HostMappingNotFound(NotFound):
    msg_fmt = 'Host %(name)s is not mapped to any cell.'


class HostMappingExists(Conflict):
    msg_fmt = 'Host %(name)s is already mapped to a cell.'


class InstanceMappingNotFound(NotFound):
    msg_fmt = 'Instance %(uuid)s has no mapping to a cell.'


class ObjectActionError(NovaLiteException):
    msg_fmt = 'Object action %(action)s failed because: %(reason)s'


class ServiceTooOld(NovaLiteException):
    msg_fmt = ('This service is older (v%(thisver)i) than the minimum '
               '(v%(minver)i) version of the rest of the deployment. '
               'Unable to continue.')


class TooOldComputeService(NovaLiteException):
    msg_fmt = ('Current %(binary)s service version is %(current)s; the oldest '
               'supported is %(oldest_supported)s. Computes older than that '
               'are recorded: %(hosts)s.')


class APIVersionNotAvailable(NovaLiteException):
    msg_fmt = 'API version %(version)s is not supported on this method.'
    code = 406


class DatabaseNotReachable(NovaLiteException):
    msg_fmt = 'Cannot connect to database %(url)s: %(reason)s'


class RequestBodyTooLarge(NovaLiteException):
    msg_fmt = 'Request is too large.'
    code = 413
