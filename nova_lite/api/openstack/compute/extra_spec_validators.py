"""Flavor extra spec validation (microversion 2.86 and later).

``EXTRA_SPECS`` is the one table: every extra spec nova_lite knows, as
Nova's configuration reference documents them (names, value rules,
descriptions written here). A name may hold placeholders:

``{group}``  a request group suffix, possibly empty (``resources1:VCPU``)
``{N}``      a guest NUMA node index (``hw:numa_cpus.0``)
``{RC}``     a resource class: a standard one or ``CUSTOM_...``
``{trait}``  a trait name (upper case letters, digits, ``_``)
``{key}``    anything (namespaces whose keys are the operator's own)

``validate(key, value)`` raises ``ExtraSpecInvalid`` (400, naming the key)
when the key lies in a namespace the table knows (``hw:``, ``quota:``,
``resources1:``, ...) but is not a known key, or when its value breaks the
key's rule. Keys in other namespaces, and keys without a namespace that
the table does not name, pass: they belong to other filters or services.
"""
import collections
import re

import os_resource_classes

from nova_lite import exception

Spec = collections.namedtuple('Spec', 'name description rule')

_GROUP = r'[a-zA-Z0-9_-]{0,64}'
_PLACEHOLDERS = {
    '{group}': _GROUP,
    '{N}': r'[0-9]+',
    '{RC}': r'[A-Z0-9_]+',
    '{trait}': r'[A-Z0-9_]+',
    '{key}': r'.+',
}
_TRUE = ('1', 't', 'true', 'on', 'y', 'yes')
_FALSE = ('0', 'f', 'false', 'off', 'n', 'no')
_CPUSET = r'\^?[0-9]+(-[0-9]+)?(,\^?[0-9]+(-[0-9]+)?)*'
_PAGE_SIZE = r'(any|small|large|[0-9]+([kKmMgGtT]i?)?([bB]|[bB]it)?)'


class ExtraSpecInvalid(exception.Invalid):
    msg_fmt = 'Validation failed; extra spec %(key)s: %(reason)s'


# --- value rules: value (a string) -> None, or why it is not valid ---------

def boolean(value):
    if value.strip().lower() not in _TRUE + _FALSE:
        return '%r is not a boolean (true or false)' % value
    return None


def integer(minimum=None, maximum=None):
    def rule(value):
        try:
            number = int(value.strip())
        except ValueError:
            return '%r is not an integer' % value
        if minimum is not None and number < minimum:
            return '%d is less than the minimum, %d' % (number, minimum)
        if maximum is not None and number > maximum:
            return '%d is more than the maximum, %d' % (number, maximum)
        return None
    return rule


def one_of(*choices):
    def rule(value):
        if value not in choices:
            return '%r is not one of %s' % (value, ', '.join(choices))
        return None
    return rule


def matches(pattern, what):
    compiled = re.compile(pattern + r'\Z')

    def rule(value):
        if not compiled.match(value):
            return '%r is not %s' % (value, what)
        return None
    return rule


def string(value):
    return None


def _resource_class(key):
    name = key.rsplit(':', 1)[1]
    if name in os_resource_classes.STANDARDS or re.match(
            r'CUSTOM_[A-Z0-9_]+\Z', name):
        return None
    return '%s is neither a standard resource class nor CUSTOM_*' % name


COUNT = integer(minimum=0)
POSITIVE = integer(minimum=1)
QUOTA = integer(minimum=0)
CPUSET = matches(_CPUSET, 'a CPU set such as 0-3,^2')

# --- the table --------------------------------------------------------------

EXTRA_SPECS = [
    # Placement requests
    Spec('resources{group}:{RC}', 'Amount of a resource class to request '
         'from placement (standard classes and CUSTOM_*).', COUNT),
    Spec('trait{group}:{trait}', 'Require or forbid a trait on the '
         'provider(s) of a request group.', one_of('required', 'forbidden')),
    Spec('group_policy', 'Whether numbered request groups may share a '
         'resource provider.', one_of('none', 'isolate')),
    # CPU placement and topology
    Spec('hw:cpu_policy', 'Pin guest CPUs to host CPUs (dedicated), float '
         'them (shared) or both (mixed).',
         one_of('shared', 'dedicated', 'mixed')),
    Spec('hw:cpu_thread_policy', 'How pinned guest CPUs use host SMT '
         'siblings.', one_of('prefer', 'isolate', 'require')),
    Spec('hw:emulator_threads_policy', 'Where emulator threads of a '
         'pinned guest run.', one_of('share', 'isolate')),
    Spec('hw:cpu_dedicated_mask', 'Guest CPUs pinned in a mixed policy '
         'guest (the others float).', CPUSET),
    Spec('hw:cpu_realtime', 'Give the guest real-time CPUs.', boolean),
    Spec('hw:cpu_realtime_mask', 'Guest CPUs that are (not, with ^) '
         'real-time.', CPUSET),
    Spec('hw:cpu_sockets', 'Guest CPU sockets.', POSITIVE),
    Spec('hw:cpu_cores', 'Guest CPU cores per socket.', POSITIVE),
    Spec('hw:cpu_threads', 'Guest CPU threads per core.', POSITIVE),
    Spec('hw:max_cpu_sockets', 'Upper bound an image may ask for on '
         'sockets.', POSITIVE),
    Spec('hw:max_cpu_cores', 'Upper bound an image may ask for on cores.',
         POSITIVE),
    Spec('hw:max_cpu_threads', 'Upper bound an image may ask for on '
         'threads.', POSITIVE),
    # NUMA and memory
    Spec('hw:numa_nodes', 'Guest NUMA nodes to spread the guest over.',
         POSITIVE),
    Spec('hw:numa_cpus.{N}', 'Guest CPUs of guest NUMA node N.', CPUSET),
    Spec('hw:numa_mem.{N}', 'Guest memory (MiB) of guest NUMA node N.',
         COUNT),
    Spec('hw:mem_page_size', 'Page size backing guest memory: small, '
         'large, any or a size (2048, 2MB, 1GB).',
         matches(_PAGE_SIZE, 'small, large, any or a page size')),
    Spec('hw:pci_numa_affinity_policy', 'NUMA affinity of PCI devices.',
         one_of('required', 'preferred', 'legacy', 'socket')),
    Spec('hw:mem_encryption', 'Encrypt guest memory (AMD SEV).', boolean),
    Spec('hw:locked_memory', 'Lock guest memory in host RAM.', boolean),
    Spec('hw:vpmem', 'Virtual persistent memory labels, comma-separated.',
         string),
    # Devices and firmware
    Spec('hw:boot_menu', 'Show the BIOS boot menu.', boolean),
    Spec('hw:vif_multiqueue_enabled', 'Multiqueue virtio-net interfaces.',
         boolean),
    Spec('hw:virtio_packed_ring', 'Packed virtqueues for virtio devices.',
         boolean),
    Spec('hw:watchdog_action', 'What a guest watchdog does when it fires.',
         one_of('none', 'pause', 'poweroff', 'reset', 'disabled')),
    Spec('hw:pmu', 'Expose a virtual performance monitoring unit.',
         boolean),
    Spec('hw:serial_port_count', 'Serial ports of the guest.', COUNT),
    Spec('hw:hide_hypervisor_id', 'Hide the hypervisor signature from the '
         'guest.', boolean),
    Spec('hw:time_hpet', 'Expose an HPET timer.', boolean),
    Spec('hw:tpm_version', 'Virtual TPM version.', one_of('1.2', '2.0')),
    Spec('hw:tpm_model', 'Virtual TPM model.', one_of('tpm-tis', 'tpm-crb')),
    Spec('hw:viommu_model', 'Virtual IOMMU model.',
         one_of('intel', 'smmuv3', 'virtio', 'auto')),
    Spec('hw:maxphysaddr_mode', 'How the guest physical address width is '
         'set.', one_of('passthrough', 'emulate')),
    Spec('hw:maxphysaddr_bits', 'Guest physical address bits (emulate).',
         POSITIVE),
    Spec('hw:ephemeral_encryption', 'Encrypt ephemeral disks.', boolean),
    Spec('hw:ephemeral_encryption_format', 'Format of encrypted ephemeral '
         'disks.', one_of('luks')),
    Spec('hw:sound_model', 'Guest sound device model.', string),
    Spec('hw:usb_model', 'Guest USB controller model.', string),
    Spec('hw:redirected_usb_ports', 'USB ports redirected from a SPICE '
         'client.', COUNT),
    Spec('hw_rng:allowed', 'Whether a random number generator device may '
         'be attached.', boolean),
    Spec('hw_rng:rate_bytes', 'Bytes the guest may read from the RNG per '
         'period.', COUNT),
    Spec('hw_rng:rate_period', 'Period (ms) of the RNG rate limit.', COUNT),
    Spec('hw_video:ram_max_mb', 'Maximum video RAM (MiB) an image may ask '
         'for.', COUNT),
    Spec('os:secure_boot', 'UEFI secure boot.',
         one_of('required', 'disabled', 'optional')),
    # Quotas (libvirt and VMware tunings)
    Spec('quota:cpu_shares', 'Relative CPU time share.', QUOTA),
    Spec('quota:cpu_period', 'CPU enforcement period (us).', QUOTA),
    Spec('quota:cpu_quota', 'CPU time (us) per period; -1 unlimited.',
         integer(minimum=-1)),
    Spec('quota:cpu_limit', 'CPU limit (MHz).', QUOTA),
    Spec('quota:cpu_reservation', 'CPU reservation (MHz).', QUOTA),
    Spec('quota:cpu_shares_level', 'CPU shares level.',
         one_of('custom', 'high', 'normal', 'low')),
    Spec('quota:cpu_shares_share', 'CPU shares (custom level).', QUOTA),
    Spec('quota:memory_limit', 'Memory limit (MiB).', QUOTA),
    Spec('quota:memory_reservation', 'Memory reservation (MiB).', QUOTA),
    Spec('quota:memory_shares_level', 'Memory shares level.',
         one_of('custom', 'high', 'normal', 'low')),
    Spec('quota:memory_shares_share', 'Memory shares (custom level).',
         QUOTA),
    Spec('quota:disk_io_limit', 'Disk I/O limit (IOPS).', QUOTA),
    Spec('quota:disk_io_reservation', 'Disk I/O reservation (IOPS).', QUOTA),
    Spec('quota:disk_io_shares_level', 'Disk I/O shares level.',
         one_of('custom', 'high', 'normal', 'low')),
    Spec('quota:disk_io_shares_share', 'Disk I/O shares (custom level).',
         QUOTA),
    Spec('quota:vif_limit', 'Network bandwidth limit (Mbps).', QUOTA),
    Spec('quota:vif_reservation', 'Network bandwidth reservation (Mbps).',
         QUOTA),
    Spec('quota:vif_shares_level', 'Network shares level.',
         one_of('custom', 'high', 'normal', 'low')),
    Spec('quota:vif_shares_share', 'Network shares (custom level).', QUOTA),
] + [
    Spec('quota:disk_%s_%s%s' % (way, unit, peak), 'Disk %s limit (%s%s).'
         % (way, 'bytes/s' if unit == 'bytes_sec' else 'IOPS',
            ', burst' if peak else ''), QUOTA)
    for way in ('read', 'write', 'total')
    for unit in ('bytes_sec', 'iops_sec')
    for peak in ('', '_max', '_max_length')
] + [
    Spec('quota:disk_size_iops_sec', 'Size of an I/O for IOPS limits.',
         QUOTA),
] + [
    Spec('quota:vif_%s_%s' % (way, what), 'Interface %s %s (KiB/s, KiB '
         'for burst).' % (way, what), QUOTA)
    for way in ('inbound', 'outbound')
    for what in ('average', 'peak', 'burst')
] + [
    # Other scheduling filters and services
    Spec('aggregate_instance_extra_specs:{key}', 'Matched against host '
         'aggregate metadata (AggregateInstanceExtraSpecsFilter).', string),
    Spec('capabilities:{key}', 'Matched against host capabilities '
         '(ComputeCapabilitiesFilter); values may carry operators.',
         string),
    Spec('accel:device_profile', 'Cyborg device profile to attach.',
         string),
    Spec('pci_passthrough:alias', 'PCI aliases and counts: alias[:count],'
         '...', matches(r'[^:,]+(:[0-9]+)?(,[^:,]+(:[0-9]+)?)*',
                        'alias[:count],...')),
    Spec('vmware:hw_version', 'VMware hardware version of the guest.',
         string),
    Spec('vmware:storage_policy', 'VMware storage policy.', string),
]


def _name_pattern(name):
    pattern = re.escape(name)
    for placeholder, regex in _PLACEHOLDERS.items():
        pattern = pattern.replace(re.escape(placeholder), regex)
    return re.compile(pattern + r'\Z')


_COMPILED = [(_name_pattern(spec.name), spec) for spec in EXTRA_SPECS]
_NAMESPACES = [re.compile(ns + r'\Z') for ns in sorted({
    _name_pattern(spec.name.split(':', 1)[0]).pattern[:-2]
    for spec in EXTRA_SPECS if ':' in spec.name})]


def _in_known_namespace(key):
    if ':' not in key:
        return False
    namespace = key.split(':', 1)[0]
    return any(ns.match(namespace) for ns in _NAMESPACES)


def find(key):
    """The Spec that key is an instance of, or None."""
    for pattern, spec in _COMPILED:
        if pattern.match(key):
            return spec
    return None


def validate(key, value):
    """Raise ExtraSpecInvalid if key/value breaks the table's rules."""
    spec = find(key)
    if spec is None:
        if _in_known_namespace(key):
            raise ExtraSpecInvalid(key=key, reason='not a known extra spec '
                                   'of its namespace')
        return
    value = value if isinstance(value, str) else str(value)
    why = spec.rule(value)
    if why is None and spec.name.startswith('resources'):
        why = _resource_class(key)
    if why is not None:
        raise ExtraSpecInvalid(key=key, reason=why)


def validate_all(specs):
    """validate() every item of specs, in key order."""
    for key in sorted(specs):
        validate(key, specs[key])
