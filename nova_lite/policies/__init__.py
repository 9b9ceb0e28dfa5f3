"""Policy defaults, one module per resource; list_rules() gathers them
(the oslo.policy.policies entry point)."""
import itertools

from nova_lite.policies import aggregates
from nova_lite.policies import assisted_volume_snapshots
from nova_lite.policies import availability_zone
from nova_lite.policies import base
from nova_lite.policies import extensions
from nova_lite.policies import flavors
from nova_lite.policies import floating_ips
from nova_lite.policies import hosts
from nova_lite.policies import hypervisors
from nova_lite.policies import instance_actions
from nova_lite.policies import instance_usage_audit_log
from nova_lite.policies import keypairs
from nova_lite.policies import migrate_live
from nova_lite.policies import migrations
from nova_lite.policies import networks
from nova_lite.policies import quotas
from nova_lite.policies import security_groups
from nova_lite.policies import server_actions
from nova_lite.policies import server_backups
from nova_lite.policies import server_consoles
from nova_lite.policies import server_evacuate
from nova_lite.policies import server_external_events
from nova_lite.policies import server_groups
from nova_lite.policies import server_images
from nova_lite.policies import server_interfaces
from nova_lite.policies import server_metadata
from nova_lite.policies import server_migrations
from nova_lite.policies import server_resize
from nova_lite.policies import server_shares
from nova_lite.policies import server_shelve
from nova_lite.policies import server_tags
from nova_lite.policies import servers
from nova_lite.policies import services
from nova_lite.policies import simple_tenant_usage
from nova_lite.policies import volume_attachments
from nova_lite.policies import volumes


def list_rules():
    return list(itertools.chain(
        base.list_rules(),
        availability_zone.list_rules(),
        flavors.list_rules(),
        hypervisors.list_rules(),
        instance_actions.list_rules(),
        keypairs.list_rules(),
        migrations.list_rules(),
        migrate_live.list_rules(),
        server_actions.list_rules(),
        server_images.list_rules(),
        server_metadata.list_rules(),
        server_migrations.list_rules(),
        server_resize.list_rules(),
        server_tags.list_rules(),
        servers.list_rules(),
        services.list_rules(),
        volume_attachments.list_rules(),
        server_shares.list_rules(),
        aggregates.list_rules(),

        quotas.list_rules(),

        server_groups.list_rules(),

        extensions.list_rules(),
        simple_tenant_usage.list_rules(),
        instance_usage_audit_log.list_rules(),
        server_consoles.list_rules(),
        server_evacuate.list_rules(),

        server_shelve.list_rules(),
        server_backups.list_rules(),

        security_groups.list_rules(),
        server_interfaces.list_rules(),
        server_external_events.list_rules(),
        networks.list_rules(),
        volumes.list_rules(),
        floating_ips.list_rules(),
        hosts.list_rules(),
        assisted_volume_snapshots.list_rules(),
    ))
