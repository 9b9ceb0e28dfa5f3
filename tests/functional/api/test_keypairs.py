"""os-keypairs through the REST API at the microversions that change it:
2.1 (create 200, delete 202, no type), 2.2 (type, 201, 204), 2.10
(administrators name a user), 2.35 (paging), 2.75 (unknown query
parameters are 400)."""
import base64
import hashlib

from cryptography.hazmat.primitives.asymmetric import ed25519
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization
from cryptography import x509
import pytest

from tests.functional.api.fixtures import ADMIN
from tests.functional.api.fixtures import headers
from tests.functional.api.fixtures import MEMBER

OTHER = {'X-Auth-Token': 'carol:project-b'}
URL = '/v2.1/os-keypairs'


def new_public_key():
    key = ed25519.Ed25519PrivateKey.generate().public_key()
    return key.public_bytes(serialization.Encoding.OpenSSH,
                            serialization.PublicFormat.OpenSSH).decode()


def md5_fingerprint(public_key):
    digest = hashlib.md5(base64.b64decode(public_key.split()[1])).digest()
    return ':'.join('%02x' % b for b in digest)


def create(app, body, version=None, token=MEMBER, status='*'):
    return app.post_json(URL, {'keypair': body},
                         headers=headers(version, token), status=status)


def fault(resp, name, code):
    assert resp.status_int == code, resp.text
    assert resp.content_type == 'application/json'
    assert resp.json[name]['code'] == code
    return resp.json[name]['message']


def test_create_at_2_1_generates_an_rsa_key_200(app):
    resp = create(app, {'name': 'gen'})
    assert resp.status_int == 200
    body = resp.json['keypair']
    assert sorted(body) == ['fingerprint', 'name', 'private_key',
                            'public_key', 'user_id']
    assert body['user_id'] == 'bob'
    assert body['public_key'].startswith('ssh-rsa ')
    assert body['private_key'].startswith('-----BEGIN RSA PRIVATE KEY-----')
    assert body['fingerprint'] == md5_fingerprint(body['public_key'])
    private = serialization.load_pem_private_key(
        body['private_key'].encode(), password=None)
    public = private.public_key().public_bytes(
        serialization.Encoding.OpenSSH,
        serialization.PublicFormat.OpenSSH).decode()
    assert body['public_key'].split()[:2] == public.split()


def test_import_at_2_2_is_201_with_type(app):
    public_key = new_public_key()
    resp = create(app, {'name': 'imported', 'public_key': public_key},
                  '2.2')
    assert resp.status_int == 201
    assert resp.json['keypair'] == {
        'name': 'imported', 'public_key': public_key, 'type': 'ssh',
        'fingerprint': md5_fingerprint(public_key), 'user_id': 'bob'}


def test_create_x509_generates_a_certificate(app):
    resp = create(app, {'name': 'cert', 'type': 'x509'}, '2.2')
    body = resp.json['keypair']
    assert resp.status_int == 201 and body['type'] == 'x509'
    cert = x509.load_pem_x509_certificate(body['public_key'].encode())
    sha1 = cert.fingerprint(hashes.SHA1())
    assert body['fingerprint'] == ':'.join('%02x' % b for b in sha1)
    # Imported again as a certificate: the same fingerprint.
    again = create(app, {'name': 'cert2', 'type': 'x509',
                         'public_key': body['public_key']}, '2.2')
    assert again.json['keypair']['fingerprint'] == body['fingerprint']


def test_duplicate_name_is_409(app):
    create(app, {'name': 'dup'})
    message = fault(create(app, {'name': 'dup'}), 'conflictingRequest', 409)
    assert message == "Key pair 'dup' already exists."
    # Another user may use the name.
    assert create(app, {'name': 'dup'}, token=OTHER).status_int == 200


@pytest.mark.parametrize('body,version', [
    ({'name': 'bad', 'public_key': 'ssh-rsa not-base64!'}, '2.1'),
    ({'name': 'bad', 'public_key': 'garbage'}, '2.1'),
    ({'name': 'bad', 'public_key': 'garbage', 'type': 'x509'}, '2.2'),
    ({'name': 'caf\u00e9'}, '2.1'),
    ({'name': 'a/b'}, '2.1'),
])
def test_bad_key_or_name_is_400_invalid_keypair(app, body, version):
    message = fault(create(app, body, version), 'badRequest', 400)
    assert message.startswith('Keypair data is invalid')


@pytest.mark.parametrize('body,version,field', [
    ({}, '2.1', 'name'),
    ({'name': ''}, '2.1', 'name'),
    ({'name': ' lead'}, '2.1', 'name'),
    ({'name': 'x' * 256}, '2.1', 'name'),
    ({'name': 'k', 'type': 'ssh'}, '2.1', 'type'),
    ({'name': 'k', 'type': 'rsa'}, '2.2', 'type'),
    ({'name': 'k', 'user_id': 'bob'}, '2.9', 'user_id'),
    ({'name': 'k', 'public_key': 5}, '2.10', 'public_key'),
])
def test_schema_errors_name_the_field(app, body, version, field):
    message = fault(create(app, body, version), 'badRequest', 400)
    assert field in message


def test_list_and_show_per_version(app):
    public_key = new_public_key()
    create(app, {'name': 'k1', 'public_key': public_key})
    listed = app.get(URL, headers=MEMBER).json
    assert listed == {'keypairs': [{'keypair': {
        'name': 'k1', 'public_key': public_key,
        'fingerprint': md5_fingerprint(public_key)}}]}
    typed = app.get(URL, headers=headers('2.2', MEMBER)).json
    assert typed['keypairs'][0]['keypair']['type'] == 'ssh'
    shown = app.get(URL + '/k1', headers=MEMBER).json['keypair']
    assert sorted(shown) == ['created_at', 'deleted', 'deleted_at',
                             'fingerprint', 'id', 'name', 'public_key',
                             'updated_at', 'user_id']
    assert shown['deleted'] is False and shown['deleted_at'] is None
    assert shown['user_id'] == 'bob' and isinstance(shown['id'], int)
    assert 'T' in shown['created_at']
    assert app.get(URL + '/k1', headers=headers('2.2', MEMBER)).json[
        'keypair']['type'] == 'ssh'
    # Key pairs are per user: another user has none.
    assert app.get(URL, headers=OTHER).json == {'keypairs': []}
    fault(app.get(URL + '/k1', headers=OTHER, status='*'), 'itemNotFound',
          404)


@pytest.mark.parametrize('version,status', [('2.1', 202), ('2.2', 204),
                                            ('2.88', 204)])
def test_delete_status_per_version(app, version, status):
    create(app, {'name': 'gone'})
    resp = app.delete(URL + '/gone', headers=headers(version, MEMBER),
                      status='*')
    assert resp.status_int == status and resp.body == b''
    message = fault(app.delete(URL + '/gone', headers=headers(version,
                                                              MEMBER),
                               status='*'), 'itemNotFound', 404)
    assert message == 'Keypair gone not found for user bob'


def test_admin_manages_another_users_keypairs_from_2_10(app):
    resp = create(app, {'name': 'for-bob', 'user_id': 'bob'}, '2.10',
                  token=ADMIN)
    assert resp.status_int == 201
    assert resp.json['keypair']['user_id'] == 'bob'
    # Bob sees it as his own.
    assert app.get(URL + '/for-bob', headers=MEMBER).json['keypair'][
        'user_id'] == 'bob'
    assert [k['keypair']['name'] for k in app.get(
        URL + '?user_id=bob', headers=headers('2.10', ADMIN)).json[
        'keypairs']] == ['for-bob']
    assert app.get(URL + '/for-bob?user_id=bob',
                   headers=headers('2.10', ADMIN)).status_int == 200
    # Below 2.10 user_id is ignored: the admin's own key pairs.
    assert app.get(URL + '?user_id=bob', headers=headers('2.9', ADMIN)
                   ).json == {'keypairs': []}
    # A member may not name another user.
    fault(create(app, {'name': 'x', 'user_id': 'carol'}, '2.10'),
          'forbidden', 403)
    fault(app.get(URL + '?user_id=carol', headers=headers('2.10', MEMBER),
                  status='*'), 'forbidden', 403)
    assert app.delete(URL + '/for-bob?user_id=bob',
                      headers=headers('2.10', ADMIN)).status_int == 204


def test_paging_from_2_35(app):
    for i in range(5):
        create(app, {'name': 'kp%d' % i})
    page = app.get(URL + '?limit=2', headers=headers('2.35', MEMBER)).json
    assert [k['keypair']['name'] for k in page['keypairs']] == ['kp0', 'kp1']
    link = page['keypairs_links'][0]
    assert link['rel'] == 'next'
    assert link['href'].endswith('/v2.1/os-keypairs?limit=2&marker=kp1')
    rest = app.get(URL + '?marker=kp1', headers=headers('2.35', MEMBER)).json
    assert [k['keypair']['name'] for k in rest['keypairs']] == [
        'kp2', 'kp3', 'kp4']
    assert 'keypairs_links' not in rest
    fault(app.get(URL + '?marker=nope', headers=headers('2.35', MEMBER),
                  status='*'), 'badRequest', 400)
    fault(app.get(URL + '?limit=-1', headers=headers('2.35', MEMBER),
                  status='*'), 'badRequest', 400)
    # Before 2.35 limit is ignored.
    assert len(app.get(URL + '?limit=2', headers=headers('2.34', MEMBER)
                       ).json['keypairs']) == 5


@pytest.mark.parametrize('method,path', [
    ('GET', URL + '?foo=1'), ('GET', URL + '/strict?foo=1'),
    ('DELETE', URL + '/strict?foo=1')])
def test_unknown_query_parameters_are_400_from_2_75(app, method, path):
    create(app, {'name': 'strict'})
    for version in ('2.75', '2.88'):
        resp = app.request(path, method=method,
                           headers=headers(version, MEMBER), status='*')
        assert 'foo' in fault(resp, 'badRequest', 400)
    resp = app.request(path, method=method, headers=headers('2.74', MEMBER),
                       status='*')
    assert resp.status_int in (200, 204)


def test_import_only_with_wider_names_from_2_92(app):
    """2.92: no generation (public_key required, a 400 naming it); names
    may hold '@' and '.', which 2.91 refuses."""
    generated = create(app, {'name': 'gen'}, version='2.91')
    assert generated.status_int == 201 and generated.json['keypair'][
        'private_key']
    refused = create(app, {'name': 'gen2'}, version='2.92')
    fault(refused, 'badRequest', 400)
    assert 'public_key' in refused.json['badRequest']['message']
    key = new_public_key()
    fault(create(app, {'name': 'me@host.example', 'public_key': key},
                 version='2.91'), 'badRequest', 400)
    made = create(app, {'name': 'me@host.example', 'public_key': key},
                  version='2.92')
    assert made.status_int == 201, made.text
    assert 'private_key' not in made.json['keypair']
    shown = app.get(URL + '/me@host.example',
                    headers=headers('2.92', MEMBER))
    assert shown.json['keypair']['name'] == 'me@host.example'
    assert shown.json['keypair']['fingerprint'] == md5_fingerprint(key)
    fault(create(app, {'name': 'bad/name', 'public_key': key},
                 version='2.92'), 'badRequest', 400)
    app.delete(URL + '/me@host.example', headers=headers('2.92', MEMBER),
               status=204)
