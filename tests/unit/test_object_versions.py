"""Object fingerprints: a change to an object's fields or remotable
methods changes its hash; bump its VERSION (and record what the new
version speaks in service_version.SERVICE_VERSION_HISTORY), then update
the hash here."""
from oslo_versionedobjects import fixture

from nova_lite import notifications
from nova_lite import objects
from nova_lite.objects import base

objects.register_all()
# Notification payloads: versioned like objects (their own registry,
# the same process-wide set of classes).
notifications.register_all()

OBJECT_HASHES = {
    'CellMapping': '1.0-eeb6cc7b2c49f9e09ea6c2a15258d0f4',
    'CellMappingList': '1.0-4ee0d9efdfd681fed822da88376e04d2',
    'ComputeNode': '1.2-3187e1f44d060a173133dc69d30369e7',
    'ComputeNodeList': '1.1-c88a1806eea7a4a4f073aeac0f43534f',
    'EmbeddedFlavor': '1.0-57f6988b49220fbc0d50d8574f6ba982',
    'Instance': '1.3-b75ebe7c0719ec7e53d4fbab69b7a696',
    'InstanceList': '1.0-461e52fd8587aa102cd7a3d59082eeb4',
    'InstanceAction': '1.0-9fa9c8916124f2b92e1d043dd700e1dc',
    'InstanceActionList': '1.0-b0237283c55839f0b794800a8c62c4b7',
    'InstanceActionEvent': '1.1-dd415b96f3573d46450b04763e96f064',
    'InstanceActionEventList': '1.0-13d92fb953030cdbfee56481756e02be',
    'BuildRequest': '1.0-59164f524b74b2a199ef34d45452c260',
    'BuildRequestList': '1.0-71cf551b24c7fb1183d177e7db3fd11d',
    'RequestSpec': '1.4-ef498acf6884f5dd64620b64d6a8ae88',
    'BlockDeviceMapping': '1.0-eb9df737374cc76e9c45b3fda0707456',
    'BlockDeviceMappingList': '1.0-3499bdf306dc81a020d50ac7408ec8c7',
    'Flavor': '1.0-162fb2815973818e60710ea52174b1b6',
    'FlavorList': '1.1-a4e9278166703fa4d7037e413a3b0596',
    'HostMapping': '1.0-1441319dc4ad0abbfff131ba1fd81661',
    'HostMappingList': '1.0-ad8a103fab7959f3e97f87dc304e6404',
    'InstanceMapping': '1.0-c567d34060c540f7d89bd088f6eda9d7',
    'KeyPair': '1.0-9824d711743ed17c4030cc08fe7530eb',
    'Migration': '1.1-379bbc48cf58406ccf10354d838d6b5a',
    'MigrationList': '1.0-0b28e574fb3096c924aba0fe5bba3ebb',
    'KeyPairList': '1.0-94aad3ac5c938eef4b5e83da0212f506',
    'Service': '1.1-13ddf1d9d933459f36f49ded2aaf9644',
    'ServiceList': '1.0-bc0af570ce1c61131068f0ddff1e320d',
    'InstanceGroup': '1.0-4139cf53f73532f24c48a7fefa37419a',
    'InstanceGroupList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    # Notifications (nova_lite.notifications): their versions are what a
    # consumer reads in nova_object.version.
    'AuditPeriodPayload': '1.0-28345f72ca9d805eeb61b2c2385805dd',
    'EventType': '1.0-a601b01c1849946ca2d59286fbecaa04',
    'ExceptionPayload': '1.0-96f178a12691e3ef0d8e3188fc481b90',
    'FlavorPayload': '1.0-96c63377fac031f4dd0a28f346786232',
    'InstanceActionNotification': '1.0-256dc22834c64f95b2f0ef3546208cd5',
    'InstanceActionPayload': '1.0-f705af769cd81fdddbe8ae116c186d00',
    'InstanceActionResizePrepNotification':
        '1.0-256dc22834c64f95b2f0ef3546208cd5',
    'InstanceActionResizePrepPayload':
        '1.0-e1e2353271c248f3b1f035f49339da44',
    'InstanceActionVolumeSwapNotification':
        '1.0-256dc22834c64f95b2f0ef3546208cd5',
    'InstanceActionVolumeSwapPayload':
        '1.0-a0324275c5612278a1ab093312807611',
    'InstanceActionRescueNotification':
        '1.0-256dc22834c64f95b2f0ef3546208cd5',
    'InstanceActionRescuePayload': '1.0-5806effdccd1d87b14c5507c1bf05e85',
    'InstanceActionSnapshotNotification':
        '1.0-256dc22834c64f95b2f0ef3546208cd5',
    'InstanceActionSnapshotPayload':
        '1.0-e91a5c66aa6c295b208210ce22dfbb31',
    'InstanceExistsNotification': '1.0-256dc22834c64f95b2f0ef3546208cd5',
    'InstanceExistsPayload': '1.0-f441bf30a9812d96709fac0e1ccd61ab',
    'InstanceCreateNotification': '1.0-256dc22834c64f95b2f0ef3546208cd5',
    'InstanceCreatePayload': '1.0-8f352fa663f8975f0128d3c213206a2e',
    'InstanceStateUpdatePayload': '1.0-a934d04e1b314318e42e8062647edd11',
    'InstanceUpdateNotification': '1.0-256dc22834c64f95b2f0ef3546208cd5',
    'InstanceUpdatePayload': '1.0-f676e1db284b30efeea86d2d6afa5ab3',
    'IpPayload': '1.0-1dcd7e48ab1c5631fde1963159d6981d',
    'NotificationPublisher': '1.0-578ee5fea2922ff32e8917621f140857',
    # Host aggregates (issue 34).
    'Aggregate': '1.0-74f491647516d9d22986267617cb40f8',
    'AggregateList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'AggregatePayload': '1.0-2c4ce1dcd4855a6205eb8770e12dde93',
    'AggregateNotification': '1.0-256dc22834c64f95b2f0ef3546208cd5',
    'AggregateCachePayload': '1.0-e5a76d36139b8ce98b7e3f64c59671a1',
    'AggregateCacheNotification': '1.0-256dc22834c64f95b2f0ef3546208cd5',
    'TaskLog': '1.0-01acecfcd81e8453191d2b17330f86d3',

    'ServerGroupNotification': '1.0-256dc22834c64f95b2f0ef3546208cd5',
    'ServerGroupPayload': '1.0-e16b5630bee44ccf1b452cb233d95e89',
    # Server shares (issue 38, 2.97).
    'ShareMapping': '1.0-3b834e2a4fc2b9ca00bd003eebcad544',
}


def test_object_fingerprints_match_their_versions():
    checker = fixture.ObjectVersionChecker(
        base.NovaLiteObjectRegistry.obj_classes())
    expected, actual = checker.test_hashes(OBJECT_HASHES)
    assert expected == actual, (
        'Objects changed: bump their VERSION and update OBJECT_HASHES')
