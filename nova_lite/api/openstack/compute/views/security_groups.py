"""Security groups as the Compute API shows them (Nova's format of a
Neutron group): ingress rules only, ports -1 where a rule has none."""


def _rule(rule, groups_by_id):
    body = {'id': rule['id'], 'parent_group_id': rule['security_group_id'],
            'ip_protocol': rule['protocol'],
            'from_port': (rule['port_range_min']
                          if rule['port_range_min'] is not None else -1),
            'to_port': (rule['port_range_max']
                        if rule['port_range_max'] is not None else -1),
            'group': {}, 'ip_range': {}}
    remote = rule['remote_group_id']
    if remote:
        group = groups_by_id.get(remote)
        if group is not None:
            body['group'] = {'name': group['name'],
                             'tenant_id': group['project_id']}
    else:
        body['ip_range'] = {'cidr': rule['remote_ip_prefix'] or (
            '0.0.0.0/0' if rule['ethertype'] == 'IPv4' else '::/0')}
    return body


def group(group, groups_by_id):
    return {'id': group['id'], 'name': group['name'],
            'description': group['description'] or '',
            'tenant_id': group['project_id'] or '',
            'rules': [_rule(r, groups_by_id) for r in group['rules']
                      if r['direction'] == 'ingress']}


def index(groups):
    by_id = {g['id']: g for g in groups}
    return {'security_groups': [group(g, by_id) for g in groups]}
