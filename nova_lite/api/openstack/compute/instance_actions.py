"""GET /servers/{server_id}/os-instance-actions[/{request_id}]: what
was done to a server, by whom, and (show) the steps services took."""
import pecan

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import instance_actions \
    as schemas
from nova_lite.api.openstack.compute.views import instance_actions \
    as views
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import server_actions
from nova_lite.conf import CONF
from nova_lite.policies import instance_actions as policies


def _instance(ctxt, server_id, rule):
    """The server (deleted ones too from 2.21) once rule allows the
    caller; 404 first for another project's."""
    deleted = wsgi.api_version() >= av.INSTANCE_ACTIONS_OF_DELETED
    instance = server_actions.get(ctxt, server_id,
                                  read_deleted='yes' if deleted else 'no')
    ctxt.can(rule, target={'project_id': instance.project_id})
    return instance


def _list_query(fn):
    fn = validation.query_schema(schemas.index_query_v266,
                                 av.INSTANCE_ACTIONS_CHANGES_BEFORE)(fn)
    return validation.query_schema(
        schemas.index_query_v258, av.INSTANCE_ACTIONS_PAGING,
        av.before(av.INSTANCE_ACTIONS_CHANGES_BEFORE))(fn)


def _builder(ctxt, instance):
    own = {'project_id': instance.project_id}
    return views.Builder(
        wsgi.api_version(),
        events=ctxt.can(policies.EVENTS, target=own, fatal=False),
        details=ctxt.can(policies.EVENTS_DETAILS, target=own, fatal=False))


class InstanceActionController(object):
    """/servers/{server_id}/os-instance-actions/{request_id}"""

    def __init__(self, server_id, request_id):
        self.server_id = server_id
        self.request_id = request_id

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    def index(self):
        ctxt = wsgi.request_context()
        instance = _instance(ctxt, self.server_id, policies.SHOW)
        action = server_actions.get_action(ctxt, instance, self.request_id)
        return _builder(ctxt, instance).show(action, instance.project_id)


class InstanceActionsController(object):
    """/servers/{server_id}/os-instance-actions"""

    def __init__(self, server_id):
        self.server_id = server_id

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    @_list_query
    def index(self, query=None):
        ctxt = wsgi.request_context()
        instance = _instance(ctxt, self.server_id, policies.LIST)
        limit = validation.last(query, 'limit')
        if limit is not None:
            limit = min(int(limit), CONF.api.max_limit)
        since, before = validation.changes_window(query)
        actions = server_actions.list_actions(
            ctxt, instance, limit=limit,
            marker=validation.last(query, 'marker'),
            changes_since=since, changes_before=before)
        return _builder(ctxt, instance).index(
            actions, '%s/servers/%s/os-instance-actions' % (
                pecan.request.application_url, self.server_id), limit)
