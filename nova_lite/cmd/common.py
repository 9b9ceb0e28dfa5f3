"""Plumbing shared by the admin CLIs: sub-command parsing and output.

A command category is a class; each public method is a command whose
arguments are declared with @args (the same arguments argparse takes).
Parsed values arrive as keyword arguments named after each argument's
dest, so a command method is also callable directly from Python.
"""
import argparse
import inspect
import json
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
