"""ImagePropertiesFilter: the host's hypervisor supports what the image
asks for: ``hw_architecture`` (or ``architecture``), ``img_hv_type``
(or ``hypervisor_type``) and ``hw_vm_mode`` (or ``vm_mode``). Every
simulated host supports the same (architecture, hypervisor type, vm
mode) triples, SUPPORTED_INSTANCES (the fake driver's)."""
from nova_lite.scheduler import filters

# What the simulated hypervisor runs.
SUPPORTED_INSTANCES = (('x86_64', 'qemu', 'hvm'), ('x86_64', 'kvm', 'hvm'),
                       ('i686', 'qemu', 'hvm'), ('i686', 'kvm', 'hvm'),
                       ('aarch64', 'qemu', 'hvm'))
_CANONICAL = {'amd64': 'x86_64', 'x64': 'x86_64', 'x86': 'i686',
              'i386': 'i686', 'arm64': 'aarch64'}


def _wanted(spec):
    image = (spec.image if spec.obj_attr_is_set('image') else None) or {}
    props = image.get('properties') or {}

    def prop(*names):
        for name in names:
            if props.get(name):
                return str(props[name]).lower()
        return None
    arch = prop('hw_architecture', 'architecture')
    return (_CANONICAL.get(arch, arch),
            prop('img_hv_type', 'hypervisor_type'),
            prop('hw_vm_mode', 'vm_mode'))


def supports(wanted, supported=SUPPORTED_INSTANCES):
    return any(all(w is None or w == s for w, s in zip(wanted, triple))
               for triple in supported)


class ImagePropertiesFilter(filters.BaseHostFilter):

    def filter_all(self, context, states, spec):
        if supports(_wanted(spec)):
            return list(states)
        return []
