"""Service processes on oslo.service: service record, heartbeat, RPC server.

A Service serves one or more RPC endpoints on (topic, host), one per role
it plays (a super conductor: object indirection and compute_task), plus
the 'baseapi' namespace. On start it finds or creates its service record,
lets each endpoint initialise, starts one RPC server for all of them and
two timers: the heartbeat (report_interval) and the endpoints' periodic
tasks. An endpoint may implement any of the hooks init_host(context,
service_ref), periodic_tasks(context, raise_on_error) -> seconds until
the next run, reset() (SIGHUP), stop_rpc_servers() and cleanup_host().
Which database and message queue it uses come from its base context: an
untargeted context uses [database]/[DEFAULT]; a context targeted at a
cell (all-in-one) uses that cell's; a compute's context carries an
indirection API instead of any database.

Whatever a process hooks into shared code, it hooks when its first
service starts (prepare_process), never on import: the instance.update
sender on Instance.save, and the start hooks of installed plugins
(entry-point group nova_lite.start_hooks).
"""
import copy
import importlib.metadata
import time

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_service import service as oslo_service

from nova_lite import baserpc
from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite.notifications import instance as notify
from nova_lite import objects
from nova_lite.objects import base as obj_base
from nova_lite.objects import service as service_obj
from nova_lite.objects import service_version
from nova_lite import rpc
from nova_lite import utils
from nova_lite import version

LOG = logging.getLogger(__name__)

# Entry-point group of callables run once per process, without
# arguments, as its first service starts (before it serves). nova_lite
# registers none; a plugin may add observers there, e.g. of the super
# conductor's steps (conductor.tasks.base.STEP_OBSERVERS: the tests'
# plugin, tests/plugin, kills or crashes a conductor at a step).
START_HOOKS = 'nova_lite.start_hooks'
# Whether prepare_process ran in this process.
_prepared = []


def prepare_process():
    """Once per process, as its first service (RPC or API) starts: send
    instance.update from Instance.save (notifications.instance.
    register_hooks), then run every START_HOOKS entry point installed."""
    if _prepared:
        return
    _prepared.append(True)
    notify.register_hooks()
    for hook in importlib.metadata.entry_points(group=START_HOOKS):
        LOG.info('Running start hook %s (%s)', hook.name, hook.value)
        hook.load()()


def check_down_time():
    """Warn, as Nova does, when [DEFAULT] service_down_time is not above
    2.5 report intervals: a service then counts as down only after
    service_obj.service_down_time() seconds (2.5 report intervals), so
    that one lost heartbeat never makes it look down."""
    if CONF.service_down_time < 2.5 * CONF.report_interval:
        LOG.warning('service_down_time (%(down)s s) must be more than 2.5 '
                    'report intervals (report_interval: %(interval)s s): '
                    'services count as down after %(used)s s instead',
                    {'down': CONF.service_down_time,
                     'interval': CONF.report_interval,
                     'used': service_obj.service_down_time()})


def heartbeat_timeout():
    """Seconds a heartbeat waits for its reply: at most one report
    interval (and never longer than rpc_response_timeout), so a reply
    lost in a broker restart costs one beat, not service_down_time."""
    return max(1, min(CONF.report_interval, CONF.rpc_response_timeout))


def _hooks(endpoints, name):
    return [hook for hook in (getattr(e, name, None) for e in endpoints)
            if hook is not None]


class Service(oslo_service.Service):
    def __init__(self, host, binary, topic, endpoints, base_context=None,
                 transport=None, context_hook=None, version=None):
        super().__init__()
        self.version = version or service_version.SERVICE_VERSION
        self.host = host
        self.binary = binary
        self.topic = topic
        self.endpoints = list(endpoints)
        self.context = base_context or nova_context.get_admin_context()
        self.transport = transport
        self.context_hook = context_hook
        self.service_ref = None
        self._heartbeat_ref = None
        self.rpcserver = None
        self._periodic = None

    def __repr__(self):
        return '<Service %s on %s>' % (self.binary, self.host)

    def _register(self):
        ctx = self.context
        try:
            ref = objects.Service.get_by_host_and_binary(ctx, self.host,
                                                         self.binary)
        except exception.HostBinaryNotFound:
            ref = objects.Service(ctx, host=self.host, binary=self.binary,
                                  topic=self.topic, report_count=0,
                                  version=self.version)
            ref.create()
            LOG.info('Created service record for %s on %s (%s)',
                     self.binary, self.host, ref.uuid)
            return ref
        if ref.version != self.version:
            LOG.info('%s on %s now runs service version %d (was %d)',
                     self.binary, self.host, self.version, ref.version)
            ref.version = self.version
            ref.save()
        return ref

    def check_version(self):
        """Refuse to start when too old for the deployment (see
        service_obj.check_can_start); raises ServiceTooOld or
        TooOldComputeService."""
        service_obj.check_can_start(
            self.context, self.binary, self.host, self.version,
            all_cells=bool(CONF.api_database.connection)
            and self.binary != constants.COMPUTE_BINARY)

    def reset(self):
        """SIGHUP: forget cached minimum service versions."""
        service_version.reset_min_version_cache()
        LOG.info('%s on %s reset (SIGHUP): minimum service versions will '
                 'be read again', self.binary, self.host)
        for reset_hook in _hooks(self.endpoints, 'reset'):
            reset_hook()

    def start(self):
        # As Nova's "Starting compute node (version ...)": which release
        # each process runs, for a rolling upgrade's operator.
        LOG.info('Starting %s on %s (version %s)', self.binary, self.host,
                 version.release_string())
        prepare_process()
        check_down_time()
        self.service_ref = self._register()
        self._heartbeat_ref = self._heartbeat_record()
        for init_host in _hooks(self.endpoints, 'init_host'):
            init_host(self.context, self.service_ref)
        if self.topic:
            target = messaging.Target(topic=self.topic, server=self.host)
            serializer = rpc.RequestContextSerializer(
                context_hook=self.context_hook)
            endpoints = self.endpoints + [baserpc.BaseRPCAPI(self.topic)]
            self.rpcserver = rpc.get_server(target, endpoints,
                                            serializer=serializer,
                                            transport=self.transport)
            self.rpcserver.start()
        self.report_state()
        self.tg.add_dynamic_timer_args(
            self._beat, initial_delay=CONF.report_interval,
            periodic_interval_max=CONF.report_interval,
            stop_on_exception=False)
        self._periodic = self.tg.add_dynamic_timer_args(
            self.periodic_tasks, initial_delay=CONF.periodic_interval,
            periodic_interval_max=CONF.periodic_interval,
            stop_on_exception=False)

    def _stop_rpcserver(self):
        if self.rpcserver is None:
            return
        try:
            self.rpcserver.stop()
            self.rpcserver.wait()
        except Exception:
            LOG.exception('Error stopping the RPC server')

    def _heartbeat_record(self):
        """The service record the heartbeat saves: under object
        indirection (a compute), one whose calls wait for a reply at most
        heartbeat_timeout() seconds instead of rpc_response_timeout, and
        give up sending after one connection retry instead of retrying
        for ever while the message queue is down."""
        ref = self.service_ref
        api = obj_base.indirection_api_for(ref)
        with_timeout = getattr(api, 'with_timeout', None)
        if with_timeout is None:
            return ref
        ctxt = copy.copy(ref._context)
        ctxt.indirection_api = with_timeout(heartbeat_timeout())
        beat = ref.obj_clone()
        beat._context = ctxt
        return beat

    def report_state(self):
        """Heartbeat; a database or message-queue blip is logged (one
        line, no traceback), never fatal: the next beat tries again."""
        ref = self._heartbeat_ref or self.service_ref
        try:
            ref.report_state()
            self._show_beat(ref)
        except messaging.MessagingTimeout:
            LOG.warning('Heartbeat of %s on %s got no reply within %s s; '
                        'next one in %s s', self.binary, self.host,
                        heartbeat_timeout(), CONF.report_interval)
        except rpc.SEND_FAILURES as exc:
            LOG.warning('Heartbeat of %s on %s could not be sent (%s); '
                        'next one in %s s', self.binary, self.host,
                        type(exc).__name__, CONF.report_interval)
        except Exception as exc:
            LOG.warning('Heartbeat of %s on %s failed: %s: %s',
                        self.binary, self.host, type(exc).__name__, exc)

    def _show_beat(self, ref):
        """The service's own record shows what its heartbeat (a record
        of its own, with the heartbeat's short timeout) reported."""
        if ref is self.service_ref:
            return
        beat = [name for name in ('report_count', 'last_seen_up',
                                  'updated_at') if ref.obj_attr_is_set(name)]
        for name in beat:
            setattr(self.service_ref, name, getattr(ref, name))
        self.service_ref.obj_reset_changes(beat)

    def _beat(self):
        """One timed heartbeat; seconds until the next. A beat that took
        longer than the interval is not followed by one at once (that
        would stack beats up behind a slow reply): the next waits for
        the next interval boundary, so a missed beat is skipped."""
        interval = CONF.report_interval
        started = time.monotonic()
        self.report_state()
        elapsed = time.monotonic() - started
        return interval - (elapsed % interval)

    def periodic_tasks(self, raise_on_error=False):
        """Run every endpoint's periodic tasks; seconds until the next
        run (the soonest any endpoint asks for)."""
        intervals = [tasks(self.context, raise_on_error=raise_on_error)
                     for tasks in _hooks(self.endpoints, 'periodic_tasks')]
        intervals = [i for i in intervals if i is not None]
        return min(intervals) if intervals else CONF.periodic_interval

    def _stop_periodic_tasks(self):
        if self._periodic is not None:
            self._periodic.stop()
            self._periodic.wait()   # a run in progress finishes

    def stop(self, graceful=True):
        """SIGTERM: stop taking work, finish the work taken, then return.

        In order: the periodic tasks stop (a run in progress finishes);
        the RPC servers stop consuming and finish every request they
        received (StopSafeRPCServer: one delivered after that is left for
        the broker to deliver again); the endpoints clean up; the
        heartbeat stops last, so the service reports up while it drains.
        oslo.service ends the process if this takes longer than [DEFAULT]
        graceful_shutdown_timeout.
        """
        LOG.info('Stopping %s on %s', self.binary, self.host)
        self._stop_periodic_tasks()
        # An RPC listener stops only when its current consume times out
        # (up to 5 s with rabbit): stop ours and the endpoints' other
        # servers (scheduler: placement on every cell) at the same time.
        utils.run_together(self._stop_rpcserver,
                           *_hooks(self.endpoints, 'stop_rpc_servers'))
        for cleanup_host in _hooks(self.endpoints, 'cleanup_host'):
            cleanup_host()
        self.tg.stop_timers()
        super().stop(graceful=graceful)
        LOG.info('Stopped %s on %s', self.binary, self.host)


def register_api_service(context, host, version):
    """Find or create the API's service record on ``host`` at ``version``
    (several workers may race: the loser uses the winner's record), as
    the API starts; from then on each message it sends retries
    connecting at most [api] rpc_send_retries times (a request fails
    with a 503 rather than hang while the message queue is down)."""
    rpc.bound_send_retries(CONF.api.rpc_send_retries)
    try:
        ref = objects.Service.get_by_host_and_binary(context, host,
                                                     constants.API_BINARY)
    except exception.HostBinaryNotFound:
        ref = objects.Service(context, host=host,
                              binary=constants.API_BINARY, topic=None,
                              report_count=0)
        try:
            ref.create()
        except exception.ServiceExists:
            ref = objects.Service.get_by_host_and_binary(context, host,
                                                         constants.API_BINARY)
    if ref.version != version:
        ref.version = version
        ref.save()
    return ref


class _Launcher(oslo_service.ServiceLauncher):
    """oslo.service's launcher, except that SIGINT (Ctrl-C) stops the
    services gracefully as SIGTERM does, instead of exiting at once with
    status 1. A second Ctrl-C during the stop interrupts it."""

    def handle_signal(self):
        self.signal_handler.clear()
        for name in ('SIGTERM', 'SIGINT'):
            self.signal_handler.add_handler(name, self._graceful_shutdown)
        self.signal_handler.add_handler('SIGHUP', self._reload_service)
        self.signal_handler.add_handler('SIGALRM', self._on_timeout_exit)


def serve(services, workers=None):
    """Launch services and wait; SIGTERM/SIGINT stop them gracefully."""
    launcher = _Launcher(CONF, restart_method='mutate')
    for svc in services:
        launcher.launch_service(svc, workers=1)
    return launcher
