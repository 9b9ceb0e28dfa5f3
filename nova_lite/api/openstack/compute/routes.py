"""Every route of the Compute API v2.1, in the order of the Compute API
reference's index: method, path, the controller method that serves it,
the policy rules it checks, and the microversions it exists in.

A path's ``{name}`` segments are handed, in order, to the controller's
constructor (``ServerController(server_id)``); the named method then runs
with no arguments (it reads its body and query through wsgi and
validation). ``POST .../action`` routes list their actions, picked by
the body's one key; ``PUT /os-services/{service_id}`` below 2.53 names
its action in the path instead.

What the router (root.V21Controller) answers when the table does not
serve a request, in the Compute API's fault format:

- no path in the table matches: 404;
- the path matches but no route has the method (HEAD is served as GET):
  405, with ``Allow`` naming the methods the path has;
- the route exists at other microversions only: 404;
- an action name the route does not list: 400; one it lists at other
  microversions only: 404.

A literal segment wins over a ``{name}`` one (``/servers/detail`` is not
the server ``detail``); a path with an empty segment (``/servers/``,
``/os-volumes//x``) is a 404, as in Nova, but ``/`` itself.
"""
import collections

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute import aggregates
from nova_lite.api.openstack.compute import assisted_volume_snapshots
from nova_lite.api.openstack.compute import availability_zone
from nova_lite.api.openstack.compute import extensions
from nova_lite.api.openstack.compute import flavor_access
from nova_lite.api.openstack.compute import flavor_extra_specs
from nova_lite.api.openstack.compute import flavors
from nova_lite.api.openstack.compute import floating_ips
from nova_lite.api.openstack.compute import gone
from nova_lite.api.openstack.compute import hosts
from nova_lite.api.openstack.compute import hypervisors
from nova_lite.api.openstack.compute import image_metadata
from nova_lite.api.openstack.compute import images
from nova_lite.api.openstack.compute import instance_actions
from nova_lite.api.openstack.compute import instance_usage_audit_log
from nova_lite.api.openstack.compute import keypairs
from nova_lite.api.openstack.compute import migrations
from nova_lite.api.openstack.compute import networks
from nova_lite.api.openstack.compute import quotas
from nova_lite.api.openstack.compute import remote_consoles
from nova_lite.api.openstack.compute import security_group_proxy
from nova_lite.api.openstack.compute import security_groups
from nova_lite.api.openstack.compute import server_actions
from nova_lite.api.openstack.compute import server_backup_actions
from nova_lite.api.openstack.compute import server_external_events
from nova_lite.api.openstack.compute import server_groups
from nova_lite.api.openstack.compute import server_interfaces
from nova_lite.api.openstack.compute import server_metadata
from nova_lite.api.openstack.compute import server_migrations
from nova_lite.api.openstack.compute import server_shares
from nova_lite.api.openstack.compute import server_tags
from nova_lite.api.openstack.compute import servers
from nova_lite.api.openstack.compute import services
from nova_lite.api.openstack.compute import simple_tenant_usage
from nova_lite.api.openstack.compute import volume_attachments
from nova_lite.api.openstack.compute import volumes
from nova_lite.api.openstack import versions
from nova_lite.policies import aggregates as agg_pol
from nova_lite.policies import assisted_volume_snapshots as avs_pol
from nova_lite.policies import availability_zone as az_pol
from nova_lite.policies import extensions as ext_pol
from nova_lite.policies import flavors as fl_pol
from nova_lite.policies import floating_ips as fip_pol
from nova_lite.policies import hosts as host_pol
from nova_lite.policies import hypervisors as hv_pol
from nova_lite.policies import instance_actions as ia_pol
from nova_lite.policies import instance_usage_audit_log as iual_pol
from nova_lite.policies import keypairs as kp_pol
from nova_lite.policies import migrate_live as ml_pol
from nova_lite.policies import migrations as mg_pol
from nova_lite.policies import networks as net_pol
from nova_lite.policies import quotas as qt_pol
from nova_lite.policies import security_groups as secgrp_pol
from nova_lite.policies import server_actions as sa_pol
from nova_lite.policies import server_backups as sb_pol
from nova_lite.policies import server_consoles as sc_pol
from nova_lite.policies import server_evacuate as sev_pol
from nova_lite.policies import server_external_events as see_pol
from nova_lite.policies import server_groups as sg_pol
from nova_lite.policies import server_images as si_pol
from nova_lite.policies import server_interfaces as sif_pol
from nova_lite.policies import server_metadata as sm_pol
from nova_lite.policies import server_migrations as smg_pol
from nova_lite.policies import server_resize as sr_pol
from nova_lite.policies import server_shares as shr_pol
from nova_lite.policies import server_shelve as ssh_pol
from nova_lite.policies import server_tags as st_pol
from nova_lite.policies import servers as sv_pol
from nova_lite.policies import services as svc_pol
from nova_lite.policies import simple_tenant_usage as stu_pol
from nova_lite.policies import volume_attachments as va_pol
from nova_lite.policies import volumes as vol_pol


class Route(collections.namedtuple('Route', [
        'method', 'path', 'controller', 'handler', 'policies',
        'min_version', 'max_version', 'actions'])):
    """``method path``: ``controller(*path params).handler()``."""


class Action(collections.namedtuple('Action', [
        'name', 'handler', 'status', 'policies', 'min_version',
        'max_version'])):
    """One action of a route: ``handler(controller, body=body)``,
    answering ``status``."""


def route(method, path, controller, handler, policies=(), since=None,
          until=None, actions=()):
    """A route; ``since``/``until``: its first and last microversion."""
    return Route(method, path, controller, handler, tuple(policies),
                 since, until, tuple(actions))


def action(name, handler, policies=(), status=202, since=None, until=None):
    return Action(name, handler, status, tuple(policies), since, until)


_SHOW_SERVER = (sv_pol.SHOW_HOST_STATUS, sv_pol.SHOW_HOST_STATUS_UNKNOWN,
                sv_pol.EXTENDED_ATTRIBUTES, sv_pol.SHOW_FLAVOR_EXTRA_SPECS)
_BY_UUID = av.SERVICE_HYPERVISOR_UUID_IDS
_ServerActions = server_actions.ServerActionController
_Service = services.ServiceController


ROUTES = (
    # --- versions ---------------------------------------------------------
    route('GET', '/', versions.V21Controller, 'index'),

    # --- servers ----------------------------------------------------------
    route('GET', '/servers', servers.ServersController, 'index',
          [sv_pol.INDEX, sv_pol.INDEX_ALL_TENANTS, sv_pol.ALLOW_ALL_FILTERS]),
    route('POST', '/servers', servers.ServersController, 'post',
          [sv_pol.CREATE, sv_pol.CREATE_FORCED_HOST,
           sv_pol.CREATE_REQUESTED_DESTINATION, sv_pol.CREATE_ATTACH_VOLUME,
           sv_pol.CREATE_ATTACH_NETWORK, sv_pol.CREATE_TRUSTED_CERTS,
           sv_pol.CREATE_ZERO_DISK_FLAVOR]),
    route('GET', '/servers/detail', servers.ServersController, 'detail',
          [sv_pol.DETAIL, sv_pol.DETAIL_ALL_TENANTS, sv_pol.ALLOW_ALL_FILTERS,
           *_SHOW_SERVER]),
    route('GET', '/servers/{server_id}', servers.ServerController, 'index',
          [sv_pol.SHOW, *_SHOW_SERVER]),
    route('PUT', '/servers/{server_id}', servers.ServerController, 'put',
          [sv_pol.UPDATE, *_SHOW_SERVER]),
    route('DELETE', '/servers/{server_id}', servers.ServerController,
          'delete', [sv_pol.DELETE]),

    # --- servers: actions -------------------------------------------------
    route('POST', '/servers/{server_id}/action', _ServerActions, 'post',
          actions=[
              action('os-start', _ServerActions.start, [sa_pol.START]),
              action('os-stop', _ServerActions.stop, [sa_pol.STOP]),
              action('reboot', _ServerActions.reboot, [sa_pol.REBOOT]),
              action('pause', _ServerActions.pause, [sa_pol.PAUSE]),
              action('unpause', _ServerActions.unpause, [sa_pol.UNPAUSE]),
              action('suspend', _ServerActions.suspend, [sa_pol.SUSPEND]),
              action('resume', _ServerActions.resume, [sa_pol.RESUME]),
              action('lock', _ServerActions.lock, [sa_pol.LOCK]),
              action('unlock', _ServerActions.unlock,
                     [sa_pol.UNLOCK, sa_pol.UNLOCK_OVERRIDE]),
              action('os-resetState', _ServerActions.reset_state,
                     [sa_pol.RESET_STATE]),
              # Gone with nova-network (410, no policy), as in Nova 34.
              action('resetNetwork', _ServerActions.reset_network, []),
              action('rebuild', _ServerActions.rebuild,
                     [si_pol.REBUILD, si_pol.REBUILD_TRUSTED_CERTS]),
              action('createImage', _ServerActions.create_image,
                     [si_pol.CREATE_IMAGE, si_pol.CREATE_IMAGE_VOLUME_BACKED]),
              action('resize', _ServerActions.resize,
                     [sr_pol.RESIZE, sr_pol.CROSS_CELL]),
              action('confirmResize', _ServerActions.confirm_resize,
                     [sr_pol.CONFIRM_RESIZE], status=204),
              action('revertResize', _ServerActions.revert_resize,
                     [sr_pol.REVERT_RESIZE]),
              action('migrate', _ServerActions.migrate,
                     [sr_pol.MIGRATE, sr_pol.MIGRATE_HOST]),
              action('os-migrateLive', _ServerActions.migrate_live,
                     [ml_pol.MIGRATE_LIVE, ml_pol.MIGRATE_LIVE_HOST]),
              # consoles and introspection
              action('os-getConsoleOutput', _ServerActions.get_console_output,
                     [sc_pol.CONSOLE_OUTPUT], status=200),
              action('os-getVNCConsole', _ServerActions.get_vnc_console,
                     [sc_pol.REMOTE_CONSOLES], status=200,
                     until=av.before(av.REMOTE_CONSOLES)),
              action('os-getSPICEConsole', _ServerActions.get_spice_console,
                     [sc_pol.REMOTE_CONSOLES], status=200,
                     until=av.before(av.REMOTE_CONSOLES)),
              action('os-getRDPConsole', _ServerActions.get_rdp_console,
                     [sc_pol.REMOTE_CONSOLES], status=200,
                     until=av.before(av.REMOTE_CONSOLES)),
              action('os-getSerialConsole',
                     _ServerActions.get_serial_console,
                     [sc_pol.REMOTE_CONSOLES], status=200,
                     until=av.before(av.REMOTE_CONSOLES)),
              action('trigger_crash_dump', _ServerActions.trigger_crash_dump,
                     [sc_pol.TRIGGER_CRASH_DUMP],
                     since=av.TRIGGER_CRASH_DUMP),
              action('injectNetworkInfo', _ServerActions.inject_network_info,
                     [sc_pol.INJECT_NETWORK_INFO]),

              action('shelve', _ServerActions.shelve, [ssh_pol.SHELVE]),
              action('shelveOffload', _ServerActions.shelve_offload,
                     [ssh_pol.SHELVE_OFFLOAD]),
              action('unshelve', _ServerActions.unshelve,
                     [ssh_pol.UNSHELVE, ssh_pol.UNSHELVE_TO_HOST]),
              action('rescue', _ServerActions.rescue, [ssh_pol.RESCUE],
                     status=200),
              action('unrescue', _ServerActions.unrescue,
                     [ssh_pol.UNRESCUE]),
              action('createBackup', _ServerActions.create_backup,
                     [sb_pol.CREATE_BACKUP]),
              action('changePassword', _ServerActions.change_password,
                     [sb_pol.CHANGE_PASSWORD]),
              action('restore', _ServerActions.restore, [sb_pol.RESTORE]),
              action('forceDelete', _ServerActions.force_delete,
                     [sb_pol.FORCE_DELETE]),
              action('evacuate', _ServerActions.evacuate, [sev_pol.EVACUATE],
                     status=200),

              action('addSecurityGroup', _ServerActions.add_security_group,
                     [secgrp_pol.ADD]),
              action('removeSecurityGroup',
                     _ServerActions.remove_security_group,
                     [secgrp_pol.REMOVE]),
              # Below 2.44, as Nova 34.
              action('addFloatingIp', _ServerActions.add_floating_ip,
                     [fip_pol.ADD], until=floating_ips.LAST_ACTIONS),
              action('removeFloatingIp', _ServerActions.remove_floating_ip,
                     [fip_pol.REMOVE], until=floating_ips.LAST_ACTIONS),
              action('addFixedIp', _ServerActions.add_fixed_ip,
                     [fip_pol.ADD_FIXED_IP], until=floating_ips.LAST_ACTIONS),
              action('removeFixedIp', _ServerActions.remove_fixed_ip,
                     [fip_pol.REMOVE_FIXED_IP],
                     until=floating_ips.LAST_ACTIONS),
          ]),

    # --- servers: sub-resources -------------------------------------------
    route('GET', '/servers/{server_id}/ips', servers.IPsController, 'index',
          [sv_pol.IPS_INDEX]),
    route('GET', '/servers/{server_id}/ips/{network_label}',
          servers.IPController, 'index', [sv_pol.IPS_SHOW]),
    route('GET', '/servers/{server_id}/metadata',
          server_metadata.ServerMetadataController, 'index', [sm_pol.INDEX]),
    route('POST', '/servers/{server_id}/metadata',
          server_metadata.ServerMetadataController, 'post', [sm_pol.CREATE]),
    route('PUT', '/servers/{server_id}/metadata',
          server_metadata.ServerMetadataController, 'put',
          [sm_pol.UPDATE_ALL]),
    route('GET', '/servers/{server_id}/metadata/{key}',
          server_metadata.ServerMetadataItemController, 'index',
          [sm_pol.SHOW]),
    route('PUT', '/servers/{server_id}/metadata/{key}',
          server_metadata.ServerMetadataItemController, 'put',
          [sm_pol.UPDATE]),
    route('DELETE', '/servers/{server_id}/metadata/{key}',
          server_metadata.ServerMetadataItemController, 'delete',
          [sm_pol.DELETE]),
    route('GET', '/servers/{server_id}/os-instance-actions',
          instance_actions.InstanceActionsController, 'index',
          [ia_pol.LIST]),
    route('GET', '/servers/{server_id}/os-instance-actions/{request_id}',
          instance_actions.InstanceActionController, 'index',
          [ia_pol.SHOW, ia_pol.EVENTS, ia_pol.EVENTS_DETAILS]),
    route('GET', '/servers/{server_id}/migrations',
          server_migrations.ServerMigrationsController, 'index',
          [smg_pol.INDEX, smg_pol.INDEX_HOST], since=av.SERVER_MIGRATIONS),
    route('GET', '/servers/{server_id}/migrations/{migration_id}',
          server_migrations.ServerMigrationController, 'index',
          [smg_pol.SHOW, smg_pol.INDEX_HOST], since=av.SERVER_MIGRATIONS),
    route('DELETE', '/servers/{server_id}/migrations/{migration_id}',
          server_migrations.ServerMigrationController, 'delete',
          [smg_pol.DELETE], since=av.LIVE_MIGRATION_ABORT),
    route('POST', '/servers/{server_id}/migrations/{migration_id}/action',
          server_migrations.ServerMigrationActionController, 'post',
          actions=[
              action('force_complete',
                     server_migrations.ServerMigrationActionController
                     .force_complete, [smg_pol.FORCE_COMPLETE],
                     since=av.LIVE_MIGRATION_FORCE_COMPLETE),
          ]),
    route('GET', '/servers/{server_id}/tags', server_tags.ServerTagsController,
          'index', [st_pol.INDEX], since=av.SERVER_TAGS),
    route('PUT', '/servers/{server_id}/tags', server_tags.ServerTagsController,
          'put', [st_pol.UPDATE_ALL], since=av.SERVER_TAGS),
    route('DELETE', '/servers/{server_id}/tags',
          server_tags.ServerTagsController, 'delete', [st_pol.DELETE_ALL],
          since=av.SERVER_TAGS),
    route('GET', '/servers/{server_id}/tags/{tag}',
          server_tags.ServerTagController, 'index', [st_pol.SHOW],
          since=av.SERVER_TAGS),
    route('PUT', '/servers/{server_id}/tags/{tag}',
          server_tags.ServerTagController, 'put', [st_pol.UPDATE],
          since=av.SERVER_TAGS),
    route('DELETE', '/servers/{server_id}/tags/{tag}',
          server_tags.ServerTagController, 'delete', [st_pol.DELETE],
          since=av.SERVER_TAGS),
    route('GET', '/servers/{server_id}/os-volume_attachments',
          volume_attachments.VolumeAttachmentsController, 'index',
          [va_pol.INDEX]),
    route('POST', '/servers/{server_id}/os-volume_attachments',
          volume_attachments.VolumeAttachmentsController, 'post',
          [va_pol.CREATE]),
    route('GET', '/servers/{server_id}/os-volume_attachments/{volume_id}',
          volume_attachments.VolumeAttachmentController, 'index',
          [va_pol.SHOW]),
    route('PUT', '/servers/{server_id}/os-volume_attachments/{volume_id}',
          volume_attachments.VolumeAttachmentController, 'put',
          [va_pol.UPDATE, va_pol.SWAP]),
    route('DELETE', '/servers/{server_id}/os-volume_attachments/{volume_id}',
          volume_attachments.VolumeAttachmentController, 'delete',
          [va_pol.DELETE]),
    route('GET', '/servers/{server_id}/shares',
          server_shares.ServerSharesController, 'index', [shr_pol.INDEX],
          since=av.SERVER_SHARES),
    route('POST', '/servers/{server_id}/shares',
          server_shares.ServerSharesController, 'post', [shr_pol.CREATE],
          since=av.SERVER_SHARES),
    route('GET', '/servers/{server_id}/shares/{share_id}',
          server_shares.ServerShareController, 'index', [shr_pol.SHOW],
          since=av.SERVER_SHARES),
    route('DELETE', '/servers/{server_id}/shares/{share_id}',
          server_shares.ServerShareController, 'delete', [shr_pol.DELETE],
          since=av.SERVER_SHARES),
    route('GET', '/servers/{server_id}/os-server-password',
          server_backup_actions.ServerPasswordController, 'index',
          [sb_pol.PASSWORD_SHOW]),
    route('DELETE', '/servers/{server_id}/os-server-password',
          server_backup_actions.ServerPasswordController, 'delete',
          [sb_pol.PASSWORD_CLEAR]),

    # --- flavors ----------------------------------------------------------
    route('GET', '/flavors', flavors.FlavorsController, 'index',
          [fl_pol.EXTRA_SPECS_INDEX]),
    route('POST', '/flavors', flavors.FlavorsController, 'post',
          [fl_pol.CREATE, fl_pol.EXTRA_SPECS_INDEX]),
    route('GET', '/flavors/detail', flavors.FlavorsController, 'detail',
          [fl_pol.EXTRA_SPECS_INDEX]),
    route('GET', '/flavors/{flavor_id}', flavors.FlavorController, 'index',
          [fl_pol.EXTRA_SPECS_INDEX]),
    route('PUT', '/flavors/{flavor_id}', flavors.FlavorController, 'put',
          [fl_pol.UPDATE, fl_pol.EXTRA_SPECS_INDEX],
          since=av.FLAVOR_DESCRIPTION),
    route('DELETE', '/flavors/{flavor_id}', flavors.FlavorController,
          'delete', [fl_pol.DELETE]),
    route('POST', '/flavors/{flavor_id}/action',
          flavor_access.FlavorActionController, 'post', actions=[
              action('addTenantAccess',
                     flavor_access.FlavorActionController.add_tenant_access,
                     [fl_pol.ACCESS_ADD], status=200),
              action('removeTenantAccess',
                     flavor_access.FlavorActionController.remove_tenant_access,
                     [fl_pol.ACCESS_REMOVE], status=200),
          ]),
    route('GET', '/flavors/{flavor_id}/os-flavor-access',
          flavor_access.FlavorAccessController, 'index', [fl_pol.ACCESS_LIST]),
    route('GET', '/flavors/{flavor_id}/os-extra_specs',
          flavor_extra_specs.ExtraSpecsController, 'index',
          [fl_pol.EXTRA_SPECS_INDEX]),
    route('POST', '/flavors/{flavor_id}/os-extra_specs',
          flavor_extra_specs.ExtraSpecsController, 'post',
          [fl_pol.EXTRA_SPECS_CREATE]),
    route('GET', '/flavors/{flavor_id}/os-extra_specs/{key}',
          flavor_extra_specs.ExtraSpecController, 'index',
          [fl_pol.EXTRA_SPECS_SHOW]),
    route('PUT', '/flavors/{flavor_id}/os-extra_specs/{key}',
          flavor_extra_specs.ExtraSpecController, 'put',
          [fl_pol.EXTRA_SPECS_UPDATE]),
    route('DELETE', '/flavors/{flavor_id}/os-extra_specs/{key}',
          flavor_extra_specs.ExtraSpecController, 'delete',
          [fl_pol.EXTRA_SPECS_DELETE]),

    # --- keypairs ---------------------------------------------------------
    route('GET', '/os-keypairs', keypairs.KeypairsController, 'index',
          [kp_pol.INDEX]),
    route('POST', '/os-keypairs', keypairs.KeypairsController, 'post',
          [kp_pol.CREATE]),
    route('GET', '/os-keypairs/{keypair_name}', keypairs.KeypairController,
          'index', [kp_pol.SHOW]),
    route('DELETE', '/os-keypairs/{keypair_name}', keypairs.KeypairController,
          'delete', [kp_pol.DELETE]),

    # --- images (proxy) ---------------------------------------------------
    route('GET', '/images', images.ImagesController, 'index',
          until=images.LAST),
    route('GET', '/images/detail', images.ImagesController, 'detail',
          until=images.LAST),
    route('GET', '/images/{image_id}', images.ImageController, 'index',
          until=images.LAST),
    route('DELETE', '/images/{image_id}', images.ImageController, 'delete',
          until=images.LAST),
    route('GET', '/images/{image_id}/metadata',
          image_metadata.ImageMetadataController, 'index',
          until=image_metadata.LAST),
    route('POST', '/images/{image_id}/metadata',
          image_metadata.ImageMetadataController, 'post',
          until=image_metadata.LAST),
    route('PUT', '/images/{image_id}/metadata',
          image_metadata.ImageMetadataController, 'put',
          until=image_metadata.LAST),
    route('GET', '/images/{image_id}/metadata/{key}',
          image_metadata.ImageMetadataItemController, 'index',
          until=image_metadata.LAST),
    route('PUT', '/images/{image_id}/metadata/{key}',
          image_metadata.ImageMetadataItemController, 'put',
          until=image_metadata.LAST),
    route('DELETE', '/images/{image_id}/metadata/{key}',
          image_metadata.ImageMetadataItemController, 'delete',
          until=image_metadata.LAST),

    # --- availability zones -----------------------------------------------
    route('GET', '/os-availability-zone',
          availability_zone.AvailabilityZoneController, 'index',
          [az_pol.LIST]),
    route('GET', '/os-availability-zone/detail',
          availability_zone.AvailabilityZoneController, 'detail',
          [az_pol.DETAIL]),

    # --- hypervisors ------------------------------------------------------
    route('GET', '/os-hypervisors', hypervisors.HypervisorsController,
          'index', [hv_pol.LIST]),
    route('GET', '/os-hypervisors/detail', hypervisors.HypervisorsController,
          'detail', [hv_pol.LIST_DETAIL]),
    route('GET', '/os-hypervisors/statistics',
          hypervisors.HypervisorsController, 'statistics',
          [hv_pol.STATISTICS], until=hypervisors.LAST_WITH_CAPACITY),
    route('GET', '/os-hypervisors/{hypervisor_id}',
          hypervisors.HypervisorController, 'index', [hv_pol.SHOW]),
    route('GET', '/os-hypervisors/{hypervisor_id}/uptime',
          hypervisors.HypervisorController, 'uptime', [hv_pol.UPTIME],
          until=hypervisors.LAST_WITH_UPTIME_ROUTE),
    route('GET', '/os-hypervisors/{hypervisor_hostname_pattern}/search',
          hypervisors.HypervisorController, 'search', [hv_pol.SEARCH],
          until=hypervisors.LAST_LEGACY),
    route('GET', '/os-hypervisors/{hypervisor_hostname_pattern}/servers',
          hypervisors.HypervisorController, 'servers', [hv_pol.SERVERS],
          until=hypervisors.LAST_LEGACY),

    # --- migrations -------------------------------------------------------
    route('GET', '/os-migrations', migrations.MigrationsController, 'index',
          [mg_pol.INDEX, mg_pol.INDEX_ALL_PROJECTS, mg_pol.INDEX_HOST]),

    # --- services ---------------------------------------------------------
    route('GET', '/os-services', services.ServicesController, 'index',
          [svc_pol.LIST]),
    # Before 2.53 the path names an action on the service the body names.
    route('PUT', '/os-services/{service_id}', _Service, 'put',
          [svc_pol.UPDATE], actions=[
              action('enable', _Service.enable, [svc_pol.UPDATE],
                     status=200, until=av.before(_BY_UUID)),
              action('disable', _Service.disable, [svc_pol.UPDATE],
                     status=200, until=av.before(_BY_UUID)),
              action('disable-log-reason', _Service.disable_log_reason,
                     [svc_pol.UPDATE], status=200,
                     until=av.before(_BY_UUID)),
              action('force-down', _Service.force_down, [svc_pol.UPDATE],
                     status=200, since=av.SERVICE_FORCED_DOWN,
                     until=av.before(_BY_UUID)),
          ]),
    route('DELETE', '/os-services/{service_id}', _Service, 'delete',
          [svc_pol.DELETE]),

    # --- host aggregates --------------------------------------------------
    route('GET', '/os-aggregates', aggregates.AggregatesController, 'index',
          [agg_pol.INDEX]),
    route('POST', '/os-aggregates', aggregates.AggregatesController, 'post',
          [agg_pol.CREATE]),
    route('GET', '/os-aggregates/{aggregate_id}',
          aggregates.AggregateController, 'index', [agg_pol.SHOW]),
    route('PUT', '/os-aggregates/{aggregate_id}',
          aggregates.AggregateController, 'put', [agg_pol.UPDATE]),
    route('DELETE', '/os-aggregates/{aggregate_id}',
          aggregates.AggregateController, 'delete', [agg_pol.DELETE]),
    route('POST', '/os-aggregates/{aggregate_id}/action',
          aggregates.AggregateController, 'post', actions=[
              action('add_host', aggregates.AggregateController.add_host,
                     [agg_pol.ADD_HOST], status=200),
              action('remove_host',
                     aggregates.AggregateController.remove_host,
                     [agg_pol.REMOVE_HOST], status=200),
              action('set_metadata',
                     aggregates.AggregateController.set_metadata,
                     [agg_pol.SET_METADATA], status=200),
          ]),
    route('POST', '/os-aggregates/{aggregate_id}/images',
          aggregates.AggregateImagesController, 'post', [agg_pol.IMAGES],
          since=av.AGGREGATE_IMAGES),

    # --- limits and quotas ------------------------------------------------
    route('GET', '/limits', quotas.LimitsController, 'index',
          [qt_pol.LIMITS, qt_pol.LIMITS_OTHER_PROJECT]),
    route('GET', '/os-quota-sets/{project_id}', quotas.QuotaSetController,
          'index', [qt_pol.QS_SHOW]),
    route('PUT', '/os-quota-sets/{project_id}', quotas.QuotaSetController,
          'put', [qt_pol.QS_UPDATE]),
    route('DELETE', '/os-quota-sets/{project_id}',
          quotas.QuotaSetController, 'delete', [qt_pol.QS_DELETE]),
    route('GET', '/os-quota-sets/{project_id}/defaults',
          quotas.QuotaSetDefaultsController, 'index', [qt_pol.QS_DEFAULTS]),
    route('GET', '/os-quota-sets/{project_id}/detail',
          quotas.QuotaSetDetailController, 'index', [qt_pol.QS_DETAIL]),
    route('GET', '/os-quota-class-sets/{class_name}',
          quotas.QuotaClassSetController, 'index', [qt_pol.QCS_SHOW]),
    route('PUT', '/os-quota-class-sets/{class_name}',
          quotas.QuotaClassSetController, 'put', [qt_pol.QCS_UPDATE]),

    # --- server groups ----------------------------------------------------
    route('GET', '/os-server-groups', server_groups.ServerGroupsController,
          'index', [sg_pol.INDEX, sg_pol.INDEX_ALL_PROJECTS]),
    route('POST', '/os-server-groups', server_groups.ServerGroupsController,
          'post', [sg_pol.CREATE]),
    route('GET', '/os-server-groups/{server_group_id}',
          server_groups.ServerGroupController, 'index', [sg_pol.SHOW]),
    route('DELETE', '/os-server-groups/{server_group_id}',
          server_groups.ServerGroupController, 'delete', [sg_pol.DELETE]),

    # --- extensions (the fixed v2 list) -----------------------------------
    route('GET', '/extensions', extensions.ExtensionsController, 'index',
          [ext_pol.BASE]),
    route('GET', '/extensions/{alias}', extensions.ExtensionController,
          'index', [ext_pol.BASE]),

    # --- usage ------------------------------------------------------------
    route('GET', '/os-simple-tenant-usage',
          simple_tenant_usage.UsagesController, 'index', [stu_pol.LIST]),
    route('GET', '/os-simple-tenant-usage/{tenant_id}',
          simple_tenant_usage.UsageController, 'index', [stu_pol.SHOW]),
    route('GET', '/os-instance_usage_audit_log',
          instance_usage_audit_log.AuditLogsController, 'index',
          [iual_pol.LIST]),
    route('GET', '/os-instance_usage_audit_log/{before_timestamp}',
          instance_usage_audit_log.AuditLogController, 'index',
          [iual_pol.SHOW]),

    # --- consoles and introspection ---------------------------------------
    route('POST', '/servers/{server_id}/remote-consoles',
          remote_consoles.RemoteConsolesController, 'post',
          [sc_pol.REMOTE_CONSOLES], since=av.REMOTE_CONSOLES),
    route('GET', '/os-console-auth-tokens/{console_token}',
          remote_consoles.ConsoleAuthTokenController, 'index',
          [sc_pol.CONSOLE_AUTH_TOKENS]),
    route('GET', '/servers/{server_id}/diagnostics',
          remote_consoles.DiagnosticsController, 'index',
          [sc_pol.DIAGNOSTICS]),
    route('GET', '/servers/{server_id}/topology',
          remote_consoles.TopologyController, 'index',
          [sc_pol.TOPOLOGY, sc_pol.TOPOLOGY_HOST],
          since=av.SERVER_TOPOLOGY),

    # --- servers: security groups -----------------------------------------
    route('GET', '/servers/{server_id}/os-security-groups',
          security_groups.ServerSecurityGroupsController, 'index',
          [secgrp_pol.LIST]),

    # --- servers: interfaces ----------------------------------------------
    route('GET', '/servers/{server_id}/os-interface',
          server_interfaces.ServerInterfacesController, 'index',
          [sif_pol.LIST]),
    route('POST', '/servers/{server_id}/os-interface',
          server_interfaces.ServerInterfacesController, 'post',
          [sif_pol.CREATE]),
    route('GET', '/servers/{server_id}/os-interface/{port_id}',
          server_interfaces.ServerInterfaceController, 'index',
          [sif_pol.SHOW]),
    route('DELETE', '/servers/{server_id}/os-interface/{port_id}',
          server_interfaces.ServerInterfaceController, 'delete',
          [sif_pol.DELETE]),

    # --- server external events -------------------------------------------
    route('POST', '/os-server-external-events',
          server_external_events.ServerExternalEventsController, 'post',
          [see_pol.CREATE]),

    # --- assisted volume snapshots ----------------------------------------
    route('POST', '/os-assisted-volume-snapshots',
          assisted_volume_snapshots.AssistedVolumeSnapshotsController,
          'post', [avs_pol.CREATE]),
    route('DELETE', '/os-assisted-volume-snapshots/{snapshot_id}',
          assisted_volume_snapshots.AssistedVolumeSnapshotController,
          'delete', [avs_pol.DELETE]),

    # --- os-hosts (below 2.43) --------------------------------------------
    route('GET', '/os-hosts', hosts.HostsController, 'index',
          [host_pol.LIST], until=hosts.LAST),
    route('GET', '/os-hosts/{host_name}', hosts.HostController, 'index',
          [host_pol.SHOW], until=hosts.LAST),
    route('PUT', '/os-hosts/{host_name}', hosts.HostController, 'put',
          [host_pol.UPDATE], until=hosts.LAST),
    route('GET', '/os-hosts/{host_name}/reboot', hosts.HostController,
          'reboot', [host_pol.REBOOT], until=hosts.LAST),
    route('GET', '/os-hosts/{host_name}/shutdown', hosts.HostController,
          'shutdown', [host_pol.SHUTDOWN], until=hosts.LAST),
    route('GET', '/os-hosts/{host_name}/startup', hosts.HostController,
          'startup', [host_pol.START], until=hosts.LAST),

    # --- network proxies (below 2.36) -------------------------------------
    route('GET', '/os-networks', networks.NetworksController, 'index',
          [net_pol.NETWORKS_LIST], until=networks.LAST),
    route('GET', '/os-networks/{network_id}', networks.NetworkController,
          'index', [net_pol.NETWORKS_SHOW], until=networks.LAST),
    route('GET', '/os-tenant-networks', networks.TenantNetworksController,
          'index', [net_pol.TENANT_LIST], until=networks.LAST),
    route('GET', '/os-tenant-networks/{network_id}',
          networks.TenantNetworkController, 'index', [net_pol.TENANT_SHOW],
          until=networks.LAST),
    route('GET', '/os-floating-ip-pools', networks.FloatingIPPoolsController,
          'index', [net_pol.POOLS], until=networks.LAST),

    # --- floating-IP proxy (below 2.36) -----------------------------------
    route('GET', '/os-floating-ips', floating_ips.FloatingIPsController,
          'index', [fip_pol.LIST], until=floating_ips.LAST),
    route('POST', '/os-floating-ips', floating_ips.FloatingIPsController,
          'post', [fip_pol.CREATE], until=floating_ips.LAST),
    route('GET', '/os-floating-ips/{floating_ip_id}',
          floating_ips.FloatingIPController, 'index', [fip_pol.SHOW],
          until=floating_ips.LAST),
    route('DELETE', '/os-floating-ips/{floating_ip_id}',
          floating_ips.FloatingIPController, 'delete', [fip_pol.DELETE],
          until=floating_ips.LAST),

    # --- volume proxies (below 2.36) --------------------------------------
    route('GET', '/os-volumes', volumes.VolumesController, 'index',
          [vol_pol.LIST], until=volumes.LAST),
    route('POST', '/os-volumes', volumes.VolumesController, 'post',
          [vol_pol.CREATE], until=volumes.LAST),
    route('GET', '/os-volumes/detail', volumes.VolumesController, 'detail',
          [vol_pol.DETAIL], until=volumes.LAST),
    route('GET', '/os-volumes/{volume_id}', volumes.VolumeController,
          'index', [vol_pol.SHOW], until=volumes.LAST),
    route('DELETE', '/os-volumes/{volume_id}', volumes.VolumeController,
          'delete', [vol_pol.DELETE], until=volumes.LAST),
    route('GET', '/os-snapshots', volumes.SnapshotsController, 'index',
          [vol_pol.SNAPSHOTS_LIST], until=volumes.LAST),
    route('POST', '/os-snapshots', volumes.SnapshotsController, 'post',
          [vol_pol.SNAPSHOTS_CREATE], until=volumes.LAST),
    route('GET', '/os-snapshots/detail', volumes.SnapshotsController,
          'detail', [vol_pol.SNAPSHOTS_DETAIL], until=volumes.LAST),
    route('GET', '/os-snapshots/{snapshot_id}', volumes.SnapshotController,
          'index', [vol_pol.SNAPSHOTS_SHOW], until=volumes.LAST),
    route('DELETE', '/os-snapshots/{snapshot_id}',
          volumes.SnapshotController, 'delete', [vol_pol.SNAPSHOTS_DELETE],
          until=volumes.LAST),

    # --- security-group proxy (below 2.36) --------------------------------
    route('GET', '/os-security-groups',
          security_group_proxy.SecurityGroupsController, 'index',
          [secgrp_pol.GET], until=security_group_proxy.LAST),
    route('POST', '/os-security-groups',
          security_group_proxy.SecurityGroupsController, 'post',
          [secgrp_pol.CREATE], until=security_group_proxy.LAST),
    route('GET', '/os-security-groups/{security_group_id}',
          security_group_proxy.SecurityGroupController, 'index',
          [secgrp_pol.SHOW], until=security_group_proxy.LAST),
    route('PUT', '/os-security-groups/{security_group_id}',
          security_group_proxy.SecurityGroupController, 'put',
          [secgrp_pol.UPDATE], until=security_group_proxy.LAST),
    route('DELETE', '/os-security-groups/{security_group_id}',
          security_group_proxy.SecurityGroupController, 'delete',
          [secgrp_pol.DELETE], until=security_group_proxy.LAST),
    route('POST', '/os-security-group-rules',
          security_group_proxy.SecurityGroupRulesController, 'post',
          [secgrp_pol.RULE_CREATE], until=security_group_proxy.LAST),
    route('DELETE', '/os-security-group-rules/{rule_id}',
          security_group_proxy.SecurityGroupRuleController, 'delete',
          [secgrp_pol.RULE_DELETE], until=security_group_proxy.LAST),

    # --- gone: 410 at every version, no policy (as Nova 34) ---------------
    *[route(method, path, gone.GoneController,
            {'GET': 'index', 'POST': 'post', 'PUT': 'put',
             'DELETE': 'delete'}[method])
      for method, path in gone.ROUTES],
    *[route('POST', path, controller, 'post', actions=[
        action(name, controller.action) for name in names])
      for path, controller, names in gone.ACTION_ROUTES],
)

# /os-volumes_boot: the v2 alias of /servers (create, list, show, update,
# delete and the actions), as the Compute API serves it until 2.102.
_VOLUMES_BOOT_ALIASED = ('/servers', '/servers/detail',
                         '/servers/{server_id}',
                         '/servers/{server_id}/action')
_LAST_VOLUMES_BOOT = av.before(av.VOLUMES_BOOT_REMOVED)
ROUTES += tuple(
    r._replace(path='/os-volumes_boot' + r.path[len('/servers'):],
               max_version=_LAST_VOLUMES_BOOT,
               controller=(server_actions.VolumesBootActionController
                           if r.actions else r.controller))
    for r in ROUTES if r.path in _VOLUMES_BOOT_ALIASED)
