"""What runs inside a simulated guest: its disks, its small filesystem
and a shell that answers the commands a test harness sends over SSH
(Tempest's RemoteClient: ``exec_command`` with its prologue
``set -eu -o pipefail; PATH=$PATH:/sbin:/usr/sbin;``).

A guest is the fake driver's record of it (a dict, see fake.py); this
module only reads it. Shell(guest, user).run(command) returns
(exit status, stdout, stderr) and leaves what the command wrote in
shell.files ({absolute path: text, or None for a directory}), which
the driver keeps with the guest's root disk.

The shell is a small POSIX-like one, as far as such commands need:
``;``, ``&&``, ``||``, ``|``, ``&`` (run in the foreground), redirects
(``>``, ``>>``, ``<``, ``2>``, ``2>&1``), quotes, ``$VAR`` and ``~``,
a leading ``sudo``, ``sh -c``, and ``set -e`` / ``-o pipefail``. Its
commands print what busybox and util-linux print (a small Linux image
such as CirrOS), errors included; an unknown command is
``sh: NAME: not found`` with status 127.
"""
import posixpath
import re
import time

# Local disks are virtio (vdX, major 253); SCSI disks (sdX) major 8.
VIRTIO_MAJOR, SCSI_MAJOR = 253, 8
GiB, MiB = 1024 ** 3, 1024 ** 2
# A volume whose connection info does not say its size.
DEFAULT_VOLUME_BYTES = GiB

# Directories every guest has.
BASE_DIRS = ('/', '/bin', '/dev', '/etc', '/home', '/mnt', '/proc',
             '/root', '/sbin', '/sys', '/tmp', '/usr', '/usr/bin',
             '/usr/sbin', '/var', '/var/run', '/var/log')
KERNEL = '6.1.0-nova-lite'


def disks(guest):
    """The guest's disks as its kernel names them, in order:
    [(name, bytes, kind)], kind 'root', 'ephemeral', 'swap' or
    'volume'. Local disks come first (vda, vdb... as the guest was
    booted); a volume is named after its mountpoint (/dev/vdc: vdc),
    or the next free name when a local disk has that one."""
    found = []
    used = set()
    for name, size, kind in guest.get('local_disks') or _legacy(guest):
        found.append((name, size, kind))
        used.add(name)
    for mountpoint, volume in sorted((guest.get('volumes') or {}).items()):
        name = posixpath.basename(mountpoint or '') or 'vdb'
        if name in used:
            name = _next_free(name[:2] if name[:2] in ('vd', 'sd')
                              else 'vd', used)
        used.add(name)
        size = (guest.get('volume_bytes') or {}).get(mountpoint)
        found.append((name, size or DEFAULT_VOLUME_BYTES, 'volume'))
    return found


def _legacy(guest):
    """A record from before local_disks: its root disk of disk_gb."""
    if guest.get('disk_gb'):
        return [('vda', guest['disk_gb'] * GiB, 'root')]
    return []


def _next_free(prefix, used):
    for letter in 'abcdefghijklmnopqrstuvwxyz':
        if prefix + letter not in used:
            return prefix + letter
    return prefix + 'z'


def local_disks(root_gb, ephemeral_gb=0, swap_mb=0):
    """The local disks a guest boots with ([(name, bytes, kind)]): its
    root disk (none for a volume-backed server, root_gb 0), then its
    ephemeral and swap disks."""
    found = []
    for size, kind in ((root_gb * GiB, 'root'),
                       (ephemeral_gb * GiB, 'ephemeral'),
                       (swap_mb * MiB, 'swap')):
        if size:
            found.append(('vd' + 'abcdefghijklmnopqrstuvwxyz'[len(found)],
                          size, kind))
    return found


def _major_minor(name, index_by_prefix):
    prefix = name[:2]
    index = index_by_prefix.setdefault(prefix, 0)
    index_by_prefix[prefix] += 1
    return (SCSI_MAJOR if prefix == 'sd' else VIRTIO_MAJOR), index * 16


def _devices(guest):
    """[(name, major, minor, bytes, kind)] with the root disk's
    partition (name1) after it."""
    out = []
    counters = {}
    root_names = {name for name, _s, kind in disks(guest) if kind == 'root'}
    if not root_names:
        # Volume-backed: the root volume is the first disk.
        root_names = {'vda'}
    for name, size, kind in disks(guest):
        major, minor = _major_minor(name, counters)
        out.append((name, major, minor, size, kind))
        if name in root_names:
            out.append((name + '1', major, minor + 1, size - MiB, 'part'))
    return out


def _human(size):
    """lsblk's sizes: 1G, 512M, 1.5G."""
    for unit, scale in (('T', 1024 ** 4), ('G', GiB), ('M', MiB),
                        ('K', 1024)):
        if size >= scale:
            value = size / scale
            text = ('%d' % value if value == int(value) or value >= 10
                    else ('%.1f' % value).rstrip('0').rstrip('.'))
            return text + unit
    return '%dB' % size


def _table(rows, right=()):
    """Columns separated by one space, each as wide as its widest cell
    (those in right aligned right); the last one is not padded."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [cell.rjust(widths[i]) if i in right else
                 cell.ljust(widths[i]) for i, cell in enumerate(row)]
        cells[-1] = row[-1]
        lines.append(' '.join(cells))
    return ''.join(line + '\n' for line in lines)


class ShellError(Exception):
    """A syntax error: sh prints it and exits 2."""


# --- tokens and parsing -------------------------------------------------

OPERATORS = ('2>&1', '2>>', '&&', '||', '>>', '2>', '&>', '|', ';', '&',
             '>', '<', '\n')


class _Var(str):
    """A $NAME in a word, expanded when its command runs."""


class _Word(tuple):
    """A word of the command line: its text (quotes removed) and _Vars,
    in order."""

    def expand(self, env):
        return ''.join(env.get(part, '') if isinstance(part, _Var)
                       else part for part in self)


class _Op(str):
    """An operator: ; && || | & and the redirects."""


def tokenize(text):
    """The command line's words and operators. $NAME, ${NAME} and $?
    outside single quotes, and a word's leading ~ ($HOME), are expanded
    when their command runs (_Word.expand)."""
    tokens = []
    word = None
    i, n = 0, len(text)

    def flush():
        if word is not None:
            tokens.append(_Word(word))

    while i < n:
        c = text[i]
        if word is None and c in ' \t':
            i += 1
            continue
        if word is None and c == '#':
            while i < n and text[i] != '\n':
                i += 1
            continue
        op = next((o for o in OPERATORS if text.startswith(o, i)
                   and (word is None or not o.startswith('2'))), None)
        if op is not None and (c != '2' or word is None):
            flush()
            word = None
            tokens.append(_Op(op))
            i += len(op)
            continue
        if c in ' \t':
            flush()
            word = None
            i += 1
            continue
        if word is None:
            word = []
            if c == '~' and (i + 1 == n or text[i + 1] in '/ \t;|&'):
                word.append(_Var('HOME'))
                i += 1
                continue
        if c == "'":
            end = text.find("'", i + 1)
            if end < 0:
                raise ShellError('unterminated quoted string')
            word.append(text[i + 1:end])
            i = end + 1
        elif c == '"':
            i += 1
            while True:
                if i >= n:
                    raise ShellError('unterminated quoted string')
                c = text[i]
                if c == '"':
                    i += 1
                    break
                if c == '\\' and i + 1 < n and text[i + 1] in '"\\$`\n':
                    word.append(text[i + 1])
                    i += 2
                elif c == '$':
                    value, i = _dollar(text, i)
                    word.append(value)
                else:
                    word.append(c)
                    i += 1
        elif c == '\\':
            if i + 1 < n and text[i + 1] != '\n':
                word.append(text[i + 1])
            i += 2
        elif c == '$':
            value, i = _dollar(text, i)
            word.append(value)
        else:
            word.append(c)
            i += 1
    flush()
    return tokens


def _dollar(text, i):
    """The _Var (or a plain '$') at text[i] and where it ends."""
    if text.startswith('${', i):
        end = text.find('}', i)
        if end < 0:
            raise ShellError('bad substitution')
        return _Var(text[i + 2:end]), end + 1
    if text.startswith('$?', i):
        return _Var('?'), i + 2
    match = re.compile(r'[A-Za-z_][A-Za-z0-9_]*').match(text, i + 1)
    if not match:
        return '$', i + 1
    return _Var(match.group(0)), match.end()


class Command(object):
    def __init__(self):
        self.argv = []
        self.redirects = []    # (operator, target or None)


def parse(tokens):
    """[(and_or, separator)]: each and_or is [(connector, pipeline)]
    (connector None, '&&' or '||'), each pipeline a list of Commands."""
    lists = []
    and_or = []
    pipeline = []
    command = Command()
    connector = None
    i = 0

    def end_command():
        if not command.argv and not command.redirects:
            raise ShellError('syntax error: unexpected "%s"'
                             % (tokens[i] if i < len(tokens) else
                                'end of file'))
        pipeline.append(command)

    while i < len(tokens):
        token = tokens[i]
        if isinstance(token, _Op):
            if token in ('2>&1', '>', '>>', '<', '2>', '2>>', '&>'):
                target = None
                if token != '2>&1':
                    i += 1
                    if i >= len(tokens) or isinstance(tokens[i], _Op):
                        raise ShellError('syntax error: unexpected newline')
                    target = tokens[i]
                command.redirects.append((str(token), target))
            elif token == '|':
                end_command()
                command = Command()
            elif token in ('&&', '||'):
                end_command()
                and_or.append((connector, pipeline))
                pipeline, command, connector = [], Command(), str(token)
            else:   # ; & newline
                if command.argv or command.redirects or pipeline:
                    end_command()
                    and_or.append((connector, pipeline))
                elif and_or or connector:
                    raise ShellError('syntax error: unexpected "%s"'
                                     % token.replace('\n', 'newline'))
                if and_or:
                    lists.append(and_or)
                and_or, pipeline, command, connector = [], [], Command(), None
        else:
            command.argv.append(token)
        i += 1
    if command.argv or command.redirects or pipeline:
        end_command()
        and_or.append((connector, pipeline))
    elif connector:
        raise ShellError('syntax error: unexpected end of file')
    if and_or:
        lists.append(and_or)
    return lists


# --- the shell ------------------------------------------------------------

class _Exit(Exception):
    def __init__(self, status):
        self.status = status


class Shell(object):
    """One shell session in guest (its record) as user; run() runs
    one command line (an SSH exec request)."""

    def __init__(self, guest, user='root', now=None):
        self.guest = guest
        self.user = user
        self.now = now if now is not None else time.time()
        home = '/root' if user == 'root' else '/home/%s' % user
        self.env = {'HOME': home, 'USER': user, 'LOGNAME': user,
                    'SHELL': '/bin/sh', 'PWD': home, '?': '0',
                    'PATH': '/usr/sbin:/usr/bin:/sbin:/bin'}
        self.cwd = home
        self.files = dict(guest.get('files') or {})
        self.errexit = False
        self.pipefail = False

    # Running

    def run(self, text):
        """(status, stdout, stderr) of the command line text."""
        out, err = [], []
        try:
            status = self._run_text(text, '', out, err)
        except _Exit as done:
            status = done.status
        return status, ''.join(out), ''.join(err)

    def _run_text(self, text, stdin, out, err):
        try:
            lists = parse(tokenize(text))
        except ShellError as exc:
            err.append('sh: %s\n' % exc)
            raise _Exit(2)
        status = 0
        for and_or in lists:
            status, failed_last = self._run_and_or(and_or, stdin, out, err)
            self.env['?'] = str(status)
            if status and failed_last and self.errexit:
                raise _Exit(status)
        return status

    def _run_and_or(self, and_or, stdin, out, err):
        status = 0
        ran_last = False
        for index, (connector, pipeline) in enumerate(and_or):
            if (connector == '&&' and status) or (
                    connector == '||' and not status):
                ran_last = False
                continue
            status = self._run_pipeline(pipeline, stdin, out, err)
            ran_last = index == len(and_or) - 1
        return status, ran_last

    def _run_pipeline(self, pipeline, stdin, out, err):
        data = stdin
        statuses = []
        for index, command in enumerate(pipeline):
            last = index == len(pipeline) - 1
            sink = [] if not last else out
            status = self._run_command(command, data, sink, err)
            statuses.append(status)
            data = ''.join(sink)
        if self.pipefail:
            return next((s for s in reversed(statuses) if s), 0)
        return statuses[-1]

    def _run_command(self, command, stdin, out, err):
        argv = [word.expand(self.env) for word in command.argv]
        redirects = [(op, None if target is None
                      else target.expand(self.env))
                     for op, target in command.redirects]
        # Leading NAME=value assignments.
        while argv and re.match(r'^[A-Za-z_][A-Za-z0-9_]*=', argv[0]):
            name, _, value = argv.pop(0).partition('=')
            self.env[name] = value
        my_out, my_err = [], []
        for op, target in redirects:
            if op == '<':
                content = self.read(target)
                if content is None:
                    err.append("sh: can't open '%s': No such file or "
                               "directory\n" % target)
                    return 1
                stdin = content
        status = self._call(argv, stdin, my_out, my_err) if argv else 0
        text_out, text_err = ''.join(my_out), ''.join(my_err)
        for op, target in redirects:
            if op == '2>&1':
                text_out, text_err = text_out + text_err, ''
            elif op in ('>', '>>', '&>'):
                if op == '&>':
                    text_out, text_err = text_out + text_err, ''
                if not self._write(target, text_out, op == '>>', err):
                    return 1
                text_out = ''
            elif op in ('2>', '2>>'):
                if not self._write(target, text_err, op == '2>>', err):
                    return 1
                text_err = ''
        out.append(text_out)
        err.append(text_err)
        return status

    def _call(self, argv, stdin, out, err):
        name = argv[0]
        handler = COMMANDS.get(posixpath.basename(name))
        if handler is None or ('/' in name and not name.startswith(
                ('/bin/', '/sbin/', '/usr/bin/', '/usr/sbin/'))):
            err.append('sh: %s: not found\n' % name)
            return 127
        return handler(self, argv[1:], stdin, out, err)

    # The filesystem

    def path(self, name):
        return posixpath.normpath(posixpath.join(self.cwd, name))

    def is_dir(self, path):
        if path in BASE_DIRS or path == self.env['HOME']:
            return True
        if path in self.files:
            return self.files[path] is None
        prefix = path.rstrip('/') + '/'
        return any(p.startswith(prefix) for p in self.files)

    def read(self, name):
        """The text of file name, or None when there is none."""
        path = self.path(name)
        virtual = VIRTUAL_FILES.get(path)
        if virtual is not None:
            return virtual(self)
        if path == posixpath.join(self.env['HOME'], '.ssh/authorized_keys'):
            return ''.join(k.strip() + '\n' for k in
                           self.guest.get('authorized_keys') or ())
        content = self.files.get(path)
        return content if isinstance(content, str) else None

    def _write(self, name, text, append, err):
        path = self.path(name)
        if path in ('/dev/null', '/dev/console', '/dev/ttyS0',
                    '/dev/kmsg'):
            return True
        if path.startswith(('/proc/', '/sys/', '/dev/')) or self.is_dir(
                path):
            reason = ('Is a directory' if self.is_dir(path)
                      else 'Permission denied')
            err.append("sh: can't create %s: %s\n" % (name, reason))
            return False
        if not self.is_dir(posixpath.dirname(path)):
            err.append("sh: can't create %s: nonexistent directory\n"
                       % name)
            return False
        old = self.files.get(path) if append else None
        self.files[path] = (old or '') + text
        return True

    # What the kernel shows

    def uptime(self):
        # From the start of the second it booted in: the boot time a
        # client derives (its clock less the whole seconds of uptime)
        # is that second, whatever the fraction.
        booted = self.guest.get('booted_at')
        return max(0.0, self.now - (int(booted) if booted else self.now))

    @property
    def hostname(self):
        return self.guest.get('hostname') or 'localhost'


# --- /proc and /etc ------------------------------------------------------

def _cpuinfo(shell):
    blocks = []
    for index in range(shell.guest.get('vcpus') or 1):
        blocks.append(
            'processor\t: %d\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n'
            'model\t\t: 85\nmodel name\t: Intel Xeon Processor '
            '(Cascadelake)\nstepping\t: 6\ncpu MHz\t\t: 2095.076\n'
            'cache size\t: 16384 KB\nphysical id\t: %d\nsiblings\t: 1\n'
            'core id\t\t: 0\ncpu cores\t: 1\nflags\t\t: fpu vme de pse '
            'tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 '
            'clflush mmx fxsr sse sse2 ht syscall nx lm hypervisor\n'
            'bogomips\t: 4190.15\n\n' % (index, index))
    return ''.join(blocks)


def _partitions(shell):
    lines = ['major minor  #blocks  name\n', '\n']
    for name, major, minor, size, _kind in _devices(shell.guest):
        lines.append('%4d  %7d %10d %s\n' % (major, minor, size // 1024,
                                             name))
    return ''.join(lines)


def _meminfo(shell):
    total = (shell.guest.get('memory_mb') or 64) * 1024
    return ('MemTotal:       %8d kB\nMemFree:        %8d kB\n'
            'MemAvailable:   %8d kB\n' % (total, total * 3 // 4,
                                          total * 4 // 5))


def _hosts(shell):
    return '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n' % shell.hostname


VIRTUAL_FILES = {
    '/proc/uptime': lambda s: '%.2f %.2f\n' % (s.uptime(),
                                               s.uptime() * 0.9),
    '/proc/cpuinfo': _cpuinfo,
    '/proc/partitions': _partitions,
    '/proc/meminfo': _meminfo,
    '/proc/version': lambda s: 'Linux version %s (simulated)\n' % KERNEL,
    '/proc/sys/kernel/hostname': lambda s: s.hostname + '\n',
    '/etc/hostname': lambda s: s.hostname + '\n',
    '/etc/hosts': _hosts,
    '/etc/resolv.conf': lambda s: 'search openstacklocal\n',
    '/etc/os-release': lambda s: ('NAME=CirrOS\nVERSION="simulated"\n'
                                  'ID=cirros\n'),
}


# --- commands ------------------------------------------------------------

def _options(args, flags, with_value=()):
    """(set of flags, {option: value}, operands) of args: single-letter
    flags may be grouped (-lb); '--' ends them; long options kept as
    they are (--nodeps)."""
    seen, values, operands = set(), {}, []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == '--':
            operands.extend(args[i + 1:])
            break
        if arg.startswith('--') and len(arg) > 2:
            name, eq, value = arg.partition('=')
            if name in with_value:
                if not eq:
                    i += 1
                    value = args[i] if i < len(args) else ''
                values[name] = value
            else:
                seen.add(name)
        elif arg.startswith('-') and len(arg) > 1:
            j = 1
            while j < len(arg):
                letter = '-' + arg[j]
                if letter in with_value:
                    value = arg[j + 1:]
                    if not value:
                        i += 1
                        value = args[i] if i < len(args) else ''
                    values[letter] = value
                    break
                seen.add(letter)
                j += 1
        else:
            operands.append(arg)
        i += 1
    unknown = [f for f in seen if f not in flags]
    return seen, values, operands, unknown


def _invalid(name, err, option):
    err.append("%s: unrecognized option '%s'\n" % (name, option)
               if option.startswith('--') else
               '%s: invalid option -- \'%s\'\n' % (name, option[1:]))
    return 1


def cmd_true(shell, args, stdin, out, err):
    return 0


def cmd_false(shell, args, stdin, out, err):
    return 1


def cmd_set(shell, args, stdin, out, err):
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ('-o', '+o') and i + 1 < len(args):
            if args[i + 1] == 'pipefail':
                shell.pipefail = arg == '-o'
            elif args[i + 1] == 'errexit':
                shell.errexit = arg == '-o'
            i += 2
            continue
        if arg[:1] in '-+' and 'e' in arg[1:]:
            shell.errexit = arg[0] == '-'
        i += 1
    return 0


def cmd_export(shell, args, stdin, out, err):
    for arg in args:
        name, eq, value = arg.partition('=')
        if eq:
            shell.env[name] = value
    return 0


def cmd_echo(shell, args, stdin, out, err):
    newline = True
    while args and args[0] in ('-n', '-e', '-E'):
        newline = newline and args[0] != '-n'
        args = args[1:]
    out.append(' '.join(args) + ('\n' if newline else ''))
    return 0


def cmd_cat(shell, args, stdin, out, err):
    _flags, _v, names, _u = _options(args, ())
    if not names:
        out.append(stdin)
        return 0
    status = 0
    for name in names:
        if name == '-':
            out.append(stdin)
            continue
        if shell.is_dir(shell.path(name)):
            err.append('cat: read error: Is a directory\n')
            status = 1
            continue
        content = shell.read(name)
        if content is None:
            err.append("cat: can't open '%s': No such file or directory\n"
                       % name)
            status = 1
        else:
            out.append(content)
    return status


def cmd_touch(shell, args, stdin, out, err):
    flags, _v, names, unknown = _options(args, ('-c', '-a', '-m'))
    if unknown:
        return _invalid('touch', err, unknown[0])
    if not names:
        err.append('touch: missing operand\n')
        return 1
    status = 0
    for name in names:
        path = shell.path(name)
        if path in shell.files or shell.is_dir(path) or (
                path in VIRTUAL_FILES):
            continue
        if '-c' in flags:
            continue
        if not shell.is_dir(posixpath.dirname(path)):
            err.append('touch: %s: No such file or directory\n' % name)
            status = 1
            continue
        shell.files[path] = ''
    return status


def cmd_rm(shell, args, stdin, out, err):
    flags, _v, names, unknown = _options(args, ('-f', '-r', '-R'))
    if unknown:
        return _invalid('rm', err, unknown[0])
    status = 0
    for name in names:
        path = shell.path(name)
        if shell.is_dir(path):
            if not flags & {'-r', '-R'}:
                err.append("rm: '%s' is a directory\n" % name)
                status = 1
                continue
            prefix = path.rstrip('/') + '/'
            for key in [k for k in shell.files
                        if k == path or k.startswith(prefix)]:
                del shell.files[key]
        elif path in shell.files:
            del shell.files[path]
        elif '-f' not in flags:
            err.append("rm: can't remove '%s': No such file or directory\n"
                       % name)
            status = 1
    return status


def cmd_mkdir(shell, args, stdin, out, err):
    flags, _v, names, unknown = _options(args, ('-p',))
    if unknown:
        return _invalid('mkdir', err, unknown[0])
    status = 0
    for name in names:
        path = shell.path(name)
        parent = posixpath.dirname(path)
        if shell.is_dir(path) or path in shell.files:
            if '-p' not in flags:
                err.append("mkdir: can't create directory '%s': File "
                           "exists\n" % name)
                status = 1
            continue
        if not shell.is_dir(parent) and '-p' not in flags:
            err.append("mkdir: can't create directory '%s': No such file "
                       "or directory\n" % name)
            status = 1
            continue
        while path != '/' and not shell.is_dir(path):
            shell.files[path] = None
            path = posixpath.dirname(path)
    return status


def cmd_ls(shell, args, stdin, out, err):
    _flags, _v, names, _u = _options(args, ('-l', '-a', '-1', '-A'))
    status = 0
    for name in names or ['.']:
        path = shell.path(name)
        if not shell.is_dir(path):
            if path in shell.files or shell.read(name) is not None:
                out.append(name + '\n')
            else:
                err.append("ls: %s: No such file or directory\n" % name)
                status = 2
            continue
        prefix = path.rstrip('/') + '/'
        children = sorted({p[len(prefix):].split('/')[0]
                           for p in list(shell.files) + list(BASE_DIRS)
                           if p.startswith(prefix) and p != prefix})
        out.extend(child + '\n' for child in children)
    return status


def cmd_hostname(shell, args, stdin, out, err):
    if args and args[0] not in ('-s', '-f'):
        err.append('hostname: sethostname: Operation not permitted\n')
        return 1
    name = shell.hostname
    out.append((name.split('.')[0] if args[:1] == ['-s'] else name) + '\n')
    return 0


def cmd_uname(shell, args, stdin, out, err):
    fields = {'-s': 'Linux', '-n': shell.hostname, '-r': KERNEL,
              '-v': '#1 SMP (simulated)', '-m': 'x86_64'}
    flags, _v, _ops, unknown = _options(args, tuple(fields) + ('-a',))
    if unknown:
        return _invalid('uname', err, unknown[0])
    wanted = (list(fields) if '-a' in flags else
              [f for f in fields if f in flags] or ['-s'])
    out.append(' '.join(fields[f] for f in wanted) + (
        ' GNU/Linux' if '-a' in flags else '') + '\n')
    return 0


def cmd_whoami(shell, args, stdin, out, err):
    out.append(shell.user + '\n')
    return 0


def cmd_id(shell, args, stdin, out, err):
    uid = 0 if shell.user == 'root' else 1000
    out.append('uid=%d(%s) gid=%d(%s) groups=%d(%s)\n'
               % (uid, shell.user, uid, shell.user, uid, shell.user))
    return 0


def cmd_sync(shell, args, stdin, out, err):
    return 0


def _field_spec(spec):
    """cut's LIST (1,3-4,5-) as a test of a 1-based position."""
    ranges = []
    for part in spec.split(','):
        start, dash, end = part.partition('-')
        low = int(start) if start else 1
        high = (int(end) if end else None) if dash else low
        ranges.append((low, high))
    return lambda n: any(low <= n and (high is None or n <= high)
                         for low, high in ranges)


def cmd_cut(shell, args, stdin, out, err):
    flags, values, names, unknown = _options(args, ('-s',),
                                             ('-f', '-d', '-c'))
    if unknown:
        return _invalid('cut', err, unknown[0])
    if '-f' not in values and '-c' not in values:
        err.append('cut: expected a list of bytes, characters, or '
                   'fields\n')
        return 1
    try:
        wanted = _field_spec(values.get('-f') or values.get('-c'))
    except ValueError:
        err.append('cut: invalid field value\n')
        return 1
    delim = values.get('-d', '\t')[:1] or '\t'
    text, status = _inputs(shell, 'cut', names, stdin, err)
    for line in text.splitlines():
        if '-c' in values:
            out.append(''.join(c for n, c in enumerate(line, 1)
                               if wanted(n)) + '\n')
        elif delim not in line:
            if '-s' not in flags:
                out.append(line + '\n')
        else:
            parts = line.split(delim)
            out.append(delim.join(p for n, p in enumerate(parts, 1)
                                  if wanted(n)) + '\n')
    return status


def _inputs(shell, name, names, stdin, err):
    """The concatenated text of files names (stdin when none) and the
    status (1 when one could not be read, its error printed)."""
    if not names:
        return stdin, 0
    texts, status = [], 0
    for filename in names:
        content = stdin if filename == '-' else shell.read(filename)
        if content is None:
            err.append('%s: %s: No such file or directory\n'
                       % (name, filename))
            status = 1
        else:
            texts.append(content)
    return ''.join(texts), status


def cmd_grep(shell, args, stdin, out, err):
    flags, values, operands, unknown = _options(
        args, ('-c', '-E', '-v', '-i', '-q', '-F', '-w', '-x', '-o', '-s'),
        ('-e',))
    if unknown:
        return _invalid('grep', err, unknown[0])
    if '-e' in values:
        pattern = values['-e']
    elif operands:
        pattern, operands = operands[0], operands[1:]
    else:
        err.append('BusyBox v1.36.1 multi-call binary.\n\nUsage: grep '
                   '[-HhnlLoqvsrRiwFE] [-m N] [-A|B|C N] { PATTERN | -e '
                   'PATTERN... | -f FILE... } [FILE]...\n')
        return 2
    if '-F' in flags:
        pattern = re.escape(pattern)
    elif '-E' not in flags:
        # Basic regular expressions: \( \) \{ \} \| are the operators,
        # bare ( ) { } | + ? are literal.
        pattern = re.sub(r'\\([(){}|+?])|([(){}|+?])',
                         lambda m: m.group(1) or '\\' + m.group(2),
                         pattern)
    if '-w' in flags:
        pattern = r'\b(?:%s)\b' % pattern
    if '-x' in flags:
        pattern = r'^(?:%s)$' % pattern
    try:
        regex = re.compile(pattern, re.I if '-i' in flags else 0)
    except re.error:
        err.append('grep: bad regex\n')
        return 2
    text, status = _inputs(shell, 'grep', operands, stdin, err)
    matched = [line for line in text.splitlines()
               if bool(regex.search(line)) != ('-v' in flags)]
    if '-q' in flags:
        return 0 if matched else (2 if status else 1)
    if '-c' in flags:
        out.append('%d\n' % len(matched))
    elif '-o' in flags:
        out.extend(m.group(0) + '\n' for line in matched
                   for m in regex.finditer(line))
    else:
        out.extend(line + '\n' for line in matched)
    if status:
        return 2
    return 0 if matched else 1


def cmd_wc(shell, args, stdin, out, err):
    flags, _v, names, unknown = _options(args, ('-l', '-w', '-c'))
    if unknown:
        return _invalid('wc', err, unknown[0])
    text, status = _inputs(shell, 'wc', names, stdin, err)
    counts = {'-l': text.count('\n'), '-w': len(text.split()),
              '-c': len(text.encode())}
    wanted = [f for f in ('-l', '-w', '-c') if f in flags] or [
        '-l', '-w', '-c']
    line = ' '.join('%7d' % counts[f] for f in wanted)
    out.append(line + (' ' + names[0] if len(names) == 1 else '') + '\n')
    return status


def cmd_lsblk(shell, args, stdin, out, err):
    flags, _v, names, unknown = _options(
        args, ('-l', '-b', '-d', '--nodeps', '-n', '--noheadings', '-S',
               '--scsi', '-a', '--all', '-f', '--fs', '--ascii', '-i',
               '--list', '--bytes', '-p'))
    if unknown:
        return _invalid('lsblk', err, unknown[0])
    devices = _devices(shell.guest)
    if flags & {'-d', '--nodeps', '-S', '--scsi'}:
        devices = [d for d in devices if d[4] != 'part']
    if names:
        wanted = {posixpath.basename(n) for n in names}
        devices = [d for d in devices if d[0] in wanted]
        missing = wanted - {d[0] for d in devices}
        if missing:
            for name in sorted(missing):
                err.append('lsblk: %s: not a block device\n' % name)
            return 32 if not devices else 64
    raw = bool(flags & {'-b', '--bytes'})
    header = not flags & {'-n', '--noheadings'}
    prefix = '/dev/' if '-p' in flags else ''
    if flags & {'-S', '--scsi'}:
        rows = [['NAME', 'HCTL', 'TYPE', 'VENDOR', 'MODEL', 'REV', 'TRAN']]
        scsi = [d for d in devices if d[0].startswith('sd')]
        for index, device in enumerate(scsi):
            rows.append([prefix + device[0], '0:0:%d:0' % index, 'disk',
                         'QEMU    ', 'QEMU HARDDISK', '2.5+', ''])
        if not scsi:
            return 0
    elif flags & {'-f', '--fs'}:
        rows = [['NAME', 'FSTYPE', 'LABEL', 'UUID', 'MOUNTPOINT']]
        for name, _maj, _min, _size, kind in devices:
            mounted = kind == 'part' or (kind == 'root')
            rows.append([prefix + name,
                         'ext4' if kind in ('part',) else
                         ('swap' if kind == 'swap' else ''),
                         'cirros-rootfs' if kind == 'part' else '', '',
                         '/' if kind == 'part' and mounted else ''])
    else:
        rows = [['NAME', 'MAJ:MIN', 'RM', 'SIZE', 'RO', 'TYPE',
                 'MOUNTPOINTS']]
        for name, major, minor, size, kind in devices:
            rows.append([prefix + name, '%d:%d' % (major, minor), '0',
                         str(size) if raw else _human(size), '0',
                         'part' if kind == 'part' else 'disk',
                         '/' if kind == 'part' else
                         ('[SWAP]' if kind == 'swap' else '')])
    if not header:
        rows = rows[1:]
        if not rows:
            return 0
    out.append(_table(rows, right=(2, 3, 4) if rows[0][1] != 'HCTL'
                      and rows[0][1] != 'FSTYPE' else ()))
    return 0


def cmd_sudo(shell, args, stdin, out, err):
    while args and args[0].startswith('-'):
        args = args[1:]
    if not args:
        err.append('usage: sudo command\n')
        return 1
    previous = shell.user
    shell.user = 'root'
    try:
        return shell._call(args, stdin, out, err)
    finally:
        shell.user = previous


def cmd_sh(shell, args, stdin, out, err):
    if len(args) >= 2 and args[0] == '-c':
        saved = (shell.errexit, shell.pipefail, dict(shell.env))
        shell.errexit = shell.pipefail = False
        try:
            return shell._run_text(args[1], stdin, out, err)
        except _Exit as done:
            return done.status
        finally:
            shell.errexit, shell.pipefail, env = saved
            shell.env = env
    if not args:
        try:
            return shell._run_text(stdin, '', out, err)
        except _Exit as done:
            return done.status
    err.append("sh: can't open '%s': No such file or directory\n" % args[0])
    return 2


COMMANDS = {
    'true': cmd_true, ':': cmd_true, 'false': cmd_false, 'set': cmd_set,
    'export': cmd_export, 'echo': cmd_echo, 'cat': cmd_cat,
    'touch': cmd_touch, 'rm': cmd_rm, 'mkdir': cmd_mkdir, 'ls': cmd_ls,
    'hostname': cmd_hostname, 'uname': cmd_uname, 'whoami': cmd_whoami,
    'id': cmd_id, 'sync': cmd_sync, 'cut': cmd_cut, 'grep': cmd_grep,
    'wc': cmd_wc, 'lsblk': cmd_lsblk, 'sudo': cmd_sudo, 'sh': cmd_sh,
    'bash': cmd_sh,
}
