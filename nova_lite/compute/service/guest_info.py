"""What a guest knows of itself, told to the virt driver with the calls
that make or remake it (their ``guest`` argument): its hostname, the
public key its key pair injects, the admin password of the request,
its addresses and its local disks. All of it comes from what the
compute already holds (the instance, its network info, the request's
arguments): no database is read here.
"""
import base64
import binascii

from nova_lite.network import model as network_model


def describe(instance, network_info=None, admin_password=None,
             volume_backed=None, injected_files=None):
    """The driver's ``guest`` dict for instance (see
    nova_lite.virt.fake.apply_guest_info). network_info None: the
    instance's own; volume_backed None: when it has no image;
    injected_files: [[path, base64 contents]] of the personality."""
    if volume_backed is None:
        volume_backed = not instance.image_ref
    flavor = instance.flavor
    key_data = instance.key_data if instance.obj_attr_is_set(
        'key_data') else None
    info = {
        'hostname': (instance.hostname if instance.obj_attr_is_set(
            'hostname') else None) or None,
        'authorized_keys': [line.strip() for line in
                            (key_data or '').splitlines() if line.strip()],
        'root_gb': 0 if volume_backed else (flavor.root_gb or 0),
        'ephemeral_gb': flavor.ephemeral_gb or 0,
        'swap_mb': flavor.swap or 0,
        'addresses': addresses(
            network_info if network_info is not None
            else (instance.network_info if instance.obj_attr_is_set(
                'network_info') else None)),
    }
    if admin_password:
        info['admin_password'] = admin_password
    files = personality(injected_files)
    if files:
        info['files'] = files
    return info


def personality(injected_files):
    """{path: text} of [[path, base64 contents]] (what a config drive
    or file injection writes on the root disk)."""
    files = {}
    for path, contents in injected_files or ():
        try:
            data = base64.b64decode(contents or '', validate=False)
        except (binascii.Error, ValueError):
            data = (contents or '').encode()
        files[path] = data.decode('utf-8', 'replace')
    return files


def addresses(network_info):
    """{port id: [IP]} of network info."""
    found = {}
    for vif in network_info or ():
        found[vif['id']] = [
            address for _label, _mac, address, _version, ip_type
            in network_model.fixed_ips([vif]) if ip_type == 'fixed']
    return found
