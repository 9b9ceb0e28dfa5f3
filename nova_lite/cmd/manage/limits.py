"""nova-lite-manage limits: move the legacy quota limits (the API
database's and the [quota] options) into Keystone's unified limits, as
nova-manage limits migrate_to_unified_limits does."""
from keystoneauth1 import exceptions as ksa_exceptions
from keystoneauth1 import loading as ks_loading
import openstack
from openstack import exceptions as sdk_exceptions

from nova_lite.cmd import common
from nova_lite.cmd.common import args
from nova_lite.cmd.manage import checks
from nova_lite.conf import CONF
from nova_lite import quota
from nova_lite.quota import db as quota_db
from nova_lite.quota import unified

OK = 0
ERROR = 1


def _identity():
    """The identity proxy of an openstacksdk connection authenticated
    with the [oslo_limit] options (the service user the driver uses)."""
    auth = ks_loading.load_auth_from_conf_options(CONF, 'oslo_limit')
    session = ks_loading.load_session_from_conf_options(
        CONF, 'oslo_limit', auth=auth)
    return openstack.connection.Connection(session=session).identity


def _service_and_region(identity, region_id=None):
    """(service id, region id) of nova_lite's endpoint as oslo.limit
    finds it: [oslo_limit] endpoint_id, else the service type/name and
    region; region_id overrides the region."""
    group = CONF.oslo_limit
    if group.endpoint_id:
        endpoint = identity.get_endpoint(group.endpoint_id)
        return endpoint.service_id, region_id or endpoint.region_id
    if not (group.endpoint_service_type or group.endpoint_service_name):
        raise ValueError('[oslo_limit] endpoint_id, or endpoint_service_type '
                         'or endpoint_service_name, must be set')
    services = list(identity.services(type=group.endpoint_service_type,
                                      name=group.endpoint_service_name))
    if len(services) != 1:
        raise ValueError('%d services match [oslo_limit] '
                         'endpoint_service_type/name' % len(services))
    if region_id is None and group.endpoint_region_name:
        region_id = identity.get_region(group.endpoint_region_name).id
    return services[0].id, region_id


def legacy_defaults(ctxt):
    """{Keystone resource: limit} of the legacy defaults: the [quota]
    options under the quota class 'default' of the API database."""
    values = quota.config_defaults()
    values.update(quota_db.class_limits(ctxt, 'default'))
    return {name: values[legacy] for legacy, name in unified.LEGACY.items()
            if legacy in values}


def legacy_project(ctxt, project_id):
    """{Keystone resource: limit} set for the project itself in the API
    database (per-user limits do not exist in unified limits)."""
    own = quota_db.project_limits(ctxt, project_id)[0]
    return {name: own[legacy] for legacy, name in unified.LEGACY.items()
            if legacy in own}


class LimitsCommands(object):
    """Keystone unified limits ([oslo_limit] options)."""

    @args('--project-id', metavar='<project-id>',
          help='Also copy this project\'s own limits (Keystone limits)')
    @args('--region-id', metavar='<region-id>',
          help='The region of the limits (default: the endpoint\'s)')
    @args('--verbose', action='store_true', default=False,
          help='Also say which limits exist already')
    @args('--dry-run', action='store_true', default=False,
          help='Show what would be created; create nothing')
    def migrate_to_unified_limits(self, project_id=None, region_id=None,
                                  verbose=False, dry_run=False):
        """Copy the legacy quota limits into Keystone: the defaults (the
        [quota] options under the API database's quota class 'default')
        as registered limits of nova_lite's service and region and, with
        --project-id, that project's own limits as limits. A limit that
        Keystone has already is left as it is, so a rerun creates
        nothing. Per-user limits are not copied (unified limits have
        none).

        Exit codes: 0 done (or nothing to do); 1 an error (no API
        database, Keystone unreachable or refusing, the endpoint not
        found): what was created before it stays.
        """
        if not checks.require_api_db():
            return ERROR
        ctxt = checks.admin_context()
        defaults = legacy_defaults(ctxt)
        own = legacy_project(ctxt, project_id) if project_id else {}
        try:
            identity = _identity()
            service_id, region_id = _service_and_region(identity, region_id)
            filters = {'service_id': service_id}
            if region_id:
                filters['region_id'] = region_id
            have = {r.resource_name for r in
                    identity.registered_limits(**filters)}
            created = self._copy(
                'registered limit', defaults, have, verbose, dry_run,
                lambda name, value: identity.create_registered_limit(
                    resource_name=name, default_limit=value, **filters))
            if project_id:
                have = {r.resource_name for r in identity.limits(
                    project_id=project_id, **filters)}
                created += self._copy(
                    'limit of project %s' % project_id, own, have, verbose,
                    dry_run, lambda name, value: identity.create_limit(
                        resource_name=name, resource_limit=value,
                        project_id=project_id, **filters))
        except (ksa_exceptions.ClientException, sdk_exceptions.SDKException,
                ValueError) as exc:
            common.error('Keystone: %s' % exc)
            return ERROR
        print('%s %d limits.' % ('Would create' if dry_run else 'Created',
                                 created))
        return OK

    @staticmethod
    def _copy(kind, values, have, verbose, dry_run, create):
        created = 0
        for name, value in sorted(values.items()):
            if name in have:
                if verbose:
                    print('Skipped %s %s: it exists.' % (kind, name))
                continue
            if dry_run:
                print('Would create %s %s = %s.' % (kind, name, value))
            else:
                create(name, value)
                print('Created %s %s = %s.' % (kind, name, value))
            created += 1
        return created
