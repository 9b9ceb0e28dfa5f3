"""[notifications]: which notifications nova_lite emits, on which topics.

Where they go is oslo.messaging's [oslo_messaging_notifications] group
(driver, transport_url, topics of the legacy format), registered here
up front so config files and overrides can set it before any notifier
exists. With no driver configured nothing is sent.
"""
from oslo_config import cfg
from oslo_messaging import opts as messaging_opts

group = cfg.OptGroup('notifications', title='Notifications')

MESSAGING_GROUP = 'oslo_messaging_notifications'

opts = [
    cfg.StrOpt('notification_format', default='versioned',
               choices=[('versioned', 'versioned notifications only'),
                        ('both', 'both formats; nova_lite has no legacy '
                                 'format, so the same as versioned'),
                        ('unversioned', 'legacy notifications only; '
                                        'nova_lite has none, so nothing is '
                                        'sent')],
               help='Format of the notifications emitted. nova_lite emits '
                    'only versioned notifications (Nova\'s documented '
                    'shape: nova_object.name/version/namespace/data).'),
    cfg.StrOpt('notify_on_state_change',
               choices=[(None, 'never (the default, as Nova)'),
                        ('vm_and_task_state', 'on every change of vm_state '
                                              'or task_state'),
                        ('vm_state', 'on changes of vm_state only'),
                        ('none', 'never (accepted for older configs)')],
               help='When to send instance.update: unset (as in Nova) '
                    'never, so a state change costs no payload; '
                    'vm_state or vm_and_task_state to follow servers\' '
                    'state changes.'),
    cfg.ListOpt('versioned_notifications_topics',
                default=['versioned_notifications'],
                help='Topics the versioned notifications are sent to.'),
]


def register_opts(conf):
    conf.register_group(group)
    conf.register_opts(opts, group=group)
    for name, group_opts in messaging_opts.list_opts():
        if name == MESSAGING_GROUP:
            conf.register_opts(group_opts, group=MESSAGING_GROUP)


def list_opts():
    return {group.name: opts}
