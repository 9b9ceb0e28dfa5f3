"""Payloads of the instance.* notifications, with the fields of Nova's
documented ones that nova_lite has (no kernel, ramdisk, architecture,
os_type, block devices or bandwidth).

- InstanceActionPayload: instance.<action>.start/end/error (and
  instance.lock/unlock), with a fault for an error;
- InstanceCreatePayload: instance.create.*, plus tags and instance_name;
- InstanceUpdatePayload: instance.update, with state_update (old and new
  vm_state and task_state) and the audit period.

Every payload is built from an Instance (objects.instance) whose fields
are all loaded; nothing here reads a database, so a compute (no
database) builds them. States are Nova's strings: vm_state as stored,
power_state by name ('running', 'shutdown', ...).
"""
import traceback

from oslo_utils import timeutils
from oslo_versionedobjects import fields

from nova_lite.notifications import base

# power_state as a notification names it (Nova's names).
POWER_STATES = {0: 'pending', 1: 'running', 3: 'paused', 4: 'shutdown',
                6: 'crashed', 7: 'suspended'}


@base.NotificationObjectRegistry.register
class FlavorPayload(base.NotificationPayloadBase):
    """The flavor the server runs with (its embedded snapshot)."""
    # 1.0: initial
    VERSION = '1.0'

    SCHEMA = {name: ('flavor', name) for name in (
        'flavorid', 'name', 'memory_mb', 'vcpus', 'root_gb', 'ephemeral_gb',
        'swap', 'extra_specs')}
    fields = {
        'flavorid': fields.StringField(nullable=True),
        'name': fields.StringField(nullable=True),
        'memory_mb': fields.IntegerField(nullable=True),
        'vcpus': fields.IntegerField(nullable=True),
        'root_gb': fields.IntegerField(nullable=True),
        'ephemeral_gb': fields.IntegerField(nullable=True),
        'swap': fields.IntegerField(nullable=True),
        'extra_specs': fields.DictOfStringsField(nullable=True),
    }

    @classmethod
    def from_flavor(cls, flavor):
        payload = cls()
        payload.populate_schema(flavor=flavor)
        return payload


@base.NotificationObjectRegistry.register
class IpPayload(base.NotificationPayloadBase):
    """One fixed address of one port of the server."""
    # 1.0: initial
    VERSION = '1.0'

    fields = {
        'label': fields.StringField(nullable=True),
        'mac': fields.StringField(nullable=True),
        'meta': fields.DictOfStringsField(),
        'port_uuid': fields.StringField(nullable=True),
        'version': fields.IntegerField(nullable=True),
        'address': fields.StringField(nullable=True),
        'device_name': fields.StringField(nullable=True),
    }

    @classmethod
    def from_network_info(cls, network_info):
        """One payload per fixed IP of every port in network_info (the
        instance's network info cache)."""
        ips = []
        for vif in network_info or []:
            network = vif.get('network') or {}
            port = vif.get('id')
            device = vif.get('devname') or (
                'tap%s' % port[:11] if port else None)
            for subnet in network.get('subnets') or []:
                for ip in subnet.get('ips') or []:
                    ips.append(cls(
                        label=network.get('label'), mac=vif.get('address'),
                        meta={}, port_uuid=port, version=ip.get('version'),
                        address=ip.get('address'), device_name=device))
        return ips


@base.NotificationObjectRegistry.register
class ExceptionPayload(base.NotificationPayloadBase):
    """What failed: the exception's class, message and where it was
    raised."""
    # 1.0: initial
    VERSION = '1.0'

    fields = {
        'module_name': fields.StringField(),
        'function_name': fields.StringField(),
        'exception': fields.StringField(),
        'exception_message': fields.StringField(),
        'traceback': fields.StringField(),
    }

    @classmethod
    def from_exception(cls, exc):
        frames = traceback.extract_tb(exc.__traceback__)
        last = frames[-1] if frames else None
        module = type(exc).__module__
        return cls(
            module_name=(module if last is None else
                         _module_of(last.filename, module)),
            function_name=last.name if last is not None else '',
            exception=type(exc).__name__,
            exception_message=str(exc),
            traceback=''.join(traceback.format_exception(
                type(exc), exc, exc.__traceback__)))


def _module_of(filename, default):
    """nova_lite.compute.manager for .../nova_lite/compute/manager.py."""
    parts = filename.replace('\\', '/').rsplit('.py', 1)[0].split('/')
    if 'nova_lite' in parts:
        return '.'.join(parts[parts.index('nova_lite'):])
    return default


@base.NotificationObjectRegistry.register
class InstanceStateUpdatePayload(base.NotificationPayloadBase):
    # 1.0: initial
    VERSION = '1.0'

    fields = {
        'old_state': fields.StringField(nullable=True),
        'state': fields.StringField(nullable=True),
        'old_task_state': fields.StringField(nullable=True),
        'new_task_state': fields.StringField(nullable=True),
    }


@base.NotificationObjectRegistry.register
class AuditPeriodPayload(base.NotificationPayloadBase):
    # 1.0: initial
    VERSION = '1.0'

    fields = {
        'audit_period_beginning': fields.DateTimeField(),
        'audit_period_ending': fields.DateTimeField(),
    }

    @classmethod
    def current_month(cls):
        """The month so far, as Nova's default audit period (month)."""
        now = timeutils.utcnow().replace(tzinfo=None)
        return cls(audit_period_beginning=now.replace(
            day=1, hour=0, minute=0, second=0, microsecond=0),
            audit_period_ending=now)


_INSTANCE_SCHEMA = {
    'uuid': ('instance', 'uuid'),
    'user_id': ('instance', 'user_id'),
    'tenant_id': ('instance', 'project_id'),
    'reservation_id': ('instance', 'reservation_id'),
    'display_name': ('instance', 'display_name'),
    'display_description': ('instance', 'display_description'),
    'host_name': ('instance', 'hostname'),
    'host': ('instance', 'host'),
    'node': ('instance', 'node'),
    'availability_zone': ('instance', 'availability_zone'),
    'image_uuid': ('instance', 'image_ref'),
    'key_name': ('instance', 'key_name'),
    'created_at': ('instance', 'created_at'),
    'launched_at': ('instance', 'launched_at'),
    'terminated_at': ('instance', 'terminated_at'),
    'deleted_at': ('instance', 'deleted_at'),
    'updated_at': ('instance', 'updated_at'),
    'state': ('instance', 'vm_state'),
    'task_state': ('instance', 'task_state'),
    'progress': ('instance', 'progress'),
    'metadata': ('instance', 'metadata'),
    'locked': ('instance', 'locked'),
}


class InstancePayload(base.NotificationPayloadBase):
    """What every instance.* payload carries (not sent on its own)."""
    SCHEMA = _INSTANCE_SCHEMA
    fields = {
        'uuid': fields.UUIDField(),
        'user_id': fields.StringField(nullable=True),
        'tenant_id': fields.StringField(nullable=True),
        'reservation_id': fields.StringField(nullable=True),
        'display_name': fields.StringField(nullable=True),
        'display_description': fields.StringField(nullable=True),
        'host_name': fields.StringField(nullable=True),
        'host': fields.StringField(nullable=True),
        'node': fields.StringField(nullable=True),
        'availability_zone': fields.StringField(nullable=True),
        'flavor': fields.ObjectField('FlavorPayload', nullable=True),
        'image_uuid': fields.StringField(nullable=True),
        'key_name': fields.StringField(nullable=True),
        'created_at': fields.DateTimeField(nullable=True),
        'launched_at': fields.DateTimeField(nullable=True),
        'terminated_at': fields.DateTimeField(nullable=True),
        'deleted_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
        'state': fields.StringField(nullable=True),
        'power_state': fields.StringField(nullable=True),
        'task_state': fields.StringField(nullable=True),
        'progress': fields.IntegerField(nullable=True),
        'ip_addresses': fields.ListOfObjectsField('IpPayload'),
        'metadata': fields.DictOfStringsField(),
        'locked': fields.BooleanField(),
        'request_id': fields.StringField(nullable=True),
        'action_initiator_user': fields.StringField(nullable=True),
        'action_initiator_project': fields.StringField(nullable=True),
    }

    def __init__(self, context, instance, **kwargs):
        super().__init__(**kwargs)
        self.populate_schema(instance=_Loaded(instance))
        self.power_state = POWER_STATES.get(
            _get(instance, 'power_state'), 'pending')
        flavor = _get(instance, 'flavor')
        self.flavor = (None if flavor is None
                       else FlavorPayload.from_flavor(flavor))
        self.ip_addresses = IpPayload.from_network_info(
            _get(instance, 'network_info'))
        self.request_id = getattr(context, 'request_id', None)
        self.action_initiator_user = getattr(context, 'user_id', None)
        self.action_initiator_project = getattr(context, 'project_id', None)


def _get(instance, name, default=None):
    """A field of instance, or default when it was never set (a build
    request's instance carries only what the API wrote)."""
    return getattr(instance, name) if instance.obj_attr_is_set(name) \
        else default


class _Loaded(object):
    """instance's fields, with None/{}/False for those not set."""
    DEFAULTS = {'metadata': {}, 'locked': False}

    def __init__(self, instance):
        self._instance = instance

    def __getattr__(self, name):
        value = _get(self._instance, name, self.DEFAULTS.get(name))
        if name == 'metadata':
            value = dict(value or {})
        return value


@base.NotificationObjectRegistry.register
class InstanceActionPayload(InstancePayload):
    # 1.0: initial
    VERSION = '1.0'

    fields = dict(InstancePayload.fields, **{
        'fault': fields.ObjectField('ExceptionPayload', nullable=True),
    })

    def __init__(self, context, instance, fault=None, **kwargs):
        super().__init__(context, instance, fault=fault, **kwargs)


@base.NotificationObjectRegistry.register
class InstanceCreatePayload(InstanceActionPayload):
    # 1.0: initial
    VERSION = '1.0'

    fields = dict(InstanceActionPayload.fields, **{
        'tags': fields.ListOfStringsField(),
        'instance_name': fields.StringField(nullable=True),
    })

    def __init__(self, context, instance, fault=None):
        super().__init__(
            context, instance, fault=fault,
            tags=list(_get(instance, 'tags') or []),
            instance_name=(instance.name if instance.obj_attr_is_set('id')
                           else None))


@base.NotificationObjectRegistry.register
class InstanceUpdatePayload(InstancePayload):
    # 1.0: initial
    VERSION = '1.0'

    fields = dict(InstancePayload.fields, **{
        'state_update': fields.ObjectField('InstanceStateUpdatePayload'),
        'audit_period': fields.ObjectField('AuditPeriodPayload'),
        'old_display_name': fields.StringField(nullable=True),
        'tags': fields.ListOfStringsField(),
    })

    def __init__(self, context, instance, state_update,
                 old_display_name=None):
        super().__init__(
            context, instance, state_update=state_update,
            audit_period=AuditPeriodPayload.current_month(),
            old_display_name=old_display_name,
            tags=list(_get(instance, 'tags') or []))


@base.NotificationObjectRegistry.register
class InstanceActionNotification(base.NotificationBase):
    # 1.0: initial
    VERSION = '1.0'

    fields = dict(base.NotificationBase.fields, **{
        'payload': fields.ObjectField('InstanceActionPayload'),
    })


@base.NotificationObjectRegistry.register
class InstanceCreateNotification(base.NotificationBase):
    # 1.0: initial
    VERSION = '1.0'

    fields = dict(base.NotificationBase.fields, **{
        'payload': fields.ObjectField('InstanceCreatePayload'),
    })


@base.NotificationObjectRegistry.register
class InstanceUpdateNotification(base.NotificationBase):
    # 1.0: initial
    VERSION = '1.0'

    fields = dict(base.NotificationBase.fields, **{
        'payload': fields.ObjectField('InstanceUpdatePayload'),
    })
