"""Plumbing shared by the admin CLIs: sub-command parsing and output.

A command category is a class; each public method is a command whose
arguments are declared with @args (the same arguments argparse takes).
Parsed values arrive as keyword arguments named after each argument's
dest, so a command method is also callable directly from Python.
"""
import argparse
import inspect
import json
import os
import sys

import prettytable

from nova_lite import utils

_KWARG_PREFIX = 'action_kwarg_'


def args(*names, **kwargs):
    """Declare one command-line argument of the decorated command."""
    def decorator(fn):
        fn.__dict__.setdefault('cli_args', []).insert(0, (names, kwargs))
        return fn
    return decorator


def _commands(category_cls):
    for name, fn in inspect.getmembers(category_cls, inspect.isfunction):
        if not name.startswith('_'):
            yield name, fn


def _add_command(subparsers, name, fn):
    doc = inspect.getdoc(fn) or ''
    parser = subparsers.add_parser(
        name, help=doc.split('\n', 1)[0], description=doc,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    kwarg_names = []
    for names, kwargs in getattr(fn, 'cli_args', []):
        kwargs = dict(kwargs)
        if names[0].startswith('-'):
            dest = kwargs.pop('dest', None) or names[0].lstrip('-')
            dest = dest.replace('-', '_')
            kwargs['dest'] = _KWARG_PREFIX + dest
        else:
            # Positional: argparse takes the dest from the name.
            dest = names[0]
            kwargs.setdefault('metavar', dest.upper())
            names = (_KWARG_PREFIX + dest,)
        kwarg_names.append(dest)
        parser.add_argument(*names, **kwargs)
    parser.set_defaults(action_fn=fn, action_kwargs=kwarg_names)


def make_parser_handler(categories):
    """An oslo.config SubCommandOpt handler for {name: category class}."""
    def add_command_parsers(subparsers):
        subparsers.required = True
        for category, cls in categories.items():
            parser = subparsers.add_parser(
                category, help=(inspect.getdoc(cls) or '').split('\n')[0])
            actions = parser.add_subparsers(dest='action', metavar='<action>')
            actions.required = True
            for name, fn in _commands(cls):
                _add_command(actions, name, fn)
    return add_command_parsers


# Sub-command options of our CLIs; argparse allows one per parser, so an
# in-process caller (tests) running both CLIs must drop the other's first.
_SUBCOMMAND_DESTS = ('category', 'command')


def _drop_subcommands(conf):
    from oslo_config import cfg
    for dest in _SUBCOMMAND_DESTS:
        conf.unregister_opt(cfg.SubCommandOpt(dest))


def prepare_cli(conf, opt=None):
    """Forget earlier parsing and register opt as the only sub-command."""
    conf.reset()
    _drop_subcommands(conf)
    if opt is not None:
        conf.register_cli_opt(opt)


def release_cli(conf):
    """Undo prepare_cli so later parsing in this process is unaffected."""
    conf.reset()
    _drop_subcommands(conf)


def call_parsed_command(conf, categories):
    """Run the command oslo.config parsed into conf.category."""
    parsed = conf.category
    instance = categories[parsed.name]()
    kwargs = {name: getattr(parsed, _KWARG_PREFIX + name)
              for name in parsed.action_kwargs}
    return parsed.action_fn(instance, **kwargs)


# --- finding the configuration ---------------------------------------------

# The all-in-one's default state directory and the config it writes there.
STATE_DIR_CONFIG = os.path.join('nova-lite-state', 'nova_lite.conf')
CONFIG_DIR = '/etc/nova_lite'
# Where find_config_files looked when it found nothing (for config_hint).
_searched_in_vain = []


def find_config_files(argv, prog, environ=None):
    """The configuration files an operator CLI reads when argv names none
    (--config-file/--config-dir win): OS_NOVA_LITE_CONFIG_FILES
    (';'-separated, relative to OS_NOVA_LITE_CONFIG_DIR, default
    /etc/nova_lite, as the WSGI application reads them); else
    oslo.config's search for project nova_lite (~/.nova_lite/,
    ~/, /etc/nova_lite/, /etc/: nova_lite.conf and <prog>.conf); else
    the all-in-one's ./nova-lite-state/nova_lite.conf. [] when nothing
    is found (config_hint() then says where it looked)."""
    from oslo_config import cfg
    environ = os.environ if environ is None else environ
    del _searched_in_vain[:]
    if any(arg.split('=', 1)[0] in ('--config-file', '--config-dir')
           for arg in argv):
        return []
    names = [name.strip() for name in
             environ.get('OS_NOVA_LITE_CONFIG_FILES', '').split(';')
             if name.strip()]
    if names:
        directory = environ.get('OS_NOVA_LITE_CONFIG_DIR', CONFIG_DIR)
        # Missing ones are reported by oslo.config when it reads them.
        return [os.path.join(directory.strip(), name) for name in names]
    found = cfg.find_config_files(project='nova_lite', prog=prog)
    if found:
        return found
    local = os.path.abspath(STATE_DIR_CONFIG)
    if os.path.isfile(local):
        return [local]
    _searched_in_vain.extend([
        'OS_NOVA_LITE_CONFIG_FILES (not set)',
        'nova_lite.conf and %s.conf in ~/.nova_lite/, ~/, /etc/nova_lite/ '
        'and /etc/' % prog, local])
    return []


def config_hint():
    """' No configuration file was found ...' when find_config_files
    found none (else ''): for messages about an unset option."""
    if not _searched_in_vain:
        return ''
    return (' No configuration file was found (looked at %s): pass '
            '--config-file FILE (e.g. an all-in-one\'s '
            '<state-dir>/nova_lite.conf) or set OS_NOVA_LITE_CONFIG_FILES.'
            % '; '.join(_searched_in_vain))


# --- output ---------------------------------------------------------------

def print_table(headers, rows, out=None):
    table = prettytable.PrettyTable(headers)
    table.align = 'l'
    for row in rows:
        table.add_row(list(row))
    print(table, file=out or sys.stdout)


def print_json(data, out=None):
    print(json.dumps(data, indent=2, sort_keys=True, default=str),
          file=out or sys.stdout)


def error(message):
    print(message, file=sys.stderr)


mask_password = utils.mask_password
