"""Versioned objects. register_all() imports every object module once."""


def register_all():
    __import__('nova_lite.objects.cell_mapping')
    __import__('nova_lite.objects.host_mapping')
    __import__('nova_lite.objects.instance_mapping')
    __import__('nova_lite.objects.service')
    __import__('nova_lite.objects.compute_node')
    __import__('nova_lite.objects.flavor')
    __import__('nova_lite.objects.embedded_flavor')
    __import__('nova_lite.objects.keypair')
    __import__('nova_lite.objects.instance')
    __import__('nova_lite.objects.build_request')
    __import__('nova_lite.objects.instance_action')
    __import__('nova_lite.objects.migration')
    __import__('nova_lite.objects.block_device')
    __import__('nova_lite.objects.share_mapping')
    __import__('nova_lite.objects.aggregate')
    __import__('nova_lite.objects.task_log')

    __import__('nova_lite.objects.instance_group')
