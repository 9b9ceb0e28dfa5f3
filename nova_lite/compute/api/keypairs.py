"""The compute API for key pairs: what the os-keypairs controller calls.

Generation: an RSA 2048 key (SSH, public key in OpenSSH format) or, for
type x509, an RSA key with a self-signed certificate whose subject is the
user; the private key is returned once and never stored. Fingerprints:
MD5 of the SSH key blob, or SHA-1 of the certificate (DER), as colon-
separated hex -- what Nova shows. A user has at most its key_pairs
quota of key pairs (KeypairLimitExceeded, 403).
"""
import base64
import datetime
import hashlib
import string

from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization
from cryptography import x509
from cryptography.x509.oid import NameOID

from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import keypair as keypair_obj
from nova_lite import quota

KEY_SIZE = 2048
# Key pair names, as the Compute API accepts them up to 2.91.
SAFE_CHARS = frozenset('_- ' + string.digits + string.ascii_letters)
# From 2.92 '@' and '.' too (names like user@host or id.pub).
SAFE_CHARS_V292 = SAFE_CHARS | frozenset('@.')
_CERT_DAYS = 3650


def _colon_hex(digest):
    return ':'.join('%02x' % b for b in digest)


def ssh_fingerprint(public_key):
    """The MD5 fingerprint of an OpenSSH public key; InvalidKeypair if it
    is not one."""
    try:
        key = serialization.load_ssh_public_key(
            public_key.strip().encode('utf-8'))
        blob = key.public_bytes(serialization.Encoding.OpenSSH,
                                serialization.PublicFormat.OpenSSH)
        raw = base64.b64decode(blob.split()[1])
    except (ValueError, IndexError, TypeError, UnicodeError,
            NotImplementedError):
        raise exception.InvalidKeypair(
            reason='failed to generate fingerprint')
    return _colon_hex(hashlib.md5(raw, usedforsecurity=False).digest())


def x509_fingerprint(certificate):
    """The SHA-1 fingerprint of a PEM certificate; InvalidKeypair if it is
    not one."""
    try:
        cert = x509.load_pem_x509_certificate(certificate.encode('utf-8'))
    except (ValueError, TypeError, UnicodeError):
        raise exception.InvalidKeypair(
            reason='failed to generate X509 fingerprint')
    return _colon_hex(cert.fingerprint(hashes.SHA1()))


def _private_pem(key):
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption()).decode('utf-8')


def generate_ssh(user_id):
    """(private key PEM, public key 'ssh-rsa ...', fingerprint)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=KEY_SIZE)
    public = key.public_key().public_bytes(
        serialization.Encoding.OpenSSH,
        serialization.PublicFormat.OpenSSH).decode('utf-8')
    public = '%s Generated-by-Nova' % public
    return _private_pem(key), public, ssh_fingerprint(public)


def generate_x509(user_id):
    """(private key PEM, self-signed certificate PEM, fingerprint)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=KEY_SIZE)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, user_id)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = x509.CertificateBuilder().subject_name(subject).issuer_name(
        subject).public_key(key.public_key()).serial_number(
        x509.random_serial_number()).not_valid_before(now).not_valid_after(
        now + datetime.timedelta(days=_CERT_DAYS)).sign(key, hashes.SHA256())
    pem = cert.public_bytes(serialization.Encoding.PEM).decode('utf-8')
    return _private_pem(key), pem, x509_fingerprint(pem)


_GENERATORS = {keypair_obj.KEYPAIR_TYPE_SSH: generate_ssh,
               keypair_obj.KEYPAIR_TYPE_X509: generate_x509}
_FINGERPRINTS = {keypair_obj.KEYPAIR_TYPE_SSH: ssh_fingerprint,
                 keypair_obj.KEYPAIR_TYPE_X509: x509_fingerprint}


def _check_name(name, safe_chars=SAFE_CHARS):
    if any(c not in safe_chars for c in name):
        raise exception.InvalidKeypair(
            reason='Keypair name contains unsafe characters')
    if not 1 <= len(name) <= 255:
        raise exception.InvalidKeypair(
            reason='Keypair name must be string and between 1 and 255 '
                   'characters long')


def _store(context, user_id, name, public_key, fingerprint, key_type):
    quota.check_key_pairs(context, context.project_id, user_id)
    keypair = objects.KeyPair(context, name=name, user_id=user_id,
                              public_key=public_key, fingerprint=fingerprint,
                              type=key_type)
    keypair.create()
    return keypair


def import_key_pair(context, user_id, name, public_key,
                    key_type=keypair_obj.KEYPAIR_TYPE_SSH,
                    safe_chars=SAFE_CHARS):
    """Store a given public key (or certificate); InvalidKeypair (400) for
    a bad name (a character outside safe_chars) or key, KeyPairExists
    (409)."""
    _check_name(name, safe_chars)
    fingerprint = _FINGERPRINTS[key_type](public_key)
    return _store(context, user_id, name, public_key, fingerprint, key_type)


def create_key_pair(context, user_id, name,
                    key_type=keypair_obj.KEYPAIR_TYPE_SSH):
    """Generate and store a key pair: (KeyPair, private key PEM)."""
    _check_name(name)
    private_key, public_key, fingerprint = _GENERATORS[key_type](user_id)
    return _store(context, user_id, name, public_key, fingerprint,
                  key_type), private_key


def get_key_pairs(context, user_id, limit=None, marker=None):
    return objects.KeyPairList.get_by_user(context, user_id, limit=limit,
                                           marker=marker)


def get_key_pair(context, user_id, name):
    return objects.KeyPair.get_by_name(context, user_id, name)


def delete_key_pair(context, user_id, name):
    objects.KeyPair.destroy_by_name(context, user_id, name)
