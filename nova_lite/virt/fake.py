"""A simulated hypervisor: capacity from [fake_driver], guests kept on disk.

Guests survive a compute restart: per host under
<state_path>/fake-hypervisor/, <host>.json holds every guest as of its
last compaction and <host>.journal one JSON line per change since (the
guest's new state, null when it is gone), appended with one write. A
driver starting on the host reads both and compacts them (a new
<host>.json, replaced atomically, then an empty journal); so does the
JOURNAL_MAX-th change. A line is a whole guest's state, so replaying
it twice is harmless (a crash between the two steps of a compaction),
and a last line cut short by a crash is ignored.

With [fake_driver] guest_ssh, a running guest also answers SSH on its
local IPv4 addresses (fake_ssh) and runs commands in a small shell
(fake_guest). What it needs comes with the driver calls that make or
change it (their optional ``guest`` argument, see apply_guest_info) and
is kept in its record: its hostname, the public keys and the password
it accepts, its addresses, local disks and volumes, when it booted and
the files written on its root disk. Records from before these keys
load as they are (no such guest answers SSH until it is re-made).
"""
import hashlib
import json
import os
import threading
import time

import eventlet

from nova_lite.conf import CONF
from nova_lite import virt
from nova_lite.virt import fake_guest
from nova_lite.virt import fake_vnc
from nova_lite.virt import live_migration


# Guest power states kept on disk.
RUNNING, SHUTDOWN, PAUSED, SUSPENDED = (
    'running', 'shutdown', 'paused', 'suspended')


class SpawnFailed(Exception):
    pass


class SimulatedFailure(Exception):
    """A driver method named in [fake_driver] fail_methods was called."""


class GuestNotFound(Exception):
    pass


class GuestNotRunning(Exception):
    pass


# Changes journaled before the host's guests are compacted into one file.
JOURNAL_MAX = 1000

# Suffix of the key that keeps a resize's source guest (shut off, its
# disks kept) until the resize is confirmed or reverted; a resize to the
# same host then holds both guests side by side, as Nova's libvirt
# driver keeps <instance dir>_resize.
RESIZE_SUFFIX = '_resize'

# What a guest's console prints as it boots, and on an NMI.
BOOT_LINES = ('Linux version 6.1.0-nova-lite (simulated)\n'
              'Booting %(name)s\n'
              'cloud-init: reached target Cloud-init target\n'
              'login: ')
CRASH_LINES = ('Kernel panic - not syncing: NMI: Not continuing\n'
               'kdump: saving vmcore\n'
               'reboot: Restarting system')


def _boot(name):
    return BOOT_LINES % {'name': name}


def _sha256(text):
    return hashlib.sha256(text.encode()).hexdigest()


def apply_guest_info(guest, info, now=None):
    """Record in guest (a record) what the compute told about it (info,
    from a driver call's ``guest`` argument; every key optional):
    hostname, authorized_keys (public key lines), admin_password
    (kept as its SHA-256), addresses ({port id: [IP]}), root_gb,
    ephemeral_gb and swap_mb (its local disks, with root_gb 0 for a
    volume-backed server) and files ({path: text}: personality files
    written on its root disk)."""
    if not info:
        return guest
    for key in ('hostname', 'authorized_keys', 'addresses'):
        if info.get(key) is not None:
            guest[key] = info[key]
    if info.get('admin_password'):
        guest['admin_password_sha256'] = _sha256(info['admin_password'])
    if 'root_gb' in info:
        guest['local_disks'] = fake_guest.local_disks(
            info.get('root_gb') or 0, info.get('ephemeral_gb') or 0,
            info.get('swap_mb') or 0)
    if info.get('files'):
        files = guest.setdefault('files', {})
        for path, text in info['files'].items():
            files[os.path.normpath(os.path.join('/', path))] = text
    return guest


def _booted(guest, now=None):
    """guest (a record) boots now: a strictly later boot time than
    its last one."""
    now = time.time() if now is None else now
    guest['booted_at'] = max(now, (guest.get('booted_at') or 0) + 0.001)
    return guest


# The first port of each kind of console on a host.
CONSOLE_PORTS = {'vnc': 5900, 'spice': 5900, 'serial': 10000, 'rdp': 3389,
                 'mks': 902}
# Where a SPICE console's TLS port starts ([spice] require_secure).
SPICE_TLS_PORT = 6900


def _hook_value(table, method, host):
    """table's entry for method@host, else for method, else None."""
    for key in ('%s@%s' % (method, host), method):
        if key in table:
            return table[key]
    return None


def _hooked(method):
    """Run [fake_driver] delay_methods' sleep, then fail_methods'
    failure, before method (both read at each call, so a test may change
    them while the service runs)."""
    name = method.__name__

    def wrapper(self, *args, **kwargs):
        fd = CONF.fake_driver
        delay = _hook_value(fd.delay_methods, name, self.host)
        if delay:
            eventlet.sleep(float(delay))
        failing = set(fd.fail_methods)
        if name in failing or '%s@%s' % (name, self.host) in failing:
            raise SimulatedFailure('Simulated failure of %s on %s'
                                   % (name, self.host))
        return method(self, *args, **kwargs)
    wrapper.__name__ = name
    wrapper.__doc__ = method.__doc__
    wrapper.hooked = True
    return wrapper


def cached_images(directory, host):
    """The image ids cached on host's simulated hypervisor."""
    try:
        with open(os.path.join(directory, host + '.images')) as f:
            return json.load(f)
    except (OSError, ValueError):
        return []


class FakeDriver(object):
    """The simulated hypervisor. Every public method that acts on a guest
    honours [fake_driver] fail_methods and delay_methods (see _hooked).
    """

    def __init__(self, host):
        self.host = host
        self._lock = threading.Lock()
        base = os.path.join(CONF.state_path, 'fake-hypervisor', host)
        self._path = base + '.json'
        self._journal = base + '.journal'
        os.makedirs(os.path.dirname(base), exist_ok=True)
        self._console_dir = base + '-console'
        os.makedirs(self._console_dir, exist_ok=True)
        self._guests = self._load()
        # instance uuid -> its fake_vnc.Server (made when its VNC console
        # is first asked for, closed with the guest).
        self._vnc = {}
        self._compact()
        self._booted = time.time()   # the simulated host boots with us
        # The guests' SSH servers ([fake_driver] guest_ssh), started by
        # init_host; None when guests do not answer SSH.
        self._ssh = None

    def _load(self):
        return load_guests(os.path.dirname(self._path), self.host)

    def _compact(self):
        # One write of the C encoder's text (json.dump encodes in Python,
        # chunk by chunk).
        data = json.dumps(self._guests)
        tmp = self._path + '.tmp'
        with open(tmp, 'w') as f:
            f.write(data)
        os.replace(tmp, self._path)  # atomic: a crash keeps the old file
        with open(self._journal, 'wb'):
            pass
        self._changes = 0

    def _persist(self, instance_uuid):
        """Journal the current state of instance_uuid's guest and of its
        set-aside resize copy (under self._lock)."""
        keys = (instance_uuid, instance_uuid + RESIZE_SUFFIX)
        line = json.dumps({key: self._guests.get(key) for key in keys})
        fd = os.open(self._journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT,
                     0o644)
        try:
            os.write(fd, line.encode() + b'\n')
        finally:
            os.close(fd)
        self._changes += 1
        if self._changes >= JOURNAL_MAX:
            self._compact()
        if self._ssh is not None:
            self._sync_ssh(instance_uuid)

    def init_host(self, host):
        """Start the running guests' SSH servers ([fake_driver]
        guest_ssh)."""
        if not CONF.fake_driver.guest_ssh or self._ssh is not None:
            return
        from nova_lite.virt import fake_ssh
        self._ssh = fake_ssh.GuestSSH(self.host, self._login,
                                      self.run_in_guest)
        with self._lock:
            for key in list(self._guests):
                if not key.endswith(RESIZE_SUFFIX):
                    self._sync_ssh(key)

    def cleanup_host(self, host):
        """Stop the guests' SSH servers (the compute service stops)."""
        if self._ssh is not None:
            self._ssh.close()
            self._ssh = None

    # Guest SSH ([fake_driver] guest_ssh).

    def _sync_ssh(self, instance_uuid):
        """The guest answers SSH on its addresses while it runs (not
        while it is an incoming live-migration copy), else not."""
        guest = self._guests.get(instance_uuid)
        addresses = []
        if guest is not None and guest.get('power_state') == RUNNING and (
                not guest.get('incoming')):
            for ips in (guest.get('addresses') or {}).values():
                addresses.extend(ips)
        self._ssh.sync(instance_uuid, addresses)

    def ssh_addresses(self, instance_uuid):
        """The addresses where the guest answers SSH now ([] without
        guest_ssh)."""
        if self._ssh is None:
            return []
        return self._ssh.listening(instance_uuid)

    def _login(self, instance_uuid):
        """What the running guest accepts at login: {'authorized_keys',
        'passwords' (SHA-256 hex)}; None when it does not run. A
        rescued guest takes its rescue password (else its own)."""
        guest = self._guests.get(instance_uuid)
        if guest is None or guest.get('power_state') != RUNNING:
            return None
        password = guest.get('admin_password_sha256')
        if guest.get('rescue_image_ref') and guest.get(
                'rescue_password_sha256'):
            password = guest['rescue_password_sha256']
        return {'authorized_keys': guest.get('authorized_keys') or [],
                'passwords': [password] if password else []}

    def _elsewhere(self, key):
        """key's record on another host of this state directory (the
        storage a move copies the guest's disk from), or None."""
        directory = os.path.dirname(self._path)
        for name in sorted(os.listdir(directory)):
            if name.endswith('.json') and name != self.host + '.json':
                found = load_guests(directory, name[:-len('.json')]).get(key)
                if found:
                    return found
        return None

    def _files_elsewhere(self, key):
        """The files on the root disk of key's record, here (a resize
        to the same host) or on another host."""
        source = self._guests.get(key) or self._elsewhere(key) or {}
        return dict(source.get('files') or {})

    def run_in_guest(self, instance_uuid, user, command):
        """(status, stdout, stderr) of command run by user in the
        running guest's shell; what it writes stays on its root disk.
        GuestNotRunning when it does not run (GuestNotFound: none)."""
        with self._lock:
            guest = self._guests.get(instance_uuid)
            if guest is None:
                raise GuestNotFound('No guest %s on %s'
                                    % (instance_uuid, self.host))
            if guest.get('power_state') != RUNNING:
                raise GuestNotRunning('Guest %s is not running'
                                      % instance_uuid)
            booted = guest.get('booted_at')
            snapshot = json.loads(json.dumps(guest))
        shell = fake_guest.Shell(snapshot, user)
        result = shell.run(command)
        before = snapshot.get('files') or {}
        if shell.files != before:
            with self._lock:
                guest = self._guests.get(instance_uuid)
                # Not written when the disk went meanwhile (a rebuild).
                if guest is not None and guest.get('booted_at') == booted:
                    files = guest.setdefault('files', {})
                    for path in set(before) - set(shell.files):
                        files.pop(path, None)
                    for path, text in shell.files.items():
                        if before.get(path, 0) != text:
                            files[path] = text
                    self._persist(instance_uuid)
        return result

    def get_available_nodes(self):
        return [self.host]

    def list_guests(self):
        return dict(self._guests)

    def _boot_like_spawn(self, instance_uuid, name, what):
        """A boot's [fake_driver] spawn_delay, then its simulated failure
        (SpawnFailed) on fail_spawn_on_hosts or fail_spawn_for_names."""
        fd = CONF.fake_driver
        if fd.spawn_delay:
            eventlet.sleep(fd.spawn_delay)
        if self.host in fd.fail_spawn_on_hosts or (
                name is not None and name in fd.fail_spawn_for_names):
            raise SpawnFailed('Simulated %s failure of %s on %s'
                              % (what, instance_uuid, self.host))

    @_hooked
    def spawn(self, instance_uuid, vcpus, memory_mb, disk_gb, name=None,
              guest=None):
        """Start a guest; [fake_driver] spawn_delay, fail_spawn_on_hosts
        and fail_spawn_for_names shape it for tests and demos. guest:
        what it knows of itself (apply_guest_info)."""
        self._boot_like_spawn(instance_uuid, name, 'spawn')
        with self._lock:
            self._guests[instance_uuid] = _booted(apply_guest_info(
                {'vcpus': vcpus, 'memory_mb': memory_mb, 'disk_gb': disk_gb,
                 'power_state': RUNNING}, guest))
            self._persist(instance_uuid)
        self.log_console(instance_uuid, _boot(name or instance_uuid))

    # Power operations: each sets the guest's power state on disk and is
    # idempotent (a compute restarted mid-way runs it again).
    # GuestNotFound when the host has no such guest.

    def _set_power(self, instance_uuid, state, boots=False):
        """boots: the guest (re)boots (its boot time is now)."""
        guest = self._guests.get(instance_uuid)
        if CONF.fake_driver.guest_ssh and guest is not None and (
                boots or state == RUNNING
                and guest.get('power_state') in (SHUTDOWN, None)):
            self._next_boot_second(guest)
        with self._lock:
            guest = self._guests.get(instance_uuid)
            if guest is None:
                raise GuestNotFound('No guest %s on %s'
                                    % (instance_uuid, self.host))
            if boots or (state == RUNNING and guest.get('power_state') in (
                    SHUTDOWN, None)):
                _booted(guest)
            guest['power_state'] = state
            self._persist(instance_uuid)

    @staticmethod
    def _next_boot_second(guest):
        """A guest's shell shows its boot time in whole seconds, as
        Linux's /proc/uptime read by a client does (Tempest's reboot
        tests compare two): a guest that boots again within the second
        it last booted in comes up at the next one (a wait of under a
        second, green)."""
        booted = guest.get('booted_at')
        if booted:
            wait = int(booted) + 1 - time.time()
            if wait > 0:
                time.sleep(wait)

    def get_power_state(self, instance_uuid):
        """'running', 'shutdown', 'paused', 'suspended', or None for no
        such guest."""
        guest = self._guests.get(instance_uuid)
        return None if guest is None else guest.get('power_state')

    @_hooked
    def power_off(self, instance_uuid):
        self._set_power(instance_uuid, SHUTDOWN)
        self.log_console(instance_uuid, 'reboot: Power down')

    @_hooked
    def power_on(self, instance_uuid):
        self._set_power(instance_uuid, RUNNING)
        self.log_console(instance_uuid, _boot(instance_uuid))

    @_hooked
    def reboot(self, instance_uuid, hard=False):
        """A soft reboot needs a running guest; a hard one starts any."""
        if not hard and self.get_power_state(instance_uuid) != RUNNING:
            raise GuestNotRunning('Guest %s is not running; it cannot be '
                                  'rebooted softly' % instance_uuid)
        self._set_power(instance_uuid, RUNNING, boots=True)
        self.log_console(instance_uuid, (
            'reboot: Restarting system' if not hard else
            'reboot: hard reset') + '\n' + _boot(instance_uuid))

    @_hooked
    def pause(self, instance_uuid):
        self._set_power(instance_uuid, PAUSED)

    @_hooked
    def unpause(self, instance_uuid):
        self._set_power(instance_uuid, RUNNING)

    @_hooked
    def suspend(self, instance_uuid):
        self._set_power(instance_uuid, SUSPENDED)

    @_hooked
    def resume(self, instance_uuid):
        self._set_power(instance_uuid, RUNNING)

    @_hooked
    def reset_network(self, instance_uuid):
        """Re-plug the guest's interfaces: nothing to do in simulation
        beyond checking the guest exists."""
        if self.get_power_state(instance_uuid) is None:
            raise GuestNotFound('No guest %s on %s'
                                % (instance_uuid, self.host))

    @_hooked
    def rebuild(self, instance_uuid, vcpus, memory_mb, disk_gb, image_ref,
                preserve_ephemeral=False, name=None, power_on=True,
                guest=None):
        """Re-create the guest's root disk from image_ref and boot it
        again, on this host (with [fake_driver] spawn_delay and the
        simulated failures of spawn). The guest ends running, or shut
        off when power_on is False. What was written on its root disk
        is gone; guest: what it knows of itself now (its personality
        files among it)."""
        info = guest
        self._boot_like_spawn(instance_uuid, name, 'rebuild')
        with self._lock:
            guest = dict(self._guests.get(instance_uuid) or {})
            guest.pop('files', None)
            _booted(apply_guest_info(guest, info))
            guest.update({'vcpus': vcpus, 'memory_mb': memory_mb,
                          'disk_gb': disk_gb, 'image_ref': image_ref,
                          'rebuilds': guest.get('rebuilds', 0) + 1,
                          'power_state': (RUNNING if power_on
                                          else SHUTDOWN)})
            self._guests[instance_uuid] = guest
            self._persist(instance_uuid)
        self.log_console(instance_uuid, 'rebuilt from image %s\n%s' % (
            image_ref, _boot(name or instance_uuid)))

    @_hooked
    def snapshot(self, instance_uuid):
        """The guest's root disk as an image would hold it: {'size':
        bytes, 'checksum': md5 hex}. GuestNotFound when there is no
        such guest."""
        with self._lock:
            guest = self._guests.get(instance_uuid)
        if guest is None:
            raise GuestNotFound('No guest %s on %s to snapshot'
                              % (instance_uuid, self.host))
        size = max(1, guest.get('disk_gb') or 0) * 1024 * 1024
        digest = hashlib.md5(('%s:%s' % (instance_uuid, size)).encode(),
                             usedforsecurity=False).hexdigest()
        return {'size': size, 'checksum': digest}

    @_hooked
    def rescue(self, instance_uuid, rescue_image_ref, admin_password=None):
        """Boot the guest from rescue_image_ref, its own disk attached
        as a second one (running); it takes admin_password at login.
        Idempotent; GuestNotFound."""
        with self._lock:
            guest = self._guests.get(instance_uuid)
            if guest is None:
                raise GuestNotFound('No guest %s on %s to rescue'
                                    % (instance_uuid, self.host))
            if not guest.get('rescue_image_ref'):
                _booted(guest)
            guest.update({'rescue_image_ref': rescue_image_ref,
                          'rescue_password_set': bool(admin_password),
                          'power_state': RUNNING})
            if admin_password:
                guest['rescue_password_sha256'] = _sha256(admin_password)
            self._persist(instance_uuid)

    @_hooked
    def unrescue(self, instance_uuid):
        """Boot the guest from its own disk again (running).
        Idempotent; GuestNotFound."""
        with self._lock:
            guest = self._guests.get(instance_uuid)
            if guest is None:
                raise GuestNotFound('No guest %s on %s to unrescue'
                                    % (instance_uuid, self.host))
            if guest.pop('rescue_image_ref', None) is not None:
                _booted(guest)
            guest.pop('rescue_password_set', None)
            guest.pop('rescue_password_sha256', None)
            guest['power_state'] = RUNNING
            self._persist(instance_uuid)

    @_hooked
    def set_admin_password(self, instance_uuid, new_pass):
        """Set the guest's administrator password (the guest keeps a
        digest of it). GuestNotRunning unless it runs; GuestNotFound."""
        with self._lock:
            guest = self._guests.get(instance_uuid)
            if guest is None:
                raise GuestNotFound('No guest %s on %s'
                                    % (instance_uuid, self.host))
            if guest.get('power_state') != RUNNING:
                raise GuestNotRunning('Guest %s is not running'
                                      % instance_uuid)
            guest['admin_password_sha256'] = _sha256(new_pass)
            self._persist(instance_uuid)

    # Volumes: the guest records which volume is on which device (its
    # connection info came from the volume service). Idempotent.

    def attach_volume(self, instance_uuid, connection_info, mountpoint):
        with self._lock:
            guest = self._guests.get(instance_uuid)
            if guest is None:
                raise GuestNotFound('No guest %s on %s'
                                    % (instance_uuid, self.host))
            guest.setdefault('volumes', {})[mountpoint] = (
                connection_info or {}).get('serial')
            size = _volume_bytes(connection_info)
            if size:
                guest.setdefault('volume_bytes', {})[mountpoint] = size
            self._persist(instance_uuid)

    @_hooked
    def swap_volume(self, instance_uuid, mountpoint, new_connection_info):
        """The guest's disk at mountpoint is copied onto the new volume
        and continues on it (as libvirt's block copy)."""
        self.attach_volume(instance_uuid, new_connection_info, mountpoint)

    # Assisted volume snapshots: the guest records the overlay files
    # of each device's snapshots (libvirt would create the qcow2 overlay
    # and switch the disk to it). Idempotent.

    @_hooked
    def volume_snapshot_create(self, instance_uuid, mountpoint,
                               create_info):
        with self._lock:
            guest = self._guests.get(instance_uuid)
            if guest is None:
                raise GuestNotFound('No guest %s on %s'
                                    % (instance_uuid, self.host))
            snapshots = guest.setdefault('volume_snapshots', {})
            snapshots.setdefault(mountpoint, {})[
                create_info['snapshot_id']] = create_info.get('new_file')
            self._persist(instance_uuid)

    @_hooked
    def volume_snapshot_delete(self, instance_uuid, mountpoint,
                               snapshot_id):
        with self._lock:
            guest = self._guests.get(instance_uuid)
            snapshots = (guest or {}).get('volume_snapshots', {}).get(
                mountpoint, {})
            if snapshot_id in snapshots:
                del snapshots[snapshot_id]
                self._persist(instance_uuid)

    def detach_volume(self, instance_uuid, mountpoint):
        with self._lock:
            guest = self._guests.get(instance_uuid)
            if guest is not None and mountpoint in guest.get('volumes', {}):
                del guest['volumes'][mountpoint]
                guest.get('volume_bytes', {}).pop(mountpoint, None)
                self._persist(instance_uuid)

    # Interfaces: the guest records the ports plugged into it (by port
    # id, the VIF's MAC). Idempotent.

    @_hooked
    def attach_interface(self, instance_uuid, vif):
        with self._lock:
            guest = self._guests.get(instance_uuid)
            if guest is None:
                raise GuestNotFound('No guest %s on %s'
                                    % (instance_uuid, self.host))
            guest.setdefault('interfaces', {})[vif['id']] = vif['address']
            if 'addresses' in guest or self._ssh is not None:
                guest.setdefault('addresses', {})[vif['id']] = vif_ips(vif)
            self._persist(instance_uuid)

    @_hooked
    def detach_interface(self, instance_uuid, port_id):
        with self._lock:
            guest = self._guests.get(instance_uuid)
            if guest is not None and (
                    port_id in guest.get('interfaces', {})
                    or port_id in guest.get('addresses', {})):
                guest.get('interfaces', {}).pop(port_id, None)
                guest.get('addresses', {}).pop(port_id, None)
                self._persist(instance_uuid)

    @_hooked
    def destroy(self, instance_uuid, with_resize_copy=False):
        """Remove the guest (none is fine); with_resize_copy, also the
        source guest a resize set aside here."""
        with self._lock:
            found = self._guests.pop(instance_uuid, None) is not None
            if with_resize_copy:
                found |= self._guests.pop(instance_uuid + RESIZE_SUFFIX,
                                          None) is not None
            if found:
                self._persist(instance_uuid)
            elif self._ssh is not None:
                self._sync_ssh(instance_uuid)
        if not with_resize_copy or found:
            self._forget_console(instance_uuid)

    # Resize and cold migration. The source keeps its guest (shut off)
    # under <uuid>_resize until confirm (confirm_migration drops it) or
    # revert (finish_revert_migration brings it back). Each step is
    # idempotent: a compute restarted mid-way may run it again.

    @_hooked
    def migrate_disk_and_power_off(self, instance_uuid, dest_host):
        """Source: power the guest off and set its disks aside for the
        move to dest_host. GuestNotFound when neither the guest nor its
        set-aside copy is here."""
        with self._lock:
            guest = self._guests.pop(instance_uuid, None)
            kept = instance_uuid + RESIZE_SUFFIX
            if guest is None:
                if kept in self._guests:
                    return      # done by an earlier run
                raise GuestNotFound('No guest %s on %s to migrate'
                                    % (instance_uuid, self.host))
            guest = dict(guest, power_state=SHUTDOWN, migrating_to=dest_host)
            self._guests[kept] = guest
            self._persist(instance_uuid)

    @_hooked
    def finish_migration(self, instance_uuid, vcpus, memory_mb, disk_gb,
                         image_ref=None, power_on=True, guest=None):
        """Destination: create the moved guest with the new flavor's
        sizes, running unless power_on is False; guest: what it knows
        of itself (apply_guest_info). With guest_ssh, the files on its
        root disk come along from the source's set-aside guest."""
        with self._lock:
            moved = {
                'vcpus': vcpus, 'memory_mb': memory_mb, 'disk_gb': disk_gb,
                'image_ref': image_ref,
                'power_state': RUNNING if power_on else SHUTDOWN}
            if self._ssh is not None:
                files = self._files_elsewhere(instance_uuid + RESIZE_SUFFIX)
                if files:
                    moved['files'] = files
            self._guests[instance_uuid] = _booted(apply_guest_info(
                moved, guest))
            self._persist(instance_uuid)
        if power_on:
            self.log_console(instance_uuid, _boot(instance_uuid))

    @_hooked
    def confirm_migration(self, instance_uuid):
        """Source: drop the set-aside guest of a confirmed resize (none
        is fine: already dropped)."""
        with self._lock:
            if self._guests.pop(instance_uuid + RESIZE_SUFFIX,
                                None) is not None:
                self._persist(instance_uuid)

    @_hooked
    def finish_revert_migration(self, instance_uuid, vcpus, memory_mb,
                                disk_gb, power_on=True):
        """Source: bring the set-aside guest back with the old flavor's
        sizes (replacing any guest of the same instance here, as a
        revert to the same host has), running unless power_on is False.
        GuestNotFound when there is neither."""
        with self._lock:
            kept = self._guests.pop(instance_uuid + RESIZE_SUFFIX, None)
            guest = kept or self._guests.get(instance_uuid)
            if guest is None:
                raise GuestNotFound('No guest %s on %s to revert to'
                                    % (instance_uuid, self.host))
            guest = _booted(dict(guest, vcpus=vcpus, memory_mb=memory_mb,
                                 disk_gb=disk_gb,
                                 power_state=(RUNNING if power_on
                                              else SHUTDOWN)))
            guest.pop('migrating_to', None)
            self._guests[instance_uuid] = guest
            self._persist(instance_uuid)

    # Live migration: the destination holds an incoming copy of the
    # guest (paused, 'incoming') from pre_live_migration until
    # post_live_migration_at_destination runs it (or the rollback drops
    # it); the source's guest runs all along and goes once the copy is
    # done (post_live_migration_at_source). Each step is idempotent.

    @_hooked
    def check_can_live_migrate_destination(self, instance_uuid, vcpus,
                                           memory_mb, disk_gb):
        """Destination pre-check: whether this host can take the guest
        (always, in simulation, unless a test hook makes it fail);
        returns what the source's check needs."""
        return {'dest_host': self.host,
                'shared_storage': CONF.fake_driver.ephemeral_storage_shared}

    @_hooked
    def check_can_live_migrate_source(self, instance_uuid):
        """Source pre-check: the guest runs here (GuestNotFound,
        GuestNotRunning otherwise)."""
        guest = self._guests.get(instance_uuid)
        if guest is None:
            raise GuestNotFound('No guest %s on %s' % (instance_uuid,
                                                       self.host))
        if guest.get('power_state') not in (RUNNING, PAUSED):
            raise GuestNotRunning('Guest %s on %s is not running'
                                  % (instance_uuid, self.host))

    @_hooked
    def pre_live_migration(self, instance_uuid, vcpus, memory_mb, disk_gb,
                           guest=None):
        """Destination: the incoming copy of the guest (paused); guest:
        what it knows of itself (apply_guest_info). With guest_ssh, its
        files and boot time come from the source's guest."""
        info = guest
        with self._lock:
            guest = self._guests.get(instance_uuid)
            if guest is not None and not guest.get('incoming'):
                return      # already running here
            incoming = {
                'vcpus': vcpus, 'memory_mb': memory_mb, 'disk_gb': disk_gb,
                'power_state': PAUSED, 'incoming': True}
            if self._ssh is not None:
                source = self._elsewhere(instance_uuid) or {}
                for key in ('files', 'booted_at'):
                    if source.get(key):
                        incoming[key] = source[key]
            self._guests[instance_uuid] = apply_guest_info(incoming, info)
            self._persist(instance_uuid)

    @_hooked
    def live_migration(self, instance_uuid, dest_host, block_migration,
                       report, control):
        """Source: copy the guest to dest_host over [fake_driver]
        live_migration_seconds (live_migration.copy: report(progress)
        along the way; live_migration.Aborted when control is
        aborted)."""
        guest = self._guests.get(instance_uuid)
        if guest is None:
            raise GuestNotFound('No guest %s on %s to migrate'
                                % (instance_uuid, self.host))
        mib = 1024 * 1024
        disk = guest.get('disk_gb', 0) * 1024 * mib if block_migration \
            else 0
        live_migration.copy(CONF.fake_driver.live_migration_seconds,
                            guest.get('memory_mb', 0) * mib, disk, report,
                            control)

    @_hooked
    def post_live_migration_at_source(self, instance_uuid):
        """Source: the guest has moved; drop it here (none is fine)."""
        with self._lock:
            if self._guests.pop(instance_uuid, None) is not None:
                self._persist(instance_uuid)

    @_hooked
    def post_live_migration_at_destination(self, instance_uuid):
        """Destination: the incoming copy runs (GuestNotFound when
        there is none)."""
        with self._lock:
            guest = self._guests.get(instance_uuid)
            if guest is None:
                raise GuestNotFound('No incoming guest %s on %s'
                                    % (instance_uuid, self.host))
            if guest.get('incoming') or guest['power_state'] != RUNNING:
                guest = dict(guest, power_state=RUNNING)
                guest.pop('incoming', None)
                if not guest.get('booted_at'):
                    _booted(guest)
                self._guests[instance_uuid] = guest
                self._persist(instance_uuid)

    def rollback_live_migration_at_destination(self, instance_uuid):
        """Destination: drop the incoming copy (a guest running here
        is kept: it is no copy). Whether one went."""
        with self._lock:
            guest = self._guests.get(instance_uuid)
            if guest is None or not guest.get('incoming'):
                return False
            del self._guests[instance_uuid]
            self._persist(instance_uuid)
            return True

    @_hooked
    def check_resize_claim(self, instance_uuid, vcpus, memory_mb, disk_gb):
        """Destination of a cross-cell resize: whether this host can take
        the guest with those sizes (what placement does not model, as
        Nova's resize claim checks NUMA and PCI). Always, in simulation,
        unless a test hook makes it fail."""
        return True

    def has_resize_copy(self, instance_uuid):
        """Whether the source's set-aside guest of instance_uuid is
        here."""
        return instance_uuid + RESIZE_SUFFIX in self._guests

    def cache_images(self, image_ids):
        """Pre-cache images (aggregate image caching): the ids join the
        host's image cache, a file next to its guests (<host>.images)."""
        path = os.path.join(os.path.dirname(self._path),
                            self.host + '.images')
        with self._lock:
            cached = set(cached_images(os.path.dirname(self._path),
                                       self.host))
            cached.update(image_ids)
            with open(path + '.tmp', 'w') as f:
                json.dump(sorted(cached), f)
            os.replace(path + '.tmp', path)

    # The console: a log per guest (<host>-console/<uuid>.log) of what
    # its serial console printed: boots, reboots, stops, rebuilds...

    def _console_path(self, instance_uuid):
        return os.path.join(self._console_dir, instance_uuid + '.log')

    def log_console(self, instance_uuid, text):
        """Append text (lines) to the guest's console log, each line
        stamped with the seconds since the host booted, as a kernel
        prints them."""
        stamp = '[%12.6f] ' % (time.time() - self._booted)
        lines = '\n'.join(stamp + line for line in text.split('\n'))
        # The log ends where the console's cursor is (after a prompt,
        # with no newline): a later write starts a new line.
        with open(self._console_path(instance_uuid), 'a') as f:
            f.write(('\n' if f.tell() else '') + lines)

    def _forget_console(self, instance_uuid):
        vnc = self._vnc.pop(instance_uuid, None)
        if vnc is not None:
            vnc.close()
        try:
            os.unlink(self._console_path(instance_uuid))
        except FileNotFoundError:
            pass

    @_hooked
    def get_console_output(self, instance_uuid):
        """The guest's console log (str). GuestNotFound when there is no
        such guest."""
        if self.get_power_state(instance_uuid) is None:
            raise GuestNotFound('No guest %s on %s'
                                % (instance_uuid, self.host))
        try:
            with open(self._console_path(instance_uuid)) as f:
                return f.read()
        except FileNotFoundError:
            return ''

    @_hooked
    def get_console(self, instance_uuid, protocol):
        """Where the guest's console of protocol (vnc, spice, serial,
        rdp, mks) listens on this host: {'host', 'port',
        'internal_access_path'}, and 'tls_port' for SPICE with [spice]
        require_secure. GuestNotFound when there is no such guest."""
        if self.get_power_state(instance_uuid) is None:
            raise GuestNotFound('No guest %s on %s'
                                % (instance_uuid, self.host))
        if protocol == 'vnc':
            # A VNC server of its own that speaks RFB (fake_vnc), on
            # [vnc] server_listen; the proxy reaches it at [vnc]
            # server_proxyclient_address.
            with self._lock:
                vnc = self._vnc.get(instance_uuid)
                if vnc is None:
                    vnc = self._vnc[instance_uuid] = fake_vnc.Server(
                        CONF.vnc.server_listen, instance_uuid)
            return {'host': CONF.vnc.server_proxyclient_address,
                    'port': vnc.port, 'internal_access_path': None}
        # One port per guest (its position among the host's guests).
        index = sorted(self._guests).index(instance_uuid)
        found = {'host': CONF.my_ip, 'port': CONSOLE_PORTS[protocol] + index,
                 'internal_access_path': None}
        if protocol == 'spice' and CONF.spice.require_secure:
            found['tls_port'] = SPICE_TLS_PORT + index
        return found

    @_hooked
    def trigger_crash_dump(self, instance_uuid):
        """An NMI to the guest: its kernel panics and dumps (the log
        says so); it keeps running, as a guest with kdump reboots."""
        if self.get_power_state(instance_uuid) is None:
            raise GuestNotFound('No guest %s on %s'
                                % (instance_uuid, self.host))
        self.log_console(instance_uuid,
                         CRASH_LINES + '\n' + _boot(instance_uuid))

    def get_diagnostics(self, instance_uuid):
        """The guest's counters (simulated, fixed as Nova's fake
        driver's): {'state', 'uptime', 'vcpus', 'memory_mb', 'disks',
        'nics'}. GuestNotFound when there is no such guest."""
        guest = self._guests.get(instance_uuid)
        if guest is None:
            raise GuestNotFound('No guest %s on %s'
                                % (instance_uuid, self.host))
        return {'state': guest.get('power_state'),
                'uptime': int(time.time() - self._booted),
                'vcpus': guest.get('vcpus') or 0,
                'memory_mb': guest.get('memory_mb') or 0,
                'disks': 1 + len(guest.get('volumes') or {})}

    def get_host_uptime(self):
        """The host's uptime as uptime(1) prints it: the time, how long
        the (simulated) host has been up, users, load averages."""
        now = time.time()
        return '%s up %s,  0 users,  load average: %s' % (
            time.strftime(' %H:%M:%S', time.localtime(now)),
            _up_for(now - self._booted),
            ', '.join('%.2f' % load for load in os.getloadavg()))

    def get_available_resource(self, nodename):
        fd = CONF.fake_driver
        used = self._guests.values()
        # Like Nova's resource tracker: usage counts what the host keeps
        # back for itself.
        return {
            'vcpus': fd.vcpus,
            'memory_mb': fd.memory_mb,
            'local_gb': fd.local_gb,
            'vcpus_used': (CONF.reserved_host_cpus
                           + sum(g['vcpus'] for g in used)),
            'memory_mb_used': (CONF.reserved_host_memory_mb
                               + sum(g['memory_mb'] for g in used)),
            'local_gb_used': (-(-CONF.reserved_host_disk_mb // 1024)
                              + sum(g['disk_gb'] for g in used)),
            'hypervisor_type': fd.hypervisor_type,
            'hypervisor_version': fd.hypervisor_version,
            'hypervisor_hostname': nodename,
            'cpu_info': fd.cpu_info,
            'host_ip': CONF.my_ip,
            'disk_available_least': fd.local_gb - sum(
                g['disk_gb'] for g in used),
            'running_vms': len(self._guests),
            'numa_topology': None,
            'pci_stats': None,
            'stats': ({virt.SHARED_EPHEMERAL_STORAGE: 'true'}
                      if fd.ephemeral_storage_shared else {}),
        }


def vif_ips(vif):
    """The IP addresses of a VIF (network info's shape)."""
    return [ip['address']
            for subnet in ((vif.get('network') or {}).get('subnets') or ())
            for ip in subnet.get('ips') or () if ip.get('address')]


def _volume_bytes(connection_info):
    """A volume's size from its connection info, when it says it."""
    data = (connection_info or {}).get('data') or {}
    size = data.get('size_bytes') or (data.get('size') or 0) * 1024 ** 3
    return int(size) if size else None


def load_guests(directory, host):
    """{guest name: state} of host's guests as its files in directory
    (<state_path>/fake-hypervisor) hold them: the snapshot with the
    journal's changes replayed on it."""
    base = os.path.join(directory, host)
    try:
        with open(base + '.json') as f:
            guests = json.load(f)
    except FileNotFoundError:
        guests = {}
    try:
        with open(base + '.journal', 'rb') as f:
            lines = f.read().split(b'\n')
    except FileNotFoundError:
        lines = []
    for line in lines:
        try:
            change = json.loads(line)
        except ValueError:
            continue    # the empty tail, or a line a crash cut short
        for key, guest in change.items():
            if guest is None:
                guests.pop(key, None)
            else:
                guests[key] = guest
    return guests


def _up_for(seconds):
    """'3 days, 4:05', '1 day,  0:01', '7 min' (uptime(1)'s wording)."""
    minutes = int(seconds) // 60
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    text = '%d:%02d' % (hours, minutes) if hours else '%d min' % minutes
    if days:
        text = '%d day%s, %s' % (days, '' if days == 1 else 's',
                                 text.rjust(5))
    return text


def load_driver(host):
    if CONF.compute_driver != 'fake':
        raise RuntimeError('Unknown compute_driver %r; only "fake" is '
                           'available.' % CONF.compute_driver)
    return FakeDriver(host)
