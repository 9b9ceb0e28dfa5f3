"""Exceptions that carry an HTTP code; the API fault wrapper maps them once.

Over 500 lines on purpose: one short class per error the API can answer,
grouped by resource, in the one module every layer may import (as Nova's
nova/exception.py); splitting it would only scatter that table."""


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


class TaskAlreadyRunning(NovaLiteException):
    msg_fmt = 'Task %(task_name)s is already running on host %(host)s'


class TaskNotRunning(NovaLiteException):
    msg_fmt = 'Task %(task_name)s is not running on host %(host)s'


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


# --- REST API ------------------------------------------------------------

class InvalidAPIVersionString(Invalid):
    msg_fmt = ('API Version String %(version)s is of invalid format. Must '
               'be of format MajorNum.MinorNum.')


class InvalidGlobalAPIVersion(NovaLiteException):
    msg_fmt = ('Version %(req_ver)s is not supported by the API. Minimum is '
               '%(min_ver)s and maximum is %(max_ver)s.')
    code = 406


class Unauthorized(NovaLiteException):
    msg_fmt = 'Authentication required.'
    code = 401


class MalformedRequestBody(Invalid):
    msg_fmt = 'Malformed request body: %(reason)s'


class RequestURITooLong(NovaLiteException):
    msg_fmt = 'The request URL is too long.'
    code = 414


class ServiceNotUnique(Invalid):
    msg_fmt = 'Service id %(service_id)s refers to multiple services.'


class ServiceUpdateNotSupported(Invalid):
    msg_fmt = ('Updating a %(binary)s service is not supported. Only '
               '%(compute)s services can be updated.')


class MarkerNotFound(Invalid):
    msg_fmt = 'Marker %(marker)s could not be found.'


class LiveMigrationNotFoundForInstance(NotFound):
    msg_fmt = ('In-progress live migration %(migration_id)s is not found '
               'for server %(instance_id)s.')


class MigrationNotLiveMigration(NotFound):
    msg_fmt = ('Migration %(migration_id)s for server %(instance_id)s is '
               'not live-migration.')


class LiveMigrationNotInProgress(NotFound):
    msg_fmt = ('Live migration %(migration_id)s for server %(instance_id)s '
               'is not in progress.')


class HypervisorNotFoundByPattern(NotFound):
    msg_fmt = "No hypervisor matching '%(pattern)s' could be found."


class ComputeServiceUnavailable(Invalid):
    msg_fmt = 'Compute service of %(host)s is unavailable at this time.'


class HypervisorUptimeNotImplemented(NovaLiteException):
    msg_fmt = 'Virt driver does not implement uptime function.'
    code = 501


class ResourceNotFound(NotFound):
    msg_fmt = 'The resource could not be found.'


class MethodNotAllowed(NovaLiteException):
    msg_fmt = 'The method is not allowed for the requested URL.'
    code = 405


# --- flavors -------------------------------------------------------------

class FlavorNotFound(NotFound):
    msg_fmt = 'Flavor %(flavor_id)s could not be found.'


class FlavorNotFoundByName(FlavorNotFound):
    msg_fmt = 'Flavor with name %(flavor_name)s could not be found.'


class FlavorExists(Conflict):
    msg_fmt = 'Flavor with name %(name)s already exists.'


class FlavorIdExists(FlavorExists):
    msg_fmt = 'Flavor with ID %(flavor_id)s already exists.'


class FlavorExtraSpecsNotFound(NotFound):
    msg_fmt = ('Flavor %(flavor_id)s has no extra specs with key '
               '%(extra_specs_key)s.')


class FlavorAccessExists(Conflict):
    msg_fmt = ('Flavor access already exists for flavor %(flavor_id)s and '
               'project %(project_id)s combination.')


class FlavorAccessNotFound(NotFound):
    msg_fmt = ('Flavor access not found for %(flavor_id)s / %(project_id)s '
               'combination.')


class FlavorAccessListPublic(NotFound):
    msg_fmt = 'Access list not available for public flavors.'


class FlavorAccessPublic(Conflict):
    msg_fmt = 'Can not add access to a public flavor.'


class InvalidSortKey(Invalid):
    msg_fmt = 'Sort key supplied is invalid: %(sort_key)s'


class CellsNotResponding(NovaLiteException):
    msg_fmt = 'Cells did not respond: %(cells)s'


class InstanceCellNotResponding(NovaLiteException):
    code = 503
    msg_fmt = ('The cell of instance %(instance_id)s is not responding; '
               'its details are not available. Try again later, or use '
               'microversion 2.69 or later to see what is known of it.')


class ServiceOutage(NovaLiteException):
    """A backend the request needs is unreachable for now: the API
    answers 503 (serviceUnavailable), and the request changed nothing."""
    code = 503
    headers = {'Retry-After': '10'}
    msg_fmt = 'A service this request needs is unavailable; try again later.'


class KeystoneConnectionFailed(ServiceOutage):
    msg_fmt = ('Connection to keystone host failed: %(reason)s (the quota '
               'limits could not be read); nothing was changed.')


class DatabaseUnavailable(ServiceOutage):
    msg_fmt = ('A database this request needs is unreachable; nothing was '
               'changed. Try again later.')


class BuildNotFinished(NovaLiteException):
    msg_fmt = ('Build of instance %(uuid)s was taken by a conductor that '
               'did not finish it within %(seconds)d seconds (it died or '
               'gave up); the server was not built.')


class BuildRequestNotPickedUp(NovaLiteException):
    msg_fmt = ('Build of instance %(uuid)s was not picked up by a '
               'conductor within %(seconds)d seconds (its request to the '
               'conductor was lost); the server was not built.')


class MessagingUnavailable(ServiceOutage):
    msg_fmt = ('The message queue is unreachable (%(reason)s); the request '
               'was not sent and nothing was changed. Try again later.')


# --- local services: images and networks (nova_lite/image, nova_lite/network)
# The network errors are raised while a boot request is checked, where the
# Compute API answers 400 (or 409 for a port in use / an ambiguous network).

class ImageNotFound(NotFound):
    msg_fmt = 'Image %(image_id)s could not be found.'


class ImageNotAuthorized(Forbidden):
    msg_fmt = 'Not authorized for image %(image_id)s.'


class ImageMetadataLimitExceeded(Forbidden):
    msg_fmt = 'Image metadata limit exceeded'


class ImageMetadataKeyNotFound(NotFound):
    msg_fmt = 'Invalid metadata key'


class NetworkNotFound(Invalid):
    msg_fmt = 'Network %(network_id)s could not be found.'


class PortNotFound(Invalid):
    msg_fmt = 'Port id %(port_id)s could not be found.'


class PortInUse(Conflict):
    msg_fmt = 'Port %(port_id)s is still in use.'


class PortBindingNotFound(NotFound):
    msg_fmt = 'Binding for port %(port_id)s on host %(host)s not found.'


class PortBindingAlreadyExists(Conflict):
    msg_fmt = 'Binding for port %(port_id)s on host %(host)s already exists.'


class PortBindingAlreadyActive(Conflict):
    msg_fmt = ('Binding for port %(port_id)s on host %(host)s is already '
               'active.')


class PortNotUsable(Invalid):
    msg_fmt = 'Port %(port_id)s not usable for instance %(instance)s.'


class FixedIpAlreadyInUse(Invalid):
    msg_fmt = ('Fixed IP address %(address)s is already in use on instance '
               '%(instance_uuid)s.')


class FixedIpInvalid(Invalid):
    msg_fmt = ('Fixed IP address %(address)s is not valid on network '
               '%(network_id)s.')


class NoMoreFixedIps(NovaLiteException):
    msg_fmt = 'No fixed IP addresses available for network: %(net)s'


class FixedIpNotFoundForInstance(Invalid):
    msg_fmt = "Instance %(instance_uuid)s does not have fixed IP '%(ip)s'."


class FloatingIpNotFound(NotFound):
    msg_fmt = 'Floating IP not found for ID %(id)s'


class FloatingIpNotFoundForAddress(NotFound):
    msg_fmt = 'floating IP not found'


class FloatingIpPoolNotFound(NotFound):
    msg_fmt = 'Floating IP pool not found.'


class NoMoreFloatingIps(NotFound):
    msg_fmt = 'No more floating IPs available.'


class FloatingIpAssociateFailed(Invalid):
    msg_fmt = 'Floating IP %(address)s association has failed.'


class FloatingIpNotAssociated(Conflict):
    msg_fmt = ('Floating IP %(address)s is not associated with instance '
               '%(id)s.')


class NetworkAmbiguous(Conflict):
    msg_fmt = ('More than one possible network found. Specify network ID(s) '
               'to select which one(s) to connect to.')


class UnableToAutoAllocateNetwork(Invalid):
    msg_fmt = ('Unable to automatically allocate a network for project '
               '%(project_id)s')


# --- key pairs ---------------------------------------------------------------

class KeypairNotFound(NotFound):
    msg_fmt = 'Keypair %(name)s not found for user %(user_id)s'


class KeyPairExists(Conflict):
    msg_fmt = "Key pair '%(key_name)s' already exists."


class InvalidKeypair(Invalid):
    msg_fmt = 'Keypair data is invalid: %(reason)s'


# --- resource providers, inventories and allocations ------------------------

class ResourceProviderNotFound(NotFound):
    msg_fmt = 'Resource provider %(uuid)s could not be found.'


class ResourceProviderExists(Conflict):
    msg_fmt = 'Resource provider %(uuid)s already exists.'


class ResourceProviderInUse(Conflict):
    msg_fmt = 'Resource provider %(uuid)s has allocations.'


class ResourceProviderGenerationConflict(Conflict):
    msg_fmt = ('Resource provider %(uuid)s changed: expected generation '
               '%(expected)s, found %(actual)s. Re-read it and try again.')


class ConsumerGenerationConflict(Conflict):
    msg_fmt = ('Consumer %(consumer)s generation conflict: expected '
               '%(expected)s, but it is at %(actual)s. Re-read its '
               'allocations and try again.')


class ResourceClassNotFound(NotFound):
    msg_fmt = 'No such resource class %(resource_class)s.'


class InvalidInventory(Invalid):
    msg_fmt = 'Invalid %(resource_class)s inventory: %(reason)s'


class ComputeServiceHostsInstances(Conflict):
    msg_fmt = ('Unable to delete compute service that is hosting '
               'instances. Migrate or delete the instances first.')


class ComputeServiceInMigrations(Conflict):
    msg_fmt = ('Unable to delete compute service that has in-progress '
               'migrations. Complete the migrations or delete the '
               'instances first.')


class ComputeServiceInUse(Conflict):
    msg_fmt = ('Unable to delete compute service that has allocations '
               'against its resource provider %(uuid)s. Migrate or delete '
               'the instances first.')


class InventoryInUse(Conflict):
    msg_fmt = ('Resource provider %(uuid)s still has allocations of '
               '%(resource_classes)s; their inventory cannot be removed.')


class InsufficientResources(Conflict):
    msg_fmt = ('Unable to claim %(amount)s %(resource_class)s on resource '
               'provider %(provider)s: %(reason)s.')


# --- servers -----------------------------------------------------------

class InstanceNotFound(NotFound):
    msg_fmt = 'Instance %(instance_id)s could not be found.'


class PinnedZoneConflict(Conflict):
    msg_fmt = '%(reason)s'


class InstanceInvalidState(Conflict):
    msg_fmt = ('Cannot \'%(action)s\' instance %(instance_uuid)s while it '
               'is in %(attr)s %(state)s')


class UnexpectedTaskStateError(Conflict):
    msg_fmt = ('Conflict updating instance %(instance_uuid)s. Expected: '
               '%(expected)s. Actual: %(actual)s')


class UnexpectedDeletingTaskStateError(UnexpectedTaskStateError):
    pass


class NoValidHost(NovaLiteException):
    msg_fmt = 'No valid host was found. %(reason)s'


class MaxRetriesExceeded(NoValidHost):
    msg_fmt = 'Exceeded maximum number of retries. %(reason)s'


class BuildRequestNotFound(NotFound):
    msg_fmt = 'BuildRequest not found for instance %(uuid)s'


class RequestSpecNotFound(NotFound):
    msg_fmt = 'RequestSpec not found for instance %(instance_uuid)s'


class ImageNotActive(Invalid):
    msg_fmt = 'Image %(image_id)s is not active.'


class FlavorMemoryTooSmall(Invalid):
    msg_fmt = "Flavor's memory is too small for requested image."


class FlavorDiskTooSmall(Invalid):
    msg_fmt = "Flavor's disk is too small for requested image."


# --- server actions --------------------------------------------------------

class InstanceIsLocked(Conflict):
    msg_fmt = 'Instance %(instance_uuid)s is locked'


class InstanceActionNotFound(NotFound):
    msg_fmt = 'Action %(request_id)s not found'


class ComputeTooOldForAction(Conflict):
    msg_fmt = ("Cannot '%(action)s' instance %(instance_uuid)s: the compute "
               'service on %(host)s is too old for it; retry once it is '
               'upgraded.')


class InstanceNotReady(Conflict):
    msg_fmt = 'Instance %(instance_id)s is not ready'


class MetadataLimitExceeded(Forbidden):
    msg_fmt = ('Quota exceeded for metadata items: at most %(allowed)d '
               'are allowed')


class InstanceMetadataNotFound(NotFound):
    msg_fmt = 'Metadata item was not found'


class TagNotFound(NotFound):
    msg_fmt = "Server %(instance_id)s has no tag '%(tag)s'"


class TooManyTags(Invalid):
    msg_fmt = 'The number of tags exceeded the per-server limit %(limit)d'


class InvalidTag(Invalid):
    msg_fmt = ("Tag '%(tag)s' is invalid. It must be a non empty string "
               "without characters '/' and ','. %(reason)s")


class ImageNotFoundForRebuild(Invalid):
    msg_fmt = 'Cannot find image for rebuild'


# --- resize and cold migration ----------------------------------------------

class MigrationNotFound(NotFound):
    msg_fmt = 'Migration %(migration_id)s could not be found.'


class MigrationNotFoundByStatus(MigrationNotFound):
    msg_fmt = ('Migration not found for instance %(instance_id)s with '
               'status %(status)s.')


class MigrationStatusConflict(Conflict):
    msg_fmt = ('Migration %(migration_id)s is in status %(actual)s, not '
               '%(expected)s.')


class CannotResizeToSameFlavor(Invalid):
    msg_fmt = 'When resizing, instances must change flavor!'


class CannotResizeDisk(Invalid):
    msg_fmt = 'Server disk was unable to be resized because: %(reason)s'


class CannotMigrateToSameHost(Invalid):
    msg_fmt = ('Cannot migrate to the host where the server exists. '
               'Please choose another host.')


class ResizeFlavorNotFound(Invalid):
    msg_fmt = 'Flavor %(flavor_id)s could not be found.'


class MigrateHostNotFound(Invalid):
    msg_fmt = 'Compute host %(host)s could not be found.'


class AutoDiskConfigDisabledByImage(Invalid):
    msg_fmt = 'Requested image %(image)s has automatic disk resize disabled.'


class RequestedHostNotFound(Invalid):
    """A boot's requested host or hypervisor_hostname (2.74) names no
    compute: 400, as Nova words it."""
    msg_fmt = 'Compute host %(host)s could not be found.'


class ComputeServiceDown(Conflict):
    msg_fmt = 'Service is unavailable at this time.'


# --- evacuate --------------------------------------------------------------

class EvacuateSourceInUse(Invalid):
    """An evacuate of a server whose compute is still up: 400, as Nova
    words it."""
    msg_fmt = 'Compute service of %(host)s is still in use.'


class EvacuateHostNotFound(NotFound):
    msg_fmt = 'Compute host %(host)s not found.'


class EvacuateToSameHost(Invalid):
    msg_fmt = "The target host can't be the same one."


class EvacuateForceWithoutHost(Invalid):
    msg_fmt = "Can't force to a non-provided destination"


class EvacuatePasswordOnSharedStorage(Invalid):
    msg_fmt = "admin password can't be changed on existing disk"


# --- volumes ---------------------------------------------------------------

class VolumeNotFound(NotFound):
    msg_fmt = 'Volume %(volume_id)s could not be found.'


class SnapshotNotFound(NotFound):
    msg_fmt = 'Snapshot %(snapshot_id)s could not be found.'


class VolumeAttachmentNotFound(NotFound):
    msg_fmt = 'Volume attachment %(attachment_id)s could not be found.'


class InvalidVolume(Invalid):
    msg_fmt = 'Invalid volume: %(reason)s'


class VolumeNotAttached(NotFound):
    msg_fmt = 'volume_id not found: %(volume_id)s'


# --- shares ----------------------------------------------------------------

class ShareNotFound(NotFound):
    msg_fmt = 'Share %(share_id)s could not be found.'


class InvalidShare(Invalid):
    msg_fmt = 'Invalid share: %(reason)s'


class ShareStatusIncorrect(Conflict):
    msg_fmt = ('Share %(share_id)s is in \'%(status)s\' instead of '
               '\'available\' status.')


class ShareProtocolNotSupported(Conflict):
    msg_fmt = 'Share protocol %(share_proto)s is not supported.'


class ShareMappingAlreadyExists(Conflict):
    msg_fmt = ('Share \'%(share_id)s\' or tag \'%(tag)s\' already '
               'associated to this server.')


class InvalidBDM(Invalid):
    msg_fmt = 'Block Device Mapping is Invalid: %(reason)s'


class InvalidBDMVolumeNotBootable(InvalidBDM):
    msg_fmt = 'Block Device %(id)s is not bootable.'


class VolumeSwapNotSupported(Conflict):
    msg_fmt = ('Swapping the volume %(volume_id)s of instance '
               '%(instance_uuid)s is not supported by its compute driver.')


# --- host aggregates and availability zones --------------------------------

class AggregateNotFound(NotFound):
    msg_fmt = 'Aggregate %(aggregate_id)s could not be found.'


class AggregateNameExists(Conflict):
    msg_fmt = 'Aggregate %(aggregate_name)s already exists.'


class AggregateHostExists(Conflict):
    msg_fmt = 'Aggregate %(aggregate_id)s already has host %(host)s.'


class AggregateHostNotFound(NotFound):
    msg_fmt = 'Aggregate %(aggregate_id)s has no host %(host)s.'


class InvalidAggregateAction(Invalid):
    msg_fmt = ('Unacceptable parameters: Cannot perform action '
               '%(action)s on aggregate %(aggregate_id)s. Reason: '
               '%(reason)s.')


class InvalidAggregateActionAdd(InvalidAggregateAction):
    msg_fmt = ('Cannot add host to aggregate %(aggregate_id)s. '
               'Reason: %(reason)s.')


class InvalidAggregateActionDelete(InvalidAggregateAction):
    msg_fmt = ('Cannot remove host from aggregate %(aggregate_id)s. '
               'Reason: %(reason)s.')


class InvalidAggregateActionUpdate(InvalidAggregateAction):
    msg_fmt = ('Cannot update aggregate %(aggregate_id)s. '
               'Reason: %(reason)s.')


class InvalidAggregateActionUpdateMeta(InvalidAggregateAction):
    msg_fmt = ('Cannot update metadata of aggregate %(aggregate_id)s. '
               'Reason: %(reason)s.')


# --- quotas --------------------------------------------------------------

class OverQuota(Forbidden):
    msg_fmt = 'Quota exceeded for resources: %(overs)s'


class TooManyInstances(OverQuota):
    msg_fmt = ('Quota exceeded for %(overs)s: Requested %(req)s, but '
               'already used %(used)s of %(allowed)s %(overs)s')


class KeypairLimitExceeded(OverQuota):
    msg_fmt = 'Quota exceeded, too many key pairs.'


class OnsetFileLimitExceeded(OverQuota):
    msg_fmt = 'Personality file limit exceeded'


class OnsetFilePathLimitExceeded(OverQuota):
    msg_fmt = 'Personality file path exceeds maximum %(allowed)s'


class OnsetFileContentLimitExceeded(OverQuota):
    msg_fmt = 'Personality file content exceeds maximum %(allowed)s'


class QuotaBelowUsage(Invalid):
    msg_fmt = ('Quota limit %(limit)s for %(resource)s must be greater than '
               'or equal to already used and reserved %(used)s.')


class QuotaDriverUnavailable(Invalid):
    msg_fmt = 'The quota driver cannot do this: %(reason)s'

# --- server groups -----------------------------------------------------------


class InstanceGroupNotFound(NotFound):
    msg_fmt = 'Instance group %(group_uuid)s could not be found.'


class InstanceGroupPolicyViolated(NovaLiteException):
    """A compute's late check: the host would break the group's policy
    (the build is rescheduled)."""
    msg_fmt = ('Anti-affinity or affinity instance group policy was '
               'violated: %(reason)s')


class ServerGroupQuotaExceeded(Forbidden):
    msg_fmt = 'Quota exceeded, too many %(resource)s.'


class ServerGroupMembersQuotaExceeded(Forbidden):
    msg_fmt = 'Quota exceeded, too many servers in group'


class ConsoleNotAvailable(NotFound):
    msg_fmt = 'Guest does not have a console available.'


class ConsoleTypeInvalid(Invalid):
    msg_fmt = 'Invalid console type %(console_type)s'


class ConsoleTypeUnavailable(Invalid):
    msg_fmt = 'Unavailable console type %(console_type)s.'


class ConsoleTokenNotFound(NotFound):
    msg_fmt = 'Token not found'


class ComputeUnreachable(Conflict):
    msg_fmt = ('The compute service of instance %(instance_uuid)s on '
               '%(host)s did not answer; retry later.')


class UnshelveInstanceInvalidState(Conflict):
    msg_fmt = ('Specifying an availability zone or a host when unshelving '
               'server %(instance_uuid)s with status %(state)s is not '
               'supported. The server status must be SHELVED_OFFLOADED.')


class UnshelveHostNotInAZ(Conflict):
    msg_fmt = ('Host "%(host)s" is not in the availability zone '
               '"%(availability_zone)s".')


class InstanceNotRescuable(Invalid):
    msg_fmt = 'Instance %(instance_id)s cannot be rescued: %(reason)s'

# --- security groups (the embedded network service) ---------------------


class SecurityGroupNotFound(NotFound):
    msg_fmt = 'Security group %(security_group_id)s not found.'


class SecurityGroupNotFoundForProject(Invalid):
    """A boot request names a group its project cannot use (400)."""
    msg_fmt = ('Security group %(security_group_id)s not found for '
               'project %(project_id)s.')


class SecurityGroupNotUnique(Conflict):
    msg_fmt = ('Multiple security group matches found for name '
               '%(name)s, use an ID to be more specific.')


class SecurityGroupNotExistsForInstance(Invalid):
    msg_fmt = ('Security group %(security_group_id)s not associated with '
               'the instance %(instance_id)s')


class SecurityGroupInUse(Conflict):
    msg_fmt = ('Security Group %(security_group_id)s in use: it is '
               'applied to ports or named by rules of other groups.')


class SecurityGroupDefaultInUse(Conflict):
    msg_fmt = 'Insufficient rights for removing default security group.'


class SecurityGroupRuleNotFound(NotFound):
    msg_fmt = 'Security group rule %(rule_id)s could not be found.'


class SecurityGroupRuleExists(Conflict):
    msg_fmt = ('Security group rule already exists. Rule id is '
               '%(rule_id)s.')


class PortNotFoundForInstance(NotFound):
    msg_fmt = 'Port %(port_id)s is not attached'


class InterfaceTargetNotFound(NotFound):
    """The port or network an interface attach names (404 there; a boot
    request naming it is a 400)."""
    msg_fmt = '%(reason)s'


class InterfaceAddressInUse(Conflict):
    msg_fmt = '%(reason)s'


class TooManyDiskDevices(Forbidden):
    msg_fmt = ('The maximum allowed number of disk devices (%(maximum)d) '
               'to attach to a single instance has been exceeded.')


class InterfaceAttachRefused(Invalid):
    """An attach the network cannot serve (no address left): 400, as
    Nova."""
    msg_fmt = '%(reason)s'


# --- live migration --------------------------------------------------------

class MigrationPreCheckError(Invalid):
    msg_fmt = 'Migration pre-check error: %(reason)s'


class MigrationError(NovaLiteException):
    msg_fmt = 'Migration error: %(reason)s'


class UnableToMigrateToSelf(Invalid):
    msg_fmt = ('Unable to migrate instance (%(instance_id)s) to current '
               'host (%(host)s).')


class InvalidMigrationState(Invalid):
    msg_fmt = ('Migration %(migration_id)s state of instance '
               '%(instance_uuid)s is %(state)s. Cannot %(method)s while the '
               'migration is in this state.')


class NoValidHostForLiveMigration(Invalid):
    """NoValidHost as os-migrateLive answers it below 2.34 (400)."""
    msg_fmt = '%(reason)s'


class VirtualInterfaceCreateException(NovaLiteException):
    """The VIFs of a server were not plugged in time (or their plug
    failed): network-vif-plugged did not come (vif_plugging_is_fatal)."""
    msg_fmt = 'Virtual Interface creation failed'


class VirtualInterfacePlugTimeout(VirtualInterfaceCreateException):
    """network-vif-plugged of some VIFs did not come within
    [DEFAULT] vif_plugging_timeout (vif_plugging_is_fatal): the host
    may be at fault, so a build tries the next host (the message is
    the parent's, as Nova's)."""


class BuildAbortException(NovaLiteException):
    """A build that fails here and is not rescheduled (ERROR)."""
    msg_fmt = 'Build of instance %(instance_uuid)s aborted: %(reason)s'
