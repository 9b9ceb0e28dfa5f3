"""Object fingerprints: a change to an object's fields or remotable
methods changes its hash; bump its VERSION (and record what the new
version speaks in service_version.SERVICE_VERSION_HISTORY), then update
the hash here."""
from oslo_versionedobjects import fixture

from nova_lite import objects
from nova_lite.objects import base

objects.register_all()

OBJECT_HASHES = {
    'CellMapping': '1.0-eeb6cc7b2c49f9e09ea6c2a15258d0f4',
    'CellMappingList': '1.0-4ee0d9efdfd681fed822da88376e04d2',
    'ComputeNode': '1.2-3187e1f44d060a173133dc69d30369e7',
    'ComputeNodeList': '1.1-c88a1806eea7a4a4f073aeac0f43534f',
    'EmbeddedFlavor': '1.0-57f6988b49220fbc0d50d8574f6ba982',
    'Instance': '1.0-79e7a1137fcc782af0314dc3eba79e02',
    'InstanceList': '1.0-461e52fd8587aa102cd7a3d59082eeb4',
    'InstanceAction': '1.0-9fa9c8916124f2b92e1d043dd700e1dc',
    'InstanceActionList': '1.0-b0237283c55839f0b794800a8c62c4b7',
    'InstanceActionEvent': '1.0-d1c8a41b33c228b3d1eac632d8de8677',
    'InstanceActionEventList': '1.0-13d92fb953030cdbfee56481756e02be',
    'BuildRequest': '1.0-59164f524b74b2a199ef34d45452c260',
    'BuildRequestList': '1.0-71cf551b24c7fb1183d177e7db3fd11d',
    'RequestSpec': '1.0-c59ab76f70284b12ee86c812851182e4',
    'Flavor': '1.0-162fb2815973818e60710ea52174b1b6',
    'FlavorList': '1.1-a4e9278166703fa4d7037e413a3b0596',
    'HostMapping': '1.0-1441319dc4ad0abbfff131ba1fd81661',
    'HostMappingList': '1.0-ad8a103fab7959f3e97f87dc304e6404',
    'InstanceMapping': '1.0-c567d34060c540f7d89bd088f6eda9d7',
    'KeyPair': '1.0-9824d711743ed17c4030cc08fe7530eb',
    'KeyPairList': '1.0-94aad3ac5c938eef4b5e83da0212f506',
    'Service': '1.1-13ddf1d9d933459f36f49ded2aaf9644',
    'ServiceList': '1.0-bc0af570ce1c61131068f0ddff1e320d',
}


def test_object_fingerprints_match_their_versions():
    checker = fixture.ObjectVersionChecker(
        base.NovaLiteObjectRegistry.obj_classes())
    expected, actual = checker.test_hashes(OBJECT_HASHES)
    assert expected == actual, (
        'Objects changed: bump their VERSION and update OBJECT_HASHES')
