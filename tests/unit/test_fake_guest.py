"""The simulated guest's shell (nova_lite.virt.fake_guest): each command
Tempest's compute tests send, with Tempest's prologue, answers as a
small Linux guest (busybox, util-linux) would: output, exit status and
stderr."""
import pytest

from nova_lite.virt import fake_guest

PROLOGUE = 'set -eu -o pipefail; PATH=$PATH:/sbin:/usr/sbin; '
NOW = 1000000.0
GiB = 1024 ** 3


def _guest(**extra):
    guest = {'hostname': 'tempest-server-1', 'vcpus': 2, 'memory_mb': 128,
             'booted_at': NOW - 123.75,
             'local_disks': fake_guest.local_disks(1),
             'authorized_keys': ['ssh-rsa AAAAB3Nza tempest']}
    guest.update(extra)
    return guest


def _run(command, guest=None, user='cirros', prologue=True):
    shell = fake_guest.Shell(guest or _guest(), user, now=NOW)
    status, out, err = shell.run((PROLOGUE if prologue else '') + command)
    return status, out, err, shell


def test_hostname_is_the_guests():
    assert _run('hostname')[:3] == (0, 'tempest-server-1\n', '')
    assert _run('cat /etc/hostname')[:3] == (0, 'tempest-server-1\n', '')


def test_processors_count_the_vcpus():
    assert _run('grep -c ^processor /proc/cpuinfo')[:3] == (0, '2\n', '')
    assert _run('grep -c ^processor /proc/cpuinfo',
                _guest(vcpus=1))[:3] == (0, '1\n', '')


def test_uptime_counts_from_the_second_of_the_boot():
    # Booted 123.75 s ago, at 0.25 s into a second: a client's clock
    # less the whole seconds of uptime is that second, whatever the
    # fraction (Tempest compares boot times so).
    assert _run('cut -f1 -d. /proc/uptime')[:3] == (0, '124\n', '')
    status, out, _err, _s = _run('cat /proc/uptime')
    assert status == 0 and out.startswith('124.00 ')


def test_lsblk_lists_root_ephemeral_swap_and_volumes():
    guest = _guest(local_disks=fake_guest.local_disks(1, 2, 512),
                   volumes={'/dev/vdd': 'vol-1'})
    status, out, err, _s = _run('lsblk -lb --nodeps', guest)
    assert (status, err) == (0, '')
    lines = out.splitlines()
    assert lines[0].split() == ['NAME', 'MAJ:MIN', 'RM', 'SIZE', 'RO',
                                'TYPE', 'MOUNTPOINTS']
    rows = [line.split() for line in lines[1:]]
    assert [(r[0], r[3], r[5]) for r in rows] == [
        ('vda', str(GiB), 'disk'), ('vdb', str(2 * GiB), 'disk'),
        ('vdc', str(512 * 1024 ** 2), 'disk'), ('vdd', str(GiB), 'disk')]
    # Tempest's get_disks: the TYPE column is where the header says.
    pos = lines[0].find('TYPE')
    assert all(line[pos:pos + 4] == 'disk' for line in lines[1:])


def test_lsblk_shows_the_root_partition_without_nodeps():
    out = _run('lsblk')[1]
    assert [line.split()[0] for line in out.splitlines()] == [
        'NAME', 'vda', 'vda1']
    assert out.splitlines()[2].split()[3:6] == ['1023M', '0', 'part']


def test_volume_on_a_local_disks_name_gets_the_next_one():
    guest = _guest(local_disks=fake_guest.local_disks(1, 1),
                   volumes={'/dev/vdb': 'vol-1'})
    assert [d[0] for d in fake_guest.disks(guest)] == ['vda', 'vdb', 'vdc']


def test_volume_backed_guest_has_only_its_volumes():
    guest = _guest(local_disks=fake_guest.local_disks(0),
                   volumes={'/dev/vda': 'root-vol'})
    assert [d[:1] + d[2:] for d in fake_guest.disks(guest)] == [
        ('vda', 'volume')]
    assert _run('grep -c -E [vs]d.$ /proc/partitions', guest)[:3] == (
        0, '1\n', '')


def test_partitions_count_whole_disks():
    guest = _guest(volumes={'/dev/vdb': 'a', '/dev/vdc': 'b'})
    assert _run('grep -c -E [vs]d.$ /proc/partitions', guest)[:3] == (
        0, '3\n', '')
    out = _run('cat /proc/partitions', guest)[1]
    assert out.splitlines()[:3] == ['major minor  #blocks  name', '',
                                    ' 253        0    1048576 vda']


def test_lsblk_scsi_lists_sd_disks():
    guest = _guest(volumes={'/dev/sda': 'lun'})
    status, out, _err, _s = _run('lsblk -S', guest)
    assert status == 0
    assert out.startswith('NAME HCTL')
    assert '\nsda ' in out
    assert _run('lsblk -S')[:3] == (0, '', '')


def test_touch_then_cat_and_missing_files():
    status, out, err, shell = _run('touch test_file')
    assert (status, out, err) == (0, '', '')
    assert shell.files == {'/home/cirros/test_file': ''}
    guest = _guest(files=shell.files)
    assert _run('cat test_file', guest)[:3] == (0, '', '')
    assert _run('cat /home/cirros/test_file', guest)[:3] == (0, '', '')
    assert _run('cat test_file')[:3] == (
        1, '', "cat: can't open 'test_file': No such file or directory\n")


def test_touch_in_a_missing_directory_fails():
    assert _run('touch /nowhere/x')[:3] == (
        1, '', 'touch: /nowhere/x: No such file or directory\n')


def test_sudo_cat_of_a_personality_file():
    guest = _guest(files={'/test.txt': 'This is a test file.'})
    assert _run('sudo cat /test.txt', guest)[:3] == (
        0, 'This is a test file.', '')
    assert _run('sudo -n cat /test.txt', guest)[:3] == (
        0, 'This is a test file.', '')


def test_unknown_command_is_not_found():
    assert _run('curl -V')[:3] == (127, '', 'sh: curl: not found\n')
    assert _run('/usr/local/bin/foo')[:3] == (
        127, '', 'sh: /usr/local/bin/foo: not found\n')


def test_errexit_stops_at_the_first_failure():
    status, out, err, _s = _run('cat nothing; echo after')
    assert (status, out) == (1, '')
    assert 'No such file or directory' in err
    # Without the prologue (no set -e), the shell goes on.
    assert _run('cat nothing; echo after', prologue=False)[:2] == (
        0, 'after\n')


def test_and_or_lists():
    assert _run('false && echo no; echo yes')[:3] == (0, 'yes\n', '')
    assert _run('false || echo rescued')[:3] == (0, 'rescued\n', '')
    assert _run('true && echo both')[:3] == (0, 'both\n', '')
    assert _run('cat ~/.ssh/authorized_keys || true')[:3] == (
        0, 'ssh-rsa AAAAB3Nza tempest\n', '')


def test_pipes_and_pipefail():
    assert _run('cat /proc/cpuinfo | grep -c ^processor')[:3] == (
        0, '2\n', '')
    assert _run('cat nothing | true')[0] == 1
    assert _run('cat nothing | true', prologue=False)[0] == 0


def test_redirects_write_the_guests_files():
    status, out, err, shell = _run(
        'echo hello > /tmp/a && echo world >> /tmp/a && cat /tmp/a')
    assert (status, out, err) == (0, 'hello\nworld\n', '')
    assert shell.files['/tmp/a'] == 'hello\nworld\n'
    assert _run('cat nothing 2>/dev/null || echo quiet')[:3] == (
        0, 'quiet\n', '')
    assert _run('cat nothing 2>&1 || true')[:3] == (
        0, "cat: can't open 'nothing': No such file or directory\n", '')
    assert _run('sh -c "echo \\"msg\\" >/dev/console"')[:3] == (0, '', '')


def test_quotes_and_variables():
    assert _run('echo "$HOME" \'$HOME\' ~')[:3] == (
        0, '/home/cirros $HOME /home/cirros\n', '')
    assert _run('echo $PATH')[1].endswith(':/sbin:/usr/sbin\n')
    assert _run('echo "a  b"   c')[1] == 'a  b c\n'


def test_root_home_and_whoami():
    assert _run('whoami', user='root')[1] == 'root\n'
    assert _run('sudo whoami')[1] == 'root\n'
    assert _run('touch f', user='root')[3].files == {'/root/f': ''}


def test_syntax_error_exits_2():
    status, _out, err, _s = _run('echo "unterminated')
    assert status == 2 and err.startswith('sh: ')
    assert _run('&& true')[0] == 2


def test_sync_true_and_uname():
    assert _run('sync')[:3] == (0, '', '')
    assert _run('true')[:3] == (0, '', '')
    assert _run('uname -r')[1] == fake_guest.KERNEL + '\n'


@pytest.mark.parametrize('command, status, out', [
    ('grep -q processor /proc/cpuinfo', 0, ''),
    ('grep -v ^processor /etc/hostname', 0, 'tempest-server-1\n'),
    ('grep nothing /etc/hostname', 1, ''),
    ('wc -l /proc/partitions', 0, '      4 /proc/partitions\n'),
    ('cut -d: -f1 /etc/hostname', 0, 'tempest-server-1\n'),
])
def test_text_tools(command, status, out):
    assert _run(command)[:2] == (status, out)


def test_rm_and_mkdir():
    _s, _o, _e, shell = _run('mkdir -p /data/x && touch /data/x/f')
    guest = _guest(files=shell.files)
    assert _run('cat /data/x/f', guest)[0] == 0
    assert _run('rm /data/x/f && cat /data/x/f', guest)[0] == 1
    assert _run('rm /missing')[:3] == (
        1, '', "rm: can't remove '/missing': No such file or directory\n")
