"""The volumes attached to instances, read in bulk for server bodies
(os-extended-volumes:volumes_attached): one statement for a page."""
import sqlalchemy as sa

from nova_lite.db.main import api as main_db
from nova_lite.db.main import models

BDM = models.BlockDeviceMapping.__table__


@main_db.reader
def volumes_by_instance(context, instance_uuids):
    """{instance uuid: [{'volume_id', 'delete_on_termination'}]} of the
    live volume block device mappings of instance_uuids, in boot order."""
    found = {}
    if not instance_uuids:
        return found
    query = (sa.select(BDM.c.instance_uuid, BDM.c.volume_id,
                       BDM.c.delete_on_termination)
             .where(BDM.c.instance_uuid.in_(list(instance_uuids)),
                    BDM.c.volume_id.is_not(None), BDM.c.deleted == 0)
             .order_by(BDM.c.instance_uuid, BDM.c.boot_index, BDM.c.id))
    for uuid, volume_id, delete in context.session.execute(query):
        found.setdefault(uuid, []).append(
            {'volume_id': volume_id,
             'delete_on_termination': bool(delete)})
    return found
